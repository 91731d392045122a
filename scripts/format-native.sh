#!/bin/bash
# clang-format over native/ (.clang-format at the root): rewrites the files,
# or with --check lists what differs and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find native -type f \( -name '*.cc' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)
if [ "${1:-}" = "--check" ]; then
  node_modules/.bin/clang-format --dry-run --Werror "${files[@]}"
else
  node_modules/.bin/clang-format -i "${files[@]}"
fi

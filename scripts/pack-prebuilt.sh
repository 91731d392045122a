#!/bin/bash
# Makes the npm package with a compiled addon inside as the prebuilt one for
# this platform (prebuilds/<platform>-<arch>/wholememory.glibc.napi.node), so
# that installing it needs no compiler. The release build compiles every CUDA
# target first (npm run build:native with WM_CUDA_ARCHS unset), then runs this.
#   bash scripts/pack-prebuilt.sh [ADDON] [DESTINATION]   (defaults: build/Release/wholememory.node, .)
# Prints the tarball's path last.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
addon=$(realpath "${1:-$root/build/Release/wholememory.node}")
dest=$(realpath "${2:-$root}")
[ -f "$addon" ] || { echo "pack-prebuilt: no addon at $addon (npm run build:native first)" >&2; exit 1; }
[ -f "$root/dist/src/index.js" ] || { echo "pack-prebuilt: no dist/ (npm run build:ts first)" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cd "$root"
cp package.json README.md LICENSE "$stage"/
for f in $(node -p "require('./package.json').files.join(' ')"); do
  [ "$f" = prebuilds ] && continue
  mkdir -p "$stage/$(dirname "$f")"
  cp -r "$f" "$stage/$f"
done
tuple=$(node -p 'process.platform + "-" + process.arch')
mkdir -p "$stage/prebuilds/$tuple"
cp "$addon" "$stage/prebuilds/$tuple/wholememory.glibc.napi.node"
cd "$stage"
npm pack --ignore-scripts --silent --pack-destination "$dest" | tail -1 | sed "s|^|$dest/|"

#!/bin/bash
# The core's C++ tests (native/tests/) through ctest. A build folder copied from elsewhere (its
# CTestTestfile.cmake names the folder it was configured in) runs the test binary directly instead.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/wm_native_tests ] || { echo "test:native: build/wm_native_tests is missing: build the addon first (npm run build:native)" >&2; exit 1; }
if [ -f build/CTestTestfile.cmake ] && grep -q "$(pwd)/build" build/CTestTestfile.cmake; then
  ctest --test-dir build --output-on-failure
else
  build/wm_native_tests
fi

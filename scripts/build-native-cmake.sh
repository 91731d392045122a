#!/bin/bash
# Builds the addon into a fresh build/ with CMake alone, passing what cmake-js would (the Node-API headers
# from node_modules, the output folder): for a machine where cmake-js cannot run (a packed copy of the
# dependencies, scripts/pack-device.sh's), or to use every core of a build machine. WM_CUDA_ARCHS chooses the
# CUDA targets (default 90a-real); WM_WITH_CUDA=OFF builds the CPU core alone.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
generator=$(command -v ninja >/dev/null && echo Ninja || echo "Unix Makefiles")
rm -rf build
cmake "$root" -B build --no-warn-unused-cli -G "$generator" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_LIBRARY_OUTPUT_DIRECTORY="$root/build/Release" \
  "-DCMAKE_JS_INC=$root/node_modules/node-api-headers/include;$root/node_modules/node-addon-api" \
  -DNODE_RUNTIME=node -DNODE_RUNTIMEVERSION="$(node -p 'process.versions.node')" -DNODE_ARCH=x64 \
  -DCMAKE_CXX_FLAGS=-DBUILDING_NODE_EXTENSION -DWM_CUDA_ARCHS="${WM_CUDA_ARCHS:-90a-real}" -DWM_WITH_CUDA="${WM_WITH_CUDA:-ON}"
cmake --build build -j "$(nproc)"

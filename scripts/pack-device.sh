#!/bin/bash
# Packs .device/ for a GPU run (see DEVELOPERS.md): ../shared/device/pack.sh
# for node and npm, then a slimmer deps.tar.xz: the tfjs packages ship source
# maps and browser bundles (~270 MB) that would not fit the 64 MiB transfer, and
# the formatters and bundlers run no test there, and the CPU-only addon CI links (build/Release-cpu) is not the one
# a GPU runs.
# Extra paths (another build's addon, say) go into the same archive.
set -euo pipefail
[ -f package.json ] || { echo "run from the project root" >&2; exit 2; }
bash ../shared/device/pack.sh >/dev/null
tar -cf - --exclude='*.map' --exclude='*.min.js' --exclude='*.es2017.js' --exclude='*.esm.js' \
    --exclude='node_modules/typescript' \
    --exclude='node_modules/clang-format' --exclude='node_modules/prettier' --exclude='node_modules/@esbuild' \
    --exclude='node_modules/@babel' --exclude='node_modules/@vue' \
    --exclude='node_modules/@expo-google-fonts/inter/*Italic' --exclude='node_modules/@expo-google-fonts/inter/[1235-9]0*' \
    --exclude='node_modules/@expo-google-fonts/inter/*/*.png' --exclude='node_modules/@expo-google-fonts/inter/*.png' \
    --exclude='node_modules/@tensorflow/*/src' --exclude='*.d.ts' --exclude='build/CMakeFiles' \
    --exclude='build/*.ninja' --exclude='build/*.a' --exclude='build/Release-cpu' --exclude='build/wm_native_tests_cpu' \
    node_modules build dist "$@" | xz -T2 -3 > .device/deps.tar.xz
# The link-prediction example's graph (../shared is not on the device machine).
if [ -d ../shared/datasets/cond-mat-2005 ]; then
  mkdir -p .device/datasets && cp -r ../shared/datasets/cond-mat-2005 .device/datasets/
fi
du -sh .device/* | sed 's/^/  /'
total=$(du -sm .device | cut -f1); echo "total ${total} MiB (must stay under 64 MiB with the tree)"

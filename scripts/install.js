#!/usr/bin/env node
// npm's install step for this package: a prebuilt addon that matches this
// platform, architecture and Node-API (prebuilds/, chosen by node-gyp-build)
// and loads here is used as it is; otherwise the addon is compiled with
// cmake-js (CMake, a C++ compiler, and nvcc for the GPU core).
// --build-from-source (npm_config_build_from_source) or
// TFJS_WHOLEMEMORY_BUILD_FROM_SOURCE=1 compiles even when a prebuilt one matches.
'use strict';
const {spawnSync} = require('child_process');
const path = require('path');

const root = path.join(__dirname, '..');
const truthy = (v) => v === '1' || v === 'true';

function prebuiltThatLoads() {
  let found;
  try {
    found = require('node-gyp-build').path(root);
  } catch {
    return undefined;
  }
  if (!found.split(path.sep).includes('prebuilds')) return undefined;
  try {
    const addon = require(found);
    return {file: path.relative(root, found), archs: addon.cudaSetup().archs};
  } catch (e) {
    console.warn(`tfjs-backend-wholememory: the prebuilt addon ${found} does not load here (${e.message}); compiling from source`);
    return undefined;
  }
}

const fromSource = truthy(process.env.npm_config_build_from_source) || truthy(process.env.TFJS_WHOLEMEMORY_BUILD_FROM_SOURCE);
const prebuilt = fromSource ? undefined : prebuiltThatLoads();
if (prebuilt) {
  console.log(`tfjs-backend-wholememory: using the prebuilt addon ${prebuilt.file} (CUDA targets: ${prebuilt.archs || 'none, CPU only'})`);
  process.exit(0);
}
const cmakeJs = path.join(path.dirname(require.resolve('cmake-js/package.json')), 'bin', 'cmake-js');
const r = spawnSync(process.execPath, [cmakeJs, 'compile', '--log-level', 'error'], {cwd: root, stdio: 'inherit'});
if (r.status !== 0) {
  console.error(
    `tfjs-backend-wholememory: compiling the addon failed (${r.status === null ? r.signal : `exit ${r.status}`}); ` +
      'it needs CMake 3.18 or newer and a C++17 compiler on PATH, and nvcc for the GPU core (docs/install.md)',
  );
}
process.exit(r.status === null ? 1 : r.status);

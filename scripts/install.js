#!/usr/bin/env node
// npm's install step for this package: a prebuilt addon that matches this
// platform, architecture and Node-API (prebuilds/, chosen by node-gyp-build)
// and loads here is used as it is; otherwise the addon is compiled with
// cmake-js (CMake, a C++ compiler, and nvcc for the GPU core) for the GPUs
// this machine has, or the CPU core alone where it has none (buildPlan).
// --build-from-source (npm_config_build_from_source) or
// TFJS_WHOLEMEMORY_BUILD_FROM_SOURCE=1 compiles even when a prebuilt one matches.
'use strict';
const {spawnSync} = require('child_process');
const fs = require('fs');
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
/** The CUDA targets this machine's GPUs need, in CMake's form, from nvidia-smi's compute capabilities. */
function targetsOf(caps) {
  const out = new Set();
  for (const cap of caps) {
    const m = /^(\d+)\.(\d+)$/.exec(cap);
    if (!m) continue;
    const n = Number(m[1]) * 10 + Number(m[2]);
    if (n < 75) continue; // before Turing: CUDA 13 compiles nothing for it
    if (n === 90) out.add('90a-real'); // Hopper: the sm_90a paths
    else if (n > 90) out.add('90-virtual'); // newer GPUs: compute_90 PTX, compiled by the driver
    else out.add(`${n}-real`);
  }
  return [...out].join(';');
}

/**
 * What to compile when no prebuilt addon serves: WM_CUDA_ARCHS when set (CI, release builds: see
 * docs/install.md); else the GPUs this machine has; else, with no GPU, the CPU core alone.
 */
function buildPlan() {
  if (process.env.WM_CUDA_ARCHS) return {args: [], say: `CUDA targets ${process.env.WM_CUDA_ARCHS} (WM_CUDA_ARCHS)`};
  const smi = spawnSync('nvidia-smi', ['--query-gpu=compute_cap', '--format=csv,noheader'], {encoding: 'utf8', timeout: 30000});
  const caps = smi.status === 0 ? smi.stdout.split('\n').map((l) => l.trim()).filter(Boolean) : [];
  const targets = targetsOf(caps);
  if (targets) return {args: [], env: {WM_CUDA_ARCHS: targets}, say: `CUDA targets ${targets} (the GPUs here: compute capability ${[...new Set(caps)].join(', ')})`};
  if (caps.length === 0 && fs.existsSync('/dev/nvidia0'))
    return {args: [], say: 'a GPU device but no nvidia-smi to ask its compute capability: every CUDA target of the release'};
  const why = caps.length ? `the GPUs here (compute capability ${caps.join(', ')}) are older than Turing` : 'no NVIDIA GPU found (nvidia-smi)';
  return {
    args: ['--CDWM_WITH_CUDA=OFF'],
    say: `the CPU core alone: ${why}. To compile the CUDA core for a GPU elsewhere, set WM_CUDA_ARCHS (e.g. WM_CUDA_ARCHS=90a-real) and run npm rebuild tfjs-backend-wholememory`,
  };
}

const plan = buildPlan();
console.log(`tfjs-backend-wholememory: compiling the addon: ${plan.say}`);
// TFJS_WHOLEMEMORY_BUILD_PLAN=1: say what would be compiled, compile nothing.
if (truthy(process.env.TFJS_WHOLEMEMORY_BUILD_PLAN)) process.exit(0);
const cmakeJs = path.join(path.dirname(require.resolve('cmake-js/package.json')), 'bin', 'cmake-js');
const r = spawnSync(process.execPath, [cmakeJs, 'compile', '--log-level', 'error', ...plan.args], {
  cwd: root,
  stdio: 'inherit',
  env: {...process.env, ...plan.env},
});
if (r.status !== 0) {
  console.error(
    `tfjs-backend-wholememory: compiling the addon failed (${r.status === null ? r.signal : `exit ${r.status}`}); ` +
      'it needs CMake 3.18 or newer and a C++17 compiler on PATH, and nvcc for the GPU core (docs/install.md)',
  );
}
process.exit(r.status === null ? 1 : r.status);

#!/usr/bin/env node
// npx tfjs-wm-doctor: what this install runs on, and why not the GPU when it
// does not: the addon found (and where), whether it has the CUDA core, the
// GPU, cuBLAS and NCCL, the CPU kernels' threads; with --json, as JSON.
import * as os from 'os';

import {Command} from 'commander';

import * as wm from '../src/index';
import {addonLocation} from '../src/native/addon';

const program = new Command()
  .name('tfjs-wm-doctor')
  .description('Reports which native addon loaded, the GPU it found, cuBLAS and NCCL, and why it falls back to the CPU when it does')
  .option('--json', 'print the report as JSON')
  .parse();

function advice(info: wm.DeviceInfo): string {
  if (!info.addonLoaded) return 'build the addon: npm run build:native (CMake and a C++ compiler; nvcc for the GPU)';
  if (!info.builtWithCuda) return 'the addon was built without nvcc: install the CUDA toolkit and rebuild with npm run build:native';
  if (info.reason.includes('TFJS_WHOLEMEMORY_DEVICE')) return 'unset TFJS_WHOLEMEMORY_DEVICE to use the GPU';
  return 'install the NVIDIA driver (libcuda.so.1) and check that a GPU is visible (nvidia-smi, CUDA_VISIBLE_DEVICES)';
}

function main(): void {
  const o = program.opts();
  const info = wm.deviceInfo();
  const report = {
    package: require('../../package.json').version as string,
    node: process.version,
    napi: process.versions.napi,
    platform: `${os.platform()}-${os.arch()}`,
    addon: info.addonLoaded ? addonLocation() : null,
    builtWithCuda: info.builtWithCuda,
    gpu: info.gpu ? {device: info.device, name: info.name, count: info.deviceCount, cublas: info.cublas} : null,
    nccl: info.addonLoaded ? wm.ncclStatus() : 'unavailable: no addon',
    cpuThreads: info.hostThreads ?? null,
    fallback: info.gpu ? null : {reason: info.reason, advice: advice(info)},
  };
  if (o.json) {
    console.log(JSON.stringify(report, null, 2));
    return;
  }
  const line = (k: string, v: unknown) => console.log(`${k.padEnd(16)} ${v}`);
  line('package', `tfjs-backend-wholememory ${report.package}`);
  line('node', `${report.node} (N-API ${report.napi}), ${report.platform}`);
  line('addon', report.addon ?? `not loaded: ${info.reason}`);
  line('CUDA core', report.builtWithCuda ? 'built in' : 'not built (CPU kernels only)');
  if (report.gpu) {
    line('GPU', `${report.gpu.name} (device ${report.gpu.device} of ${report.gpu.count})`);
    line('cuBLAS', report.gpu.cublas ? 'loaded' : 'not found (our own matmul kernel runs)');
  } else {
    line('GPU', `none in use: ${info.reason}`);
    line('to use the GPU', report.fallback!.advice);
  }
  line('NCCL', report.nccl);
  line('CPU threads', report.cpuThreads ?? 'n/a');
}

main();

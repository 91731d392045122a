#!/usr/bin/env node
// npx tfjs-wm-doctor: what this install runs on, and why not the GPU when it does not (wm.installReport,
// printed as a table or, with --json, as JSON).
import {Command} from 'commander';

import * as wm from '../src/index';

const program = new Command()
  .name('tfjs-wm-doctor')
  .description(
    'Reports which native addon loaded (prebuilt or compiled, its CUDA targets), the CUDA driver and runtime, ' +
      'the GPUs with their compute capability and peer access, cuBLAS and NCCL, and why it falls back to the CPU when it does',
  )
  .option('--json', 'print the report as JSON')
  .parse();

const GiB = 1024 ** 3;
const packageVersion = require('../../package.json').version as string;

function main(): void {
  const report = wm.installReport();
  if (program.opts().json) {
    console.log(JSON.stringify({package: packageVersion, ...report}, null, 2));
    return;
  }
  const line = (k: string, v: unknown) => console.log(`${k.padEnd(16)} ${v}`);
  line('package', `tfjs-backend-wholememory ${packageVersion}`);
  line('node', `${report.node} (N-API ${report.napi}), ${report.platform}`);
  if (report.addon) {
    line('addon', report.addon.path);
    line('addon origin', report.addon.origin);
    line('CUDA targets', report.addon.cudaTargets || 'none (CPU kernels only)');
  } else {
    line('addon', 'not loaded');
  }
  line('CUDA runtime', report.cudaRuntime ?? 'none');
  line('CUDA driver', report.cudaDriver ?? 'none (no libcuda.so.1)');
  for (const g of report.gpus) {
    line(
      `GPU ${g.index}`,
      `${g.name}, compute capability ${g.computeCapability}, ${(g.totalBytes / GiB).toFixed(1)} GiB, ${g.multiprocessors} SMs, ${g.pciBusId}`,
    );
  }
  if (report.gpus.length > 1) {
    line('peer access', wm.describePeerAccess(report.gpus));
  }
  if (report.gpu) {
    line('in use', `GPU ${report.gpu.index} (${report.gpu.name})`);
    line('kernels', report.gpu.kernels);
    line('cuBLAS', report.gpu.cublas ?? 'not found (our own matmul kernel runs)');
    line('NCCL', report.gpu.nccl ? `${report.nccl} (${report.gpu.nccl})` : report.nccl);
  } else {
    line('NCCL', report.nccl);
  }
  line('CPU threads', report.cpuThreads ?? 'n/a');
  for (const p of report.problems) line('problem', p);
  if (report.fallback) {
    line('GPU', `not used: ${report.fallback.cause} (${report.fallback.reason})`);
    line('to use the GPU', report.fallback.advice);
  }
}

main();

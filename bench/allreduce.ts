// `npm run bench:allreduce` (GPUs): per-call time and bus bandwidth
// (2(n-1)/n x bytes / time) of comm.allReduce on float32, back-to-back calls
// from Node, set against dist.all_reduce (NCCL) from PyTorch under torchrun
// on the same GPUs in the same run. Starts its own ranks.
import {spawnSync} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {median} from './bench_util';

const root = path.resolve(__dirname, '..', '..');
const SIZES = [1 << 10, 1 << 16, 1 << 20, 1 << 24, 1 << 26];

async function rank(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const comm = wm.communicatorFromEnv();
  const rows: {bytes: number; us: number; busGBs: number}[] = [];
  for (const bytes of SIZES) {
    const x = tf.randomNormal([bytes / 4]);
    const reps = bytes <= (1 << 20) ? 200 : 50;
    for (let i = 0; i < 10; ++i) comm.allReduce(x)[0].dispose();
    const times: number[] = [];
    for (let k = 0; k < 5; ++k) {
      comm.barrier();
      wm.synchronize();
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < reps; ++i) comm.allReduce(x)[0].dispose();
      wm.synchronize();
      times.push(Number(process.hrtime.bigint() - t0) / 1e3 / reps);
    }
    const us = median(times);
    rows.push({bytes, us, busGBs: (2 * (comm.size - 1)) / comm.size * bytes / us / 1e3});
    x.dispose();
  }
  if (comm.rank === 0) process.stdout.write(`OURS ${JSON.stringify(rows)}\n`);
  comm.destroy();
}

function main(): void {
  const n = Number(process.env.BENCH_RANKS ?? wm.deviceInfo().deviceCount);
  if (!(n >= 2)) {
    console.log(`bench:allreduce needs at least two GPUs (${wm.deviceInfo().deviceCount} here)`);
    return;
  }
  const torch = spawnSync('python3', ['-m', 'torch.distributed.run', '--standalone', `--nproc_per_node=${n}`, path.join(root, 'bench', 'torch', 'allreduce.py')],
                          {encoding: 'utf8', env: {...process.env, NCCL_NVLS_ENABLE: '0'}});
  const torchLine = (torch.stdout || '').split('\n').find((l) => l.startsWith('{'));
  const ref = torchLine ? JSON.parse(torchLine) : undefined;
  if (!ref) console.log(`(PyTorch side not run: ${(torch.stderr || '').trim().split('\n').slice(-2).join(' ')})`);
  const ours = spawnSync(process.execPath, [path.join(root, 'dist', 'bin', 'tfjs-wm-run.js'), '-n', String(n), __filename], {encoding: 'utf8'});
  const line = (ours.stdout || '').split('\n').find((l) => l.includes('OURS '));
  if (!line) {
    console.log(ours.stdout, ours.stderr);
    process.exit(1);
  }
  const rows = JSON.parse(line.slice(line.indexOf('OURS ') + 5)) as {bytes: number; us: number; busGBs: number}[];
  console.log(`\nall-reduce, float32, ${n} x ${wm.deviceInfo().name}, back-to-back calls`);
  console.log('| bytes | ours µs | ours bus GB/s | torch NCCL µs | torch bus GB/s |');
  console.log('| --- | --- | --- | --- | --- |');
  rows.forEach((r, i) => {
    const t = ref?.results[i];
    console.log(`| ${r.bytes} | ${r.us.toFixed(1)} | ${r.busGBs.toFixed(1)} | ${t ? t.us.toFixed(1) : ''} | ${t ? t.busGBs.toFixed(1) : ''} |`);
  });
  if (ref) console.log(`torch ${ref.torch}, NCCL ${ref.nccl}`);
  const out = process.env.BENCH_OUT ?? path.join(root, 'runs', 'bench', 'allreduce.json');
  fs.mkdirSync(path.dirname(out), {recursive: true});
  fs.writeFileSync(out, JSON.stringify({date: new Date().toISOString(), ranks: n, device: wm.deviceInfo().name, ours: rows, torch: ref}, null, 2));
}

if (process.env.RANK !== undefined) {
  rank().catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  main();
}

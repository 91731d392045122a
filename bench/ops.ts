// `npm run bench:ops`: per-op dispatch cost (10,000 tiny Adds, synced once),
// a [4096,128]x[128,128] MatMul and the same as a Dense layer's forward
// (tf.fused.matMul with a bias and ReLU), on 'wholememory' set against PyTorch
// eager on the same GPU (bench/torch/ops.py, same run) and against
// tfjs-backend-cpu. Prints a table, writes JSON.

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {median, torchJson, writeBenchResult} from './bench_util';

const N = Number(process.env.BENCH_OPS_N ?? 10000);

function tinyAddsUs(n: number): number {
  const a = tf.randomUniform([16]);
  const b = tf.randomUniform([16]);
  const run = (count: number) => {
    for (let i = 0; i < count; ++i) tf.add(a, b).dispose();
    wm.synchronize();
  };
  run(200);
  const t0 = process.hrtime.bigint();
  run(n);
  const us = Number(process.hrtime.bigint() - t0) / 1e3 / n;
  tf.dispose([a, b]);
  return us;
}

function matmulUs(reps: number, dense = false): number {
  const a = tf.randomNormal([4096, 128]);
  const b = tf.randomNormal([128, 128]);
  const bias = tf.randomNormal([128]);
  const times: number[] = [];
  for (let i = 0; i < reps + 10; ++i) {
    wm.synchronize();
    const t0 = process.hrtime.bigint();
    const c = dense ? tf.fused.matMul({a, b, bias, activation: 'relu'}) : tf.matMul(a, b);
    wm.synchronize();
    if (tf.getBackend() === 'cpu') c.dataSync(); // the CPU backend computes eagerly anyway
    const dt = Number(process.hrtime.bigint() - t0) / 1e3;
    c.dispose();
    if (i >= 10) times.push(dt);
  }
  tf.dispose([a, b, bias]);
  return median(times);
}

function torchSide(): Record<string, number | string> | undefined {
  return torchJson<Record<string, number | string>>('ops.py', [String(N)]);
}

async function main(): Promise<void> {
  const rows: {what: string; addUs: number; matmulUs: number; denseUs: number}[] = [];
  await tf.setBackend(wm.BACKEND_NAME);
  const dev = wm.deviceInfo();
  const measure = (what: string, reps: number) => {
    const addUs = median([0, 1, 2, 3, 4].map(() => tinyAddsUs(N)));
    rows.push({what, addUs, matmulUs: matmulUs(reps), denseUs: matmulUs(reps, true)});
  };
  measure(`wholememory (${dev.gpu ? dev.name : 'CPU'})`, dev.gpu ? 200 : 20);
  await tf.setBackend('cpu');
  measure('tfjs-backend-cpu', 20);
  await tf.setBackend(wm.BACKEND_NAME);
  const torch = torchSide();
  if (torch) {
    rows.push({
      what: `torch ${torch.torch} eager (${torch.device})`,
      addUs: torch.addUs as number,
      matmulUs: torch.matmulUs as number,
      denseUs: torch.denseUs as number,
    });
  }

  const flops = 2 * 4096 * 128 * 128;
  console.log(`\nper-op dispatch (${N} tiny Adds, synced once), [4096,128]x[128,128] MatMul, and as a Dense layer (+ bias, ReLU; median)`);
  console.log('| run | µs per Add | MatMul µs | MatMul GFLOP/s | Dense µs |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const r of rows) {
    console.log(
      `| ${r.what} | ${r.addUs.toFixed(2)} | ${r.matmulUs.toFixed(1)} | ${(flops / r.matmulUs / 1e3).toFixed(1)} | ${r.denseUs?.toFixed(1) ?? ''} |`,
    );
  }
  if (torch && rows.length >= 3) {
    console.log(
      `ratio ours / torch: Add ${(rows[0].addUs / rows[2].addUs).toFixed(2)}x, MatMul ${(rows[0].matmulUs / rows[2].matmulUs).toFixed(2)}x, ` +
        `Dense ${(rows[0].denseUs / rows[2].denseUs).toFixed(2)}x (lower is better)`,
    );
  }
  console.log(
    `ratio ours / tfjs-backend-cpu: Add ${(rows[0].addUs / rows[1].addUs).toFixed(2)}x, MatMul ${(rows[0].matmulUs / rows[1].matmulUs).toFixed(3)}x, ` +
      `Dense ${(rows[0].denseUs / rows[1].denseUs).toFixed(3)}x`,
  );
  writeBenchResult('ops', {n: N, device: dev, rows});
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

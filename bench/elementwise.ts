// `npm run bench:elementwise`: the memory-bound passes a training step is
// full of, on [rows, width] float32 tensors large enough to stream from
// memory (2^20 rows on a GPU, 2^15 on the CPU): a same-shape add, a bias row
// added, a column of scales, a host scalar, ReLU, exp, a Dense layer's
// epilogue (tf.fused.matMul with a bias and ReLU, its matmul included), and
// a GNN's row traffic: gathering rows by random ids and adding rows back by
// them (tf.unsortedSegmentSum, the gather's gradient).
// References in the same run: PyTorch eager on the same GPU
// (bench/torch/elementwise.py), or tfjs-backend-cpu on a machine without
// one. Median ms per call, synchronised, and GB/s over the bytes each call
// must at least move (its inputs and output; ids, the Dense row's weights and
// the segment sum's zero fill left out).

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {envPositiveInt, timeTensorsMs, torchJson, writeBenchResult} from './bench_util';

interface Case {
  name: string;
  /** Floats moved per call, in units of rows x width. */
  traffic: number;
  run: (t: Inputs) => tf.Tensor;
  /** Left out on tfjs-backend-cpu: its unsortedSegmentSum takes a pass over the rows per segment. */
  notOnCpu?: boolean;
}
interface Inputs {
  x: tf.Tensor2D;
  y: tf.Tensor2D;
  bias: tf.Tensor1D;
  column: tf.Tensor2D;
  w: tf.Tensor2D;
  ids: tf.Tensor1D;
}

// Names match bench/torch/elementwise.py's.
const CASES: Case[] = [
  {name: 'x + y', traffic: 3, run: (t) => tf.add(t.x, t.y)},
  {name: 'x + bias row', traffic: 2, run: (t) => tf.add(t.x, t.bias)},
  {name: 'x * column', traffic: 2, run: (t) => tf.mul(t.x, t.column)},
  {name: 'x * 0.5 (host scalar)', traffic: 2, run: (t) => tf.mul(t.x, 0.5)},
  {name: 'relu(x)', traffic: 2, run: (t) => tf.relu(t.x)},
  {name: 'exp(x)', traffic: 2, run: (t) => tf.exp(t.x)},
  {name: 'relu(x W + b) fused', traffic: 2, run: (t) => tf.fused.matMul({a: t.x, b: t.w, bias: t.bias, activation: 'relu'})},
  {name: 'x[ids] (gather rows)', traffic: 2, run: (t) => tf.gather(t.x, t.ids)},
  {name: 'rows added back by ids', traffic: 2, run: (t) => tf.unsortedSegmentSum(t.x, t.ids, t.x.shape[0]), notOnCpu: true},
];

function measure(rows: number, width: number, reps: number): Array<number | undefined> {
  const t: Inputs = {
    x: tf.randomNormal([rows, width], 0, 1, 'float32', 1),
    y: tf.randomNormal([rows, width], 0, 1, 'float32', 2),
    bias: tf.randomNormal([width], 0, 1, 'float32', 3),
    column: tf.randomNormal([rows, 1], 0, 1, 'float32', 4),
    w: tf.randomNormal([width, width], 0, 0.1, 'float32', 5),
    ids: tf.randomUniformInt([rows], 0, rows, 6) as tf.Tensor1D,
  };
  const ms = CASES.map((c) => (c.notOnCpu && tf.getBackend() === 'cpu' ? undefined : timeTensorsMs(() => c.run(t), reps, 3)));
  tf.dispose(Object.values(t));
  return ms;
}

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const dev = wm.deviceInfo();
  const rows = envPositiveInt('BENCH_ROWS', dev.gpu ? 1 << 20 : 1 << 15);
  // tfjs-backend-cpu's Dense at width 512 would take ~20 s a call.
  const widths = (process.env.BENCH_WIDTHS ?? (dev.gpu ? '128,512' : '128')).split(',').map(Number);
  const reps = dev.gpu ? 30 : 10;
  const results: {width: number; ours: Array<number | undefined>; reference: Array<number | undefined> | undefined}[] = [];
  let refName = 'tfjs-backend-cpu';
  for (const width of widths) {
    const ours = measure(rows, width, reps);
    let reference: Array<number | undefined> | undefined;
    if (dev.gpu) {
      const torch = torchJson<{torch: string; device: string; ms: Record<string, number>}>('elementwise.py', [String(rows), String(width)]);
      if (torch) {
        refName = `torch ${torch.torch} (${torch.device})`;
        reference = CASES.map((c) => torch.ms[c.name]);
      }
    } else {
      await tf.setBackend('cpu');
      reference = measure(rows, width, reps);
      await tf.setBackend(wm.BACKEND_NAME);
    }
    results.push({width, ours, reference});
    const gbs = (c: Case, ms: number) => ((c.traffic * rows * width * 4) / ms / 1e6).toFixed(0);
    console.log(`\n[${rows}, ${width}] float32, median ms per call (GB/s)`);
    console.log(`| op | wholememory (${dev.gpu ? dev.name : 'CPU'}) | ${refName} | theirs / ours |`);
    console.log('| --- | --- | --- | --- |');
    CASES.forEach((c, i) => {
      const o = ours[i]!,
        r = reference?.[i];
      console.log(
        `| ${c.name} | ${o.toFixed(3)} (${gbs(c, o)}) | ${r === undefined ? 'n/a' : `${r.toFixed(3)} (${gbs(c, r)})`} | ` +
          `${r === undefined ? '' : `${(r / o).toFixed(2)}x`} |`,
      );
    });
  }
  writeBenchResult('elementwise', {device: dev.gpu ? dev.name : 'CPU', rows, reference: refName, cases: CASES.map((c) => c.name), results});
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

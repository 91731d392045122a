// `npm run bench:gat` — graph attention (wm.nn.gatAggregate: the edge softmax
// and the weighted sum as one native op each way) against the same function
// composed from tfjs ops (gathers, segment sums, elementwise ops: each a
// native kernel of ours, on the same backend), and on a GPU against PyTorch
// eager in the same run (bench/torch/gat.py: gathers, scatter_reduce for
// each row's maximum, index_add_, autograd) and PyG's own pieces (its edge
// softmax and scatter, as GATConv runs them). tfjs-backend-cpu is left out:
// its unsortedSegmentSum takes a pass per segment (9.6 s for a forward pass
// over 3,200 entries on the CPU box). A random graph: BENCH_GAT_ROWS rows of BENCH_GAT_DEGREE
// random sources each, BENCH_GAT_HEADS heads of BENCH_GAT_DIM features.
// Median ms per call, synchronised.

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {composite} from '../src/nn/gat';
import {envPositiveInt, timeTensorsMs, torchJsonWithFiles, writeBenchResult} from './bench_util';

function randomGraph(rows: number, degree: number): {rowPtr: Int32Array; colIdx: Int32Array} {
  let s = 12345;
  const next = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0);
  const rowPtr = Int32Array.from({length: rows + 1}, (_, r) => r * degree);
  const colIdx = Int32Array.from({length: rows * degree}, () => next() % rows);
  return {rowPtr, colIdx};
}

type Gat = (block: wm.graph.CsrBlock, feat: tf.Tensor3D, src: tf.Tensor2D, dst: tf.Tensor2D) => tf.Tensor;

const fused: Gat = (block, feat, src, dst) => wm.nn.gatAggregate(block, feat, src, dst);
const ops: Gat = (block, feat, src, dst) => composite(block, feat, src, dst, 0.2);

function measure(gat: Gat, block: wm.graph.CsrBlock, rows: number, heads: number, dim: number, reps: number): number[] {
  const feat = tf.randomNormal([rows, heads, dim]) as tf.Tensor3D;
  const src = tf.randomNormal([rows, heads]) as tf.Tensor2D,
    dst = tf.randomNormal([rows, heads]) as tf.Tensor2D;
  const up = tf.randomNormal([rows, heads, dim]);
  const f = (a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) => gat(block, a as tf.Tensor3D, b as tf.Tensor2D, c as tf.Tensor2D);
  // Tensors made inside a call are freed with it.
  const run = (fn: () => tf.Tensor | tf.Tensor[]) => timeTensorsMs(fn, reps, 2);
  const ms = [
    run(() => f(feat, src, dst)),
    run(() => tf.grads((a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) => tf.sum(tf.mul(f(a, b, c), up)))([feat, src, dst])),
  ];
  tf.dispose([feat, src, dst, up]);
  return ms;
}

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const dev = wm.deviceInfo();
  const rows = envPositiveInt('BENCH_GAT_ROWS', dev.gpu ? 200000 : 20000),
    degree = envPositiveInt('BENCH_GAT_DEGREE', 16);
  const heads = envPositiveInt('BENCH_GAT_HEADS', 4),
    dim = envPositiveInt('BENCH_GAT_DIM', 32);
  const {rowPtr, colIdx} = randomGraph(rows, degree);
  const block = new wm.graph.CsrBlock(rowPtr, colIdx, rows);
  const cases = ['gatAggregate forward', 'forward + gradients (feat, src, dst)'];
  const reps = dev.gpu ? 30 : 5;
  const ours = measure(fused, block, rows, heads, dim, reps);
  // The composite takes each row's maximum on the host (a download and a JavaScript loop): about
  // 2.5 s a round on the H100's default graph, so fewer rounds.
  const composed = measure(ops, block, rows, heads, dim, dev.gpu ? 3 : reps);
  // The PyTorch references, hand-composed torch and PyG's, side by side.
  const refs: {name: string; ms: number[]}[] = [];
  if (dev.gpu) {
    const t = torchJsonWithFiles<{torch: string; device: string; ms: number[]; pyg?: string; pyg_ms?: number[]; pyg_error?: string}>(
      'gat.py',
      {'row_ptr.i32': rowPtr, 'col_idx.i32': colIdx},
      [String(heads), String(dim)],
    );
    if (t) refs.push({name: `torch ${t.torch} (${t.device})`, ms: t.ms});
    if (t?.pyg_ms) refs.push({name: `PyG ${t.pyg}`, ms: t.pyg_ms});
    else if (t?.pyg_error) console.log(`(PyG not run: ${t.pyg_error})`);
  }
  block.dispose();
  console.log(
    `\ngraph attention, ${rows} rows x ${degree} sources (${rows * degree} entries), ${heads} heads of ${dim}, median ms per call`,
  );
  console.log(
    `| case | wholememory (${dev.gpu ? dev.name : 'CPU'}) ms | same from tfjs ops ms | ops / ours |${refs.map((r) => ` ${r.name} ms | theirs / ours |`).join('')}`,
  );
  console.log(`| --- | --- | --- | --- |${refs.map(() => ' --- | --- |').join('')}`);
  cases.forEach((c, i) =>
    console.log(
      `| ${c} | ${ours[i].toFixed(3)} | ${composed[i].toFixed(3)} | ${(composed[i] / ours[i]).toFixed(2)}x |` +
        refs.map((r) => (r.ms[i] === undefined ? ' n/a | |' : ` ${r.ms[i].toFixed(3)} | ${(r.ms[i] / ours[i]).toFixed(2)}x |`)).join(''),
    ),
  );
  writeBenchResult('gat', {rows, degree, heads, dim, device: dev, cases, ours, composed, refs});
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

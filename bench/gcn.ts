// `npm run bench:gcn` — a graph convolution over a whole seeded R-MAT graph:
// wm.graph.aggregate(x, block, 'gcn') (Â x with Â = D^-1/2 (A + I) D^-1/2,
// one native sparse product each way) alone, and a GCN layer relu(Â x W + b)
// with its gradients. References in the same run: the same functions from
// tfjs ops on our backend (gather, multiply, unsortedSegmentSum: each a
// native kernel), and on a GPU PyTorch with Â as a CSR tensor (torch.sparse.mm,
// cuSPARSE; bench/torch/gcn.py), autograd for the gradients, and PyG's
// GCNConv (normalize=False, the same weights as edge weights) where
// torch-geometric is installed. tfjs-backend-cpu
// is left out: its unsortedSegmentSum takes a pass per segment.
// Median ms per call, synchronised.

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {CsrGraph} from '../src/graph/csr';
import {envPositiveInt, timeTensorsMs, torchJsonWithFiles, writeBenchResult} from './bench_util';

type Aggregate = (x: tf.Tensor2D) => tf.Tensor2D;

function measure(agg: Aggregate, n: number, dim: number, reps: number): number[] {
  const x = tf.randomNormal([n, dim], 0, 1, 'float32', 1) as tf.Tensor2D;
  const w = tf.randomNormal([dim, dim], 0, 0.1, 'float32', 2) as tf.Tensor2D;
  const b = tf.zeros([dim]),
    up = tf.randomNormal([n, dim], 0, 1, 'float32', 3);
  const layer = (xx: tf.Tensor, ww: tf.Tensor, bb: tf.Tensor) => tf.relu(tf.add(agg(tf.matMul(xx as tf.Tensor2D, ww as tf.Tensor2D)), bb));
  // Tensors made inside a call are freed with it (a layer's products leaked before: 1.5 GiB a call at width 128).
  const run = (fn: () => tf.Tensor | tf.Tensor[]) => timeTensorsMs(fn, reps, 2);
  const ms = [
    run(() => agg(x)),
    run(() => layer(x, w, b)),
    run(() => tf.grads((xx: tf.Tensor, ww: tf.Tensor, bb: tf.Tensor) => tf.sum(tf.mul(layer(xx, ww, bb), up)))([x, w, b])),
  ];
  tf.dispose([x, w, b, up]);
  return ms;
}

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const dev = wm.deviceInfo();
  const scale = envPositiveInt('BENCH_GCN_SCALE', dev.gpu ? 20 : 15),
    dim = envPositiveInt('BENCH_GCN_DIM', 128);
  const built = Date.now();
  const g = CsrGraph.fromEdges(wm.graph.rmat({scale, edgeFactor: 16, seed: 5}), {symmetric: true});
  console.log(
    `R-MAT scale ${scale}: ${g.numVertices} vertices, ${g.numEdges} directed edges (built in ${((Date.now() - built) / 1000).toFixed(1)} s)`,
  );
  const block = wm.graph.CsrBlock.fromGraph(g);
  const norm = block.product('gcn', false); // Â's entries: what the reference products use
  const n = g.numVertices;
  const cases = ["aggregate 'gcn' (Â x)", 'GCN layer relu(Â x W + b)', 'GCN layer + gradients (x, W, b)'];
  const reps = dev.gpu ? 30 : 5;
  const ours = measure((x) => wm.graph.aggregate(x, block, 'gcn'), n, dim, reps);
  // The composite holds [entries, width] messages, several at once with gradients: only where they fit.
  const messageGiB = (norm.colIdx.length * dim * 4) / 2 ** 30;
  let composed: number[] | undefined;
  if (messageGiB <= envPositiveInt('BENCH_GCN_COMPOSITE_GIB', 2)) {
    const rows = new Int32Array(norm.colIdx.length);
    for (let r = 0; r < n; ++r) rows.fill(r, norm.rowPtr[r], norm.rowPtr[r + 1]);
    const rowsT = tf.tensor1d(rows, 'int32'),
      colsT = tf.tensor1d(norm.colIdx, 'int32'),
      weightT = tf.tensor2d(norm.weight!, [norm.colIdx.length, 1]);
    try {
      composed = measure(
        (x) => tf.unsortedSegmentSum(tf.mul(tf.gather(x, colsT), weightT), rowsT, n) as tf.Tensor2D,
        n,
        dim,
        dev.gpu ? 10 : 3,
      );
    } catch (e) {
      console.log(`(tfjs-ops composite failed: ${(e as Error).message.split('\n')[0]})`);
    }
    tf.dispose([rowsT, colsT, weightT]);
  } else {
    console.log(
      `(tfjs-ops composite left out: its messages take ${messageGiB.toFixed(1)} GiB each; BENCH_GCN_COMPOSITE_GIB raises the bound)`,
    );
  }
  // The PyTorch references, hand-composed torch and PyG's, side by side.
  const refs: {name: string; ms: number[]}[] = [];
  if (dev.gpu) {
    const t = torchJsonWithFiles<{torch: string; device: string; ms: number[]; pyg?: string; pyg_ms?: number[]; pyg_error?: string}>(
      'gcn.py',
      {'row_ptr.i32': norm.rowPtr, 'col_idx.i32': norm.colIdx, 'weight.f32': norm.weight!},
      [String(dim)],
    );
    if (t) refs.push({name: `torch ${t.torch} (${t.device})`, ms: t.ms});
    if (t?.pyg_ms) refs.push({name: `PyG ${t.pyg}`, ms: t.pyg_ms});
    else if (t?.pyg_error) console.log(`(PyG not run: ${t.pyg_error})`);
  }
  block.dispose();
  console.log(
    `\nGCN over the whole graph: ${n} rows, ${norm.colIdx.length} entries of Â (self loops included), width ${dim}, median ms per call`,
  );
  console.log(
    `| case | wholememory (${dev.gpu ? dev.name : 'CPU'}) ms | same from tfjs ops ms | ops / ours |${refs.map((r) => ` ${r.name} ms | theirs / ours |`).join('')}`,
  );
  console.log(`| --- | --- | --- | --- |${refs.map(() => ' --- | --- |').join('')}`);
  cases.forEach((c, i) =>
    console.log(
      `| ${c} | ${ours[i].toFixed(3)} | ${composed ? `${composed[i].toFixed(3)} | ${(composed[i] / ours[i]).toFixed(2)}x` : 'n/a | '} |` +
        refs.map((r) => (r.ms[i] === undefined ? ' n/a | |' : ` ${r.ms[i].toFixed(3)} | ${(r.ms[i] / ours[i]).toFixed(2)}x |`)).join(''),
    ),
  );
  writeBenchResult('gcn', {scale, vertices: n, entries: norm.colIdx.length, dim, device: dev, cases, ours, composed, refs});
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

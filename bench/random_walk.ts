// `npm run bench:walks` — random walks and node2vec training on a seeded
// R-MAT graph. Walks: wm.graph.randomWalks / DeviceCsr.randomWalks (one
// native call) against, on the CPU, the same walks as a plain TypeScript loop
// and, on a GPU, PyTorch in the same run (bench/torch/random_walk.py: the
// walks as vectorised tensor ops, a step per op sequence, node2vec by
// rejection with searchsorted edge tests; torch_cluster's kernel too when it
// is installed). Training: one node2vec epoch (trainNode2Vec) against the
// same loop in PyTorch (nn.Embedding(sparse=True) + SparseAdam, the same
// walks per step, window, negatives and width), pairs per second.

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {CsrGraph} from '../src/graph/csr';
import {DeviceCsr} from '../src/graph/device_csr';
import {trainNode2Vec} from '../src/train/node2vec';
import {seededRng} from '../src/util/random';
import {envPositiveInt, timeMs, torchJsonWithFiles, writeBenchResult} from './bench_util';

// The walk as a TypeScript user would write it without the native op (the CPU's reference).
function walksInScript(g: CsrGraph, starts: Int32Array, length: number, p: number, q: number, seed: number): Int32Array {
  const r = seededRng(seed),
    out = new Int32Array(starts.length * length);
  const isEdge = (u: number, v: number) => {
    let lo = g.rowPtr[u],
      hi = g.rowPtr[u + 1];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (g.colIdx[mid] < v) lo = mid + 1;
      else hi = mid;
    }
    return lo < g.rowPtr[u + 1] && g.colIdx[lo] === v;
  };
  const max = Math.max(1 / p, 1, 1 / q);
  for (let w = 0; w < starts.length; ++w) {
    let prev = -1,
      cur = starts[w];
    out[w * length] = cur;
    for (let s = 1; s < length; ++s) {
      const b = g.rowPtr[cur],
        deg = g.rowPtr[cur + 1] - b;
      let next = cur;
      if (deg > 0) {
        for (;;) {
          next = g.colIdx[b + Math.floor(r() * deg)];
          if (prev < 0 || (p === 1 && q === 1)) break;
          const weight = next === prev ? 1 / p : isEdge(prev, next) ? 1 : 1 / q;
          if (r() * max < weight) break;
        }
      }
      out[w * length + s] = next;
      prev = cur;
      cur = next;
    }
  }
  return out;
}

interface TorchResult {
  torch: string;
  device: string;
  walkMs: {[name: string]: number[]};
  trainSeconds: number;
  trainPairs: number;
  trainLoss: number;
}

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const dev = wm.deviceInfo();
  const scale = envPositiveInt('BENCH_WALK_SCALE', dev.gpu ? 20 : 16),
    length = envPositiveInt('BENCH_WALK_LENGTH', 80);
  const trainScale = envPositiveInt('BENCH_WALK_TRAIN_SCALE', dev.gpu ? 18 : 13);
  const cases = [
    {name: 'DeepWalk (uniform)', p: 1, q: 1},
    {name: 'node2vec p 0.5 q 2', p: 0.5, q: 2},
    {name: 'node2vec p 2 q 0.5', p: 2, q: 0.5},
  ];
  const built = Date.now();
  const g = CsrGraph.fromEdges(wm.graph.rmat({scale, edgeFactor: 16, seed: 3}), {symmetric: true});
  console.log(
    `R-MAT scale ${scale}: ${g.numVertices} vertices, ${g.numEdges} directed edges (built in ${((Date.now() - built) / 1000).toFixed(1)} s)`,
  );
  const starts = Int32Array.from({length: g.numVertices}, (_, i) => i);
  const ours: number[] = [],
    script: number[] = [];
  const device = dev.gpu ? new DeviceCsr(g) : undefined;
  const startsT = tf.tensor1d(starts, 'int32');
  for (const c of cases) {
    const opts = {p: c.p, q: c.q, seed: 1};
    ours.push(
      device
        ? timeMs(() => device.randomWalks(startsT, length, opts).dispose(), 10, 2)
        : timeMs(() => wm.graph.randomWalks(g, starts, length, opts), 3, 1),
    );
    if (!dev.gpu) script.push(timeMs(() => walksInScript(g, starts, length, c.p, c.q, 1), 3, 1));
  }
  startsT.dispose();
  device?.dispose();

  // One node2vec epoch: one walk of 20 from every vertex, window 5, one negative, width 128, 1,024 walks a step.
  const tg = CsrGraph.fromEdges(wm.graph.rmat({scale: trainScale, edgeFactor: 16, seed: 4}), {symmetric: true});
  const train = {dim: 128, walkLength: 20, walksPerVertex: 1, window: 5, negatives: 1, batchSize: 1024, learningRate: 0.01, p: 1, q: 1};
  await trainNode2Vec(tg, {...train, epochs: 1, seed: 1}).then((r) => r.embedding.dispose()); // warm-up: kernels, pools
  const run = await trainNode2Vec(tg, {...train, epochs: 1, seed: 2});
  run.embedding.dispose();
  const epoch = run.epochs[0];

  let other: TorchResult | undefined;
  if (dev.gpu) {
    const files = {
      'walk_row_ptr.i32': g.rowPtr,
      'walk_col_idx.i32': g.colIdx,
      'train_row_ptr.i32': tg.rowPtr,
      'train_col_idx.i32': tg.colIdx,
    };
    other = torchJsonWithFiles<TorchResult>('random_walk.py', files, [String(length), JSON.stringify(cases), JSON.stringify(train)]);
  }
  const steps = g.numVertices * (length - 1);
  const where = dev.gpu ? dev.name : 'CPU';
  console.log(`\nwalks of ${length} from each of ${g.numVertices} vertices (R-MAT scale ${scale}), median ms per call`);
  const theirs = other ? Object.keys(other.walkMs) : [];
  console.log(
    `| walks | wholememory (${where}) ms | steps/s |${dev.gpu ? theirs.map((t) => ` ${t} ms | ${t} / ours |`).join('') : ' TypeScript loop ms | loop / ours |'}`,
  );
  console.log(`| --- | --- | --- |${dev.gpu ? theirs.map(() => ' --- | --- |').join('') : ' --- | --- |'}`);
  cases.forEach((c, i) =>
    console.log(
      `| ${c.name} | ${ours[i].toFixed(2)} | ${(steps / (ours[i] / 1e3) / 1e6).toFixed(1)} M |` +
        (dev.gpu
          ? theirs
              .map(
                (t) =>
                  ` ${other!.walkMs[t][i]?.toFixed(2) ?? 'n/a'} | ${other!.walkMs[t][i] ? (other!.walkMs[t][i] / ours[i]).toFixed(1) + 'x' : ''} |`,
              )
              .join('')
          : ` ${script[i].toFixed(2)} | ${(script[i] / ours[i]).toFixed(1)}x |`),
    ),
  );
  console.log(
    `\nnode2vec epoch on R-MAT scale ${trainScale} (${tg.numVertices} vertices): width ${train.dim}, walks of ${train.walkLength}, window ${train.window}, ` +
      `${train.negatives} negative, ${train.batchSize} walks a step`,
  );
  console.log(`| | seconds | pairs/s | final loss |\n| --- | --- | --- | --- |`);
  console.log(`| wholememory (${where}) | ${epoch.seconds.toFixed(2)} | ${Math.round(epoch.pairsPerSecond)} | ${epoch.loss.toFixed(4)} |`);
  if (other) {
    console.log(
      `| torch ${other.torch} (${other.device}) | ${other.trainSeconds.toFixed(2)} | ${Math.round(other.trainPairs / other.trainSeconds)} | ${other.trainLoss.toFixed(4)} |`,
    );
    console.log(`torch / ours (epoch time): ${(other.trainSeconds / epoch.seconds).toFixed(2)}x`);
  }
  writeBenchResult('random_walk', {scale, length, trainScale, train, device: dev, cases, ours, script, epoch, other});
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

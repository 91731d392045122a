// Where a node2vec training step's time goes on the GPU (bench:walks' epoch):
// the walks, the skip-gram pairs, the negatives, the forward and backward
// pass, the two tables' sparse Adam steps, each timed alone (median ms,
// synchronised), then the top kernels of one whole step (tf.profile).
// Run: node dist/bench/probes/node2vec_step.js [scale]
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {CsrGraph} from '../../src/graph/csr';
import {DeviceCsr} from '../../src/graph/device_csr';
import {Embedding} from '../../src/nn/embedding';
import {adam} from '../../src/nn/sparse_optimizer';
import {contextIds, skipGramLoss} from '../../src/train/node2vec';
import {timeMs} from '../bench_util';

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const scale = Number(process.argv[2] ?? 18);
  const g = CsrGraph.fromEdges(wm.graph.rmat({scale, edgeFactor: 16, seed: 4}), {symmetric: true});
  const n = g.numVertices,
    dim = 128;
  const dev = new DeviceCsr(g);
  const table = (seed: number) => new Embedding({rows: n, dim, optimizer: adam({lr: 0.01}), init: {type: 'normal', scale: 0.1, seed}});
  const center = table(1),
    context = table(2);
  const opt = tf.train.sgd(0);
  const starts = tf.tensor1d(
    Int32Array.from({length: 1024}, (_, i) => (i * 97) % n),
    'int32',
  );
  let seed = 0;
  const walks = dev.randomWalks(starts, 20, {seed: 1});
  const {center: c, context: x} = wm.graph.walkPairs(walks, 5);
  const negs = wm.graph.randomVertices(c.size, n, {seed: 2});
  const ctx = contextIds(x, negs);
  const lossOf = () => skipGramLoss(center, context, c, ctx, 1);
  const step = () => {
    const w = dev.randomWalks(starts, 20, {seed: ++seed});
    const p = wm.graph.walkPairs(w, 5);
    const ng = wm.graph.randomVertices(p.center.size, n, {seed});
    const pc = contextIds(p.context, ng);
    tf.dispose(opt.minimize(() => skipGramLoss(center, context, p.center, pc, 1), true, [center.anchor, context.anchor])!);
    center.step();
    context.step();
    tf.dispose([w, p.center, p.context, ng, pc]);
  };
  const parts: [string, () => void][] = [
    ['walks 1024 x 20', () => dev.randomWalks(starts, 20, {seed: ++seed}).dispose()],
    [
      'walkPairs (window 5)',
      () => {
        const p = wm.graph.walkPairs(walks, 5);
        tf.dispose([p.center, p.context]);
      },
    ],
    ['randomVertices', () => wm.graph.randomVertices(c.size, n, {seed: ++seed}).dispose()],
    [
      'forward only',
      () =>
        tf.tidy(() => {
          lossOf();
        }),
    ],
    [
      'forward + backward + both table steps',
      () => {
        tf.dispose(opt.minimize(lossOf, true, [center.anchor, context.anchor])!);
        center.step();
        context.step();
      },
    ],
    ['whole step', step],
  ];
  console.log(`R-MAT scale ${scale}: ${n} vertices; ${c.size} pairs a step, width ${dim}`);
  for (const [name, f] of parts) console.log(`${name.padEnd(40)} ${timeMs(f, 15, 3).toFixed(3)} ms`);
  const prof = await tf.profile(() => step());
  const byKernel = new Map<string, number>();
  for (const k of prof.kernels) byKernel.set(k.name, (byKernel.get(k.name) ?? 0) + Number(k.kernelTimeMs));
  console.log(`one step: ${prof.kernels.length} kernels`);
  [...byKernel]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .forEach(([k, ms]) => console.log(`  ${k.padEnd(28)} ${ms.toFixed(3)} ms`));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

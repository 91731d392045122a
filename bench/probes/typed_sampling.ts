// Where a typed batch's time goes on the host (no GPU needed): the ogbn-mag-shaped graph of bench:hetero
// (BENCH_HETERO_SCALE, default 1), batches of 1,024 training papers, fan-out [25, 20] per relation; the time of
// sampleTypedSubgraph alone, of staging its blocks for the GPU product (both directions of a mean, the
// transposes R-GCN's gradient reads, and their long rows' chunk lists: what bench:hetero stages before its
// clock), and of a TypedNeighborLoader batch (sampling, input rows, labels), per batch.
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {sampleTypedSubgraph} from '../../src/graph/typed_sampling';
import {TypedNeighborLoader} from '../../src/nn/typed_neighbor_loader';
import {magShaped} from '../mag_shaped';

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const scale = Number(process.env.BENCH_HETERO_SCALE ?? 1);
  const batches = Number(process.env.BENCH_HETERO_BATCHES ?? 10);
  let t = Date.now();
  const g = magShaped(scale);
  console.log(`ogbn-mag-shaped x ${scale}: built in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const train = g.labels!.split!.train;
  let sampled = 0,
    transposeMs = 0;
  t = Date.now();
  for (let k = 0; k < batches; ++k) {
    const sub = sampleTypedSubgraph(g, 'paper', train.subarray(k * 1024, (k + 1) * 1024), [25, 20], {seed: k});
    sampled += Object.values(sub.layers[0].src).reduce((a, ids) => a + ids.length, 0);
    const t1 = Date.now();
    for (const layer of sub.layers)
      for (const b of Object.values(layer.blocks)) for (const backward of [false, true]) b.productSplits(b.product('mean', backward));
    transposeMs += Date.now() - t1;
    sub.dispose();
  }
  const sampleMs = (Date.now() - t - transposeMs) / batches;
  const loader = new TypedNeighborLoader(g, {fanouts: [25, 20], batchSize: 1024, shuffle: true, seed: 1});
  let k = 0;
  t = Date.now();
  for await (const b of loader) {
    b.dispose();
    if (++k >= batches) break;
  }
  const loaderMs = (Date.now() - t) / batches;
  loader.dispose();
  console.log(
    `sampleTypedSubgraph ${sampleMs.toFixed(1)} ms a batch (${Math.round(sampled / batches)} input rows); ` +
      `staging its blocks ${(transposeMs / batches).toFixed(1)} ms; loader batch ${loaderMs.toFixed(1)} ms`,
  );
  g.free();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

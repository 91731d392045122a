// Where a typed batch's time goes, sampled on the host and (where there is a GPU) on the GPU: the
// ogbn-mag-shaped graph of bench:hetero (BENCH_HETERO_SCALE, default 1), batches of 1,024 training papers,
// fan-out [25, 20] per relation; the time of sampleTypedSubgraph alone, of staging its blocks for the GPU
// product (a mean's forward product and, for a block not differentiated by scattering, the transpose its
// gradient reads, with their long rows' chunk lists: what bench:hetero stages before its clock), and of a
// TypedNeighborLoader batch (sampling, input rows, labels), per batch.
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {sampleTypedSubgraph} from '../../src/graph/typed_sampling';
import {TypedNeighborLoader} from '../../src/nn/typed_neighbor_loader';
import {magShaped} from '../mag_shaped';
import {stageBlocks} from '../typed_step';
import {typedGraphFor} from '../../src/graph/device_hetero_graph';

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const scale = Number(process.env.BENCH_HETERO_SCALE ?? 1);
  const batches = Number(process.env.BENCH_HETERO_BATCHES ?? 10);
  let t = Date.now();
  const g = magShaped(scale);
  console.log(`ogbn-mag-shaped x ${scale}: built in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const train = g.labels!.split!.train;
  // On the host, then on the GPU where there is one (the same batches).
  // BENCH_HETERO_SAMPLE=host or device: that place alone.
  const only = process.env.BENCH_HETERO_SAMPLE;
  const places = (wm.deviceInfo().gpu ? ['host', 'device'] : ['host']).filter((p) => !only || p === only) as ('host' | 'device')[];
  for (const where of places) {
    const sampled = typedGraphFor(g, where);
    let rows = 0,
      stageMs = 0;
    t = Date.now();
    for (let k = 0; k < batches; ++k) {
      const sub = sampleTypedSubgraph(sampled.graph, 'paper', train.subarray(k * 1024, (k + 1) * 1024), [25, 20], {seed: k});
      rows += Object.values(sub.layers[0].src).reduce((a, ids) => a + ids.length, 0);
      const t1 = Date.now();
      stageBlocks(sub);
      wm.synchronize();
      stageMs += Date.now() - t1;
      sub.dispose();
    }
    const sampleMs = (Date.now() - t - stageMs) / batches;
    const loader = new TypedNeighborLoader(sampled.graph, {fanouts: [25, 20], batchSize: 1024, shuffle: true, seed: 1});
    let k = 0;
    t = Date.now();
    for await (const b of loader) {
      b.dispose();
      if (++k >= batches) break;
    }
    const loaderMs = (Date.now() - t) / batches;
    loader.dispose();
    if (where === 'device') {
      // The sampler's own ops against its wall time: what the GPU did and what the host waited for.
      const prof = wm.profileOps(() => {
        for (let k = 0; k < batches; ++k)
          sampleTypedSubgraph(sampled.graph, 'paper', train.subarray(k * 1024, (k + 1) * 1024), [25, 20], {seed: k}).dispose();
      });
      const gpuMs = prof.ops.reduce((a, o) => a + o.ms, 0);
      console.log(`profiled: ${(prof.wallMs / batches).toFixed(2)} ms a batch wall, native ops ${(gpuMs / batches).toFixed(2)} ms:`);
      for (const o of prof.ops.slice(0, 10))
        console.log(`  ${o.name.padEnd(28)} ${o.where} ${(o.calls / batches).toFixed(1)} calls ${(o.ms / batches).toFixed(3)} ms a batch`);
    }
    sampled.release();
    console.log(
      `sampled on the ${where}: sampleTypedSubgraph ${sampleMs.toFixed(1)} ms a batch (${Math.round(rows / batches)} input rows); ` +
        `staging its blocks ${(stageMs / batches).toFixed(1)} ms; loader batch ${loaderMs.toFixed(1)} ms`,
    );
  }
  g.free();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

// Where an epoch of bench:graphs' GIN training goes (wm.profileOps): native op time and calls a step against wall
// time, and the batching alone (the loader's epoch without training). BENCH_GRAPHS_BATCH (default 128) graphs a
// batch, BENCH_GRAPHS_COUNT graphs (default 20,000 on a GPU, 2,000 on the CPU). Prints the twelve costliest ops.
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {GraphLoader} from '../../src/graph/graph_loader';
import {envPositiveInt} from '../bench_util';
import {ginTrainer, molecules} from '../molecules';

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const gpu = wm.deviceInfo().gpu;
  const graphs = molecules(envPositiveInt('BENCH_GRAPHS_COUNT', gpu ? 20000 : 2000), 1);
  const batchSize = envPositiveInt('BENCH_GRAPHS_BATCH', 128);
  const trainer = ginTrainer(graphs, batchSize);
  const epoch = async (): Promise<void> => {
    await trainer.epoch();
    wm.synchronize();
  };
  const loader = new GraphLoader(graphs, {batchSize, shuffle: true, seed: 1});
  await epoch(); // warm-up
  let t = Date.now();
  await epoch();
  const wall = Date.now() - t;
  t = Date.now();
  for await (const b of loader) b.dispose();
  const batching = Date.now() - t;
  const p = await wm.profileOps(epoch);
  const steps = loader.length;
  const calls = p.ops.reduce((a, o) => a + o.calls, 0);
  console.log(
    `batch ${batchSize}, ${steps} steps: unprofiled epoch ${wall} ms (${(wall / steps).toFixed(2)} ms a step), batching alone ${batching} ms; ` +
      `profiled ${p.wallMs.toFixed(0)} ms, native ops ${p.ops.reduce((a, o) => a + o.ms, 0).toFixed(0)} ms in ${calls} calls (${(calls / steps).toFixed(1)} a step)`,
  );
  for (const o of [...p.ops].sort((a, b) => b.ms - a.ms).slice(0, 12))
    console.log(`  ${o.name.padEnd(28)} ${o.where} ${String(o.calls).padStart(6)} ${o.ms.toFixed(1).padStart(8)} ms`);
  loader.dispose();
  trainer.dispose();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

// `npm run bench:loader`: how much of the sampling NeighborLoader hides behind the training step. A
// step here is a wait of a fixed time (what a loop does while the GPU trains: it awaits the batch's
// result), as long as one batch's sampling; with the next batch sampled during that wait, an epoch takes
// about max(sampling, step) per batch instead of their sum. Three epochs over the same batches: sampling
// alone (the loop asks at once), the waits alone, and both. R-MAT graph (BENCH_SCALE, default 17; edge
// factor 16, symmetric), 16 float32 features, fan-outs 15/10, batches of 1,024 seeds (BENCH_SEEDS, default 32,768).
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {NeighborLoader} from '../src/nn/neighbor_loader';
import {envPositiveInt, writeBenchResult} from './bench_util';

const SCALE = envPositiveInt('BENCH_SCALE', 17);
const SEEDS = envPositiveInt('BENCH_SEEDS', 32_768);
const BATCH = 1024;
const FANOUTS = [15, 10];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function epochSeconds(loader: NeighborLoader, e: number, stepMs: number): Promise<number> {
  const t = performance.now();
  for await (const b of loader.epoch(e)) {
    if (stepMs > 0) await sleep(stepMs);
    b.dispose();
  }
  return (performance.now() - t) / 1000;
}

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const graph = wm.graph.NativeCsr.rmat({scale: SCALE, edgeFactor: 16, seed: 5});
  const n = graph.numVertices;
  const features = wm.nn.embedding({rows: n, dim: 16, memory: 'host', init: {type: 'uniform', seed: 2}});
  const seeds = Int32Array.from({length: Math.min(SEEDS, n)}, (_, i) => Math.floor((i * n) / Math.min(SEEDS, n)));
  const loader = new NeighborLoader(graph, seeds, {fanouts: FANOUTS, batchSize: BATCH, features, seed: 1});
  await epochSeconds(loader, 0, 0); // warm-up
  // The same epoch (the same batches) each time.
  const sampling = await epochSeconds(loader, 1, 0);
  const stepMs = (sampling * 1000) / loader.length;
  const t = performance.now();
  for (let b = 0; b < loader.length; ++b) await sleep(stepMs);
  const steps = (performance.now() - t) / 1000;
  const both = await epochSeconds(loader, 1, stepMs);
  const hidden = (sampling + steps - both) / sampling;
  console.log(
    `R-MAT scale ${SCALE} (${n} vertices, ${graph.numEdges} entries), ${loader.length} batches of ${BATCH}, fan-outs ${FANOUTS.join('/')}, ` +
      `backend ${wm.deviceInfo().gpu ? 'GPU' : 'CPU'}\n` +
      `| epoch | s |\n| --- | --- |\n| sampling alone | ${sampling.toFixed(3)} |\n| steps alone (${stepMs.toFixed(1)} ms each) | ${steps.toFixed(3)} |\n` +
      `| both, the next batch sampled during each step | ${both.toFixed(3)} |\n` +
      `share of the sampling hidden behind the steps: ${(100 * hidden).toFixed(0)} %`,
  );
  writeBenchResult('loader_overlap', {
    scale: SCALE,
    batches: loader.length,
    sampling,
    steps,
    stepMs,
    both,
    hidden,
    gpu: wm.deviceInfo().gpu,
  });
  features.dispose();
  graph.free();
}

main().catch((e) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});

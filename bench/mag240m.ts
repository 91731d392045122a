// `npm run bench:mag240m` — R-GAT on a MAG240M-shaped graph (wm.graph.mag240mShaped: its counts at
// BENCH_MAG240M_SCALE, default 1 on a GPU, 0.001 on a CPU), WholeGraph's MAG240M setting: fan-out [25, 15],
// hidden 1024 as 4 heads of 256, batch BENCH_MAG240M_BATCH (default 1024), paper features of BENCH_MAG240M_DIM
// (default 256) stored as float16 in BENCH_MAG240M_MEMORY (default 'host': pinned host memory) with a GPU cache of
// BENCH_MAG240M_CACHE of the most linked rows (default 0.1). Trains BENCH_MAG240M_BATCHES batches (default a whole
// epoch of the training papers; passes repeat where an epoch is shorter) after two warm-up steps, as a training loop
// runs (the next batch sampled while one trains) and prints the build time, the time per step and the epoch's time
// (measured, or per step times the epoch's steps when fewer batches ran). WholeGraph's figure: 11.2 s an epoch on 8
// A100s (768 features, float16).
// Under tfjs-wm-run (`node dist/bin/tfjs-wm-run.js -n 2 dist/bench/mag240m.js`): data parallel, each rank a batch of
// papers of every global batch (the loader's share) and the gradients averaged every step (wm.dataParallel), the paper
// features shared by the ranks (BENCH_MAG240M_MEMORY default 'chunked' over the GPUs, 'continuous' without one; no
// cache); an epoch is every rank's share once, rank 0 reports.
// BENCH_MATMUL_PRECISION (default highest; a comma list of highest, high, medium: wm.setMatmulPrecision): the timed steps and
// their profile run once for each, one row each.
// BENCH_PROFILE_STEPS (default 5; 0: none): that many more steps under wm.profileOps after the timed ones (not part
// of them), sampling and feature reads included; every rank prints its wall time and costliest ops per step.
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {typedGraphFor, TypedSampling} from '../src/graph/device_hetero_graph';
import {edgeTypeKey} from '../src/graph/hetero_graph';
import {mag240mShaped} from '../src/graph/mag240m_shaped';
import {RgatConv} from '../src/nn/hetero/rgat_conv';
import {EmbeddingMemory} from '../src/nn/embedding';
import {FeatureTables, TypedBatch, TypedNeighborLoader} from '../src/nn/typed_neighbor_loader';
import {adam} from '../src/optimizers/fused_adam';
import {dataParallel} from '../src/distributed/data_parallel';
import {readLaunchEnv} from '../src/memory/launch_env';
import {EpochProgress} from '../src/train/progress';
import {batchesOf, costliestOps, envMatmulPrecisions, envPositiveInt, profileSteps, StepProfile, writeBenchResult} from './bench_util';
import {typedStep} from './typed_step';

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const dev = wm.deviceInfo();
  const scale = Number(process.env.BENCH_MAG240M_SCALE ?? (dev.gpu ? 1 : 0.001));
  const dim = envPositiveInt('BENCH_MAG240M_DIM', 256);
  const comm = readLaunchEnv() ? wm.communicatorFromEnv() : undefined;
  const ranks = comm?.size ?? 1,
    rank = comm?.rank ?? 0;
  const shared = ranks > 1 ? (dev.gpu ? 'chunked' : 'continuous') : 'host';
  const memory = (process.env.BENCH_MAG240M_MEMORY ?? shared) as EmbeddingMemory;
  const cache = Number(process.env.BENCH_MAG240M_CACHE ?? (dev.gpu && ranks === 1 ? 0.1 : 0));
  const say = (line: string): void => {
    if (rank === 0) console.log(line);
  };
  const t0 = Date.now();
  const g = mag240mShaped({scale, dim, seed: 1});
  const buildSeconds = (Date.now() - t0) / 1000;
  const relations = g.edgeTypes.map(edgeTypeKey);
  const edges = [...g.relations.values()].reduce((a, r) => a + r.numEdges, 0);
  const train = g.labels!.split!.train.length;
  say(
    `MAG240M-shaped x ${scale}: ${g.nodeTypes.map((t) => `${t} ${g.numNodes[t]}`).join(', ')}; ${edges} edges in ${relations.length} relations; ` +
      `${train} training papers${ranks > 1 ? ` over ${ranks} ranks` : ''}; ${dim} float16 features a paper in ${memory} memory${cache > 0 ? `, ${cache} of them cached on the GPU` : ''} (built in ${buildSeconds.toFixed(1)} s)`,
  );
  const classes = g.labels!.numClasses;
  const layers = [
    new RgatConv({inDim: dim, units: 256, heads: 4, relations, seed: 1}),
    new RgatConv({inDim: 1024, units: classes, heads: 1, relations, seed: 2}),
  ];
  const vars = layers.flatMap((l) => l.variables);
  const opt = adam(0.001);
  // Data parallel under a launcher: the replicas start from rank 0's weights and average their gradients each step.
  const dp = comm ? dataParallel(opt, comm) : undefined;
  dp?.broadcastVariables(vars);
  const sampled = typedGraphFor(g, (process.env.BENCH_MAG240M_SAMPLE ?? 'auto') as TypedSampling);
  // The feature table made (and its GPU cache filled) before the steps, timed apart.
  const t1 = Date.now();
  const tables = new FeatureTables(g, {
    memory,
    dtype: 'float16',
    ...(cache > 0 ? {cache} : {}),
    communicator: comm,
    onProgress: say,
  }).prepare();
  const featureSeconds = (Date.now() - t1) / 1000;
  say(`paper features in ${memory} memory in ${featureSeconds.toFixed(1)} s`);
  // Every rank walks the same order of the training papers, `batch` of each batch its own.
  const batch = envPositiveInt('BENCH_MAG240M_BATCH', 1024);
  const loader = new TypedNeighborLoader(sampled.graph, {
    fanouts: [25, 15],
    batchSize: batch * ranks,
    shuffle: true,
    seed: 1,
    features: tables,
    share: {rank, size: ranks},
  });
  const epochSteps = loader.length;
  // Timed steps after two warm-up ones, over as many passes of the loader as they take.
  const batches = envPositiveInt('BENCH_MAG240M_BATCHES', epochSteps);
  const step = typedStep(layers, dp ?? opt, vars, 'paper', (x) => tf.elu(x));
  // What each precision's run measured; the run's settings are written once beside them.
  type Row = {matmulPrecision: wm.MatmulPrecision; steps: number; stepMs: number; epochSeconds: number; seedsPerSecond: number};
  const rows: (Row & {profile?: Pick<StepProfile, 'msPerStep' | 'ops'>})[] = [];
  try {
    for (const precision of envMatmulPrecisions()) {
      wm.setMatmulPrecision(precision);
      const r = await timedSteps(loader, step, batches, ranks, rank === 0 ? `R-GAT steps (${precision})` : undefined);
      const stepMs = (1000 * r.seconds) / r.steps;
      rows.push({
        matmulPrecision: precision,
        steps: r.steps + 2, // the two warm-up steps included
        stepMs,
        epochSeconds: (stepMs * epochSteps) / 1000,
        seedsPerSecond: (r.seeds * ranks) / r.seconds, // every rank's seeds (each rank counts its own; the shares are equal)
        profile: await profiledSteps(loader, step, rank, ranks),
      });
    }
  } finally {
    loader.dispose();
    tables.dispose();
    sampled.release();
    opt.dispose();
    for (const l of layers) l.dispose();
    for (const r of g.relations.values()) r.graph.free();
  }
  comm?.barrier();
  comm?.destroy();
  if (rank > 0) return;
  writeBenchResult('mag240m', {
    device: dev,
    scale,
    dim,
    batch,
    memory,
    cache,
    buildSeconds,
    featureSeconds,
    epochSteps,
    ranks,
    ...rows[0],
    rows,
  });
  console.log(
    `\n${ranks > 1 ? `${ranks} ranks: ` : ''}scale  dim  memory  cache  matmul   build s  features s  ms/step  epoch steps  epoch s  seeds/s`,
  );
  for (const row of rows)
    console.log(
      `${String(scale).padEnd(6)} ${String(dim).padEnd(4)} ${memory.padEnd(7)} ${String(cache).padEnd(6)} ${row.matmulPrecision.padEnd(8)} ${buildSeconds.toFixed(1).padStart(7)} ${featureSeconds.toFixed(1).padStart(10)} ` +
        `${row.stepMs.toFixed(1).padStart(8)} ${String(epochSteps).padStart(12)} ${row.epochSeconds.toFixed(1).padStart(8)} ${row.seedsPerSecond.toFixed(0).padStart(8)}`,
    );
}

// `batches` training steps after two warm-up ones, over as many passes of the loader as they take, as a training loop
// runs them (the next batch sampled while one trains); the clock stops after the last step.
async function timedSteps(
  loader: TypedNeighborLoader,
  step: (b: TypedBatch) => void,
  batches: number,
  ranks: number,
  label: string | undefined,
): Promise<{steps: number; seconds: number; seeds: number}> {
  const progress = label ? new EpochProgress(batches + 2, label, {everySeconds: 10}) : undefined;
  let n = 0,
    started = 0,
    seeds = 0;
  try {
    while (n < batches + 2) {
      for await (const b of loader) {
        step(b);
        if (n >= 2) seeds += b.y!.size;
        b.dispose();
        if (++n === 2) {
          wm.synchronize();
          started = Date.now(); // after two warm-up steps
        }
        // The host queues steps ahead of the GPU: every 20th step waits for it, so the rate shown is the GPU's.
        if (n > 2 && n % 20 === 0) wm.synchronize();
        const rate = n > 2 ? `${((seeds * ranks) / ((Date.now() - started) / 1000)).toFixed(0)} seeds/s` : 'warming up';
        progress?.tick(`step ${n}/${batches + 2}`, rate);
        if (n >= batches + 2) break;
      }
    }
    wm.synchronize();
  } finally {
    progress?.stop();
  }
  return {steps: n - 2, seconds: (Date.now() - started) / 1000, seeds};
}

// Where a step's time goes: BENCH_PROFILE_STEPS more steps under wm.profileOps, each op's milliseconds per step,
// printed by every rank (a rank's waits for the others show in its collectives).
async function profiledSteps(
  loader: TypedNeighborLoader,
  step: (b: TypedBatch) => void,
  rank: number,
  ranks: number,
): Promise<Pick<StepProfile, 'msPerStep' | 'ops'> | undefined> {
  const steps = Number(process.env.BENCH_PROFILE_STEPS ?? 5);
  if (!(Number.isInteger(steps) && steps >= 0))
    throw new RangeError(`BENCH_PROFILE_STEPS must be a whole number, got '${process.env.BENCH_PROFILE_STEPS}'`);
  if (steps === 0) return undefined;
  const next = batchesOf(loader);
  const p = await profileSteps(steps, async () => {
    for (let i = 0; i < steps; ++i) {
      const b = await next();
      step(b);
      b.dispose();
    }
    wm.synchronize();
  });
  console.log(
    `${ranks > 1 ? `rank ${rank} ` : ''}profiled (${steps} step${steps === 1 ? '' : 's'}, matmul ${wm.getMatmulPrecision()}): ${p.msPerStep.toFixed(1)} ms a step; per step: ${costliestOps(p)}`,
  );
  return {msPerStep: p.msPerStep, ops: p.ops};
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

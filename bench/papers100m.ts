// `npm run bench:papers100m`: sampled GraphSAGE training on a generated graph
// shaped like ogbn-papers100M (WholeGraph's published setting): 111M vertices,
// about 3.2 billion CSR entries (R-MAT, made undirected), 128 float16 features
// per vertex, 172 classes, 3 layers, fan-out 30/30/30, hidden 256, batch 1024.
// The graph is generated natively (NativeCsr.rmat: no edge list, int64
// offsets) and copied to the GPU; the features are generated where they live
// (a float16 table initialised by the native kernels, never a JavaScript array).
// Runs: features in GPU memory; in pinned host memory with a GPU cache of a
// quarter of their rows (the highest-degree vertices, or the rows a pre-sampling
// pass of 20 batches read most); in pinned host memory with no cache.
// An epoch is ogbn-papers100M's 1,207,179 training vertices; its time is
// estimated from the measured steps (the steps are timed, not a whole epoch).
// Layer-wise prediction of every vertex (full neighbourhoods, all three layers, float16 outputs where the
// 'auto' placement puts them, the last layer's logits turned into classes a batch at a time; each batch's
// block built on the GPU from the graph there) runs until done or for a measured time; each layer's rate is
// reported.
// Environment: BENCH_SCALE (default 27), BENCH_VERTICES (default 111,059,956),
// BENCH_EDGE_FACTOR (default 18: ~3.2B entries at the defaults), BENCH_FEATURES (128),
// BENCH_BATCH (1024), BENCH_STEPS (timed steps per run, default 100), BENCH_WARMUP_STEPS (untimed steps before
// them, ours and PyTorch's alike, default 20), BENCH_CACHE (share of rows cached, 0.25),
// BENCH_MATMUL_PRECISION (default highest; high: TF32, medium: bfloat16 tensor cores, wm.setMatmulPrecision; PyTorch runs the
// same through torch.set_float32_matmul_precision),
// BENCH_PROFILE_STEPS (default 5: steps after the timed ones under wm.profileOps, each op's GPU time per step; 0: none),
// BENCH_LAYERWISE_SECONDS (default 600: how long layer-wise prediction may run before it stops; 0: skipped),
// BENCH_REPLACE (default true; false: our loader draws up to fan-out distinct neighbours a vertex, PyG's default,
// each layer a CSR block; the PyTorch side still draws with replacement, it has no sampler here without pyg-lib),
// BENCH_RUNS (default "device,degree,sampled,host"; "device-x": GPU memory with the loader gathering each batch's
// rows as PyG's does, beside the previous batch's training, where "device" has the model read its first layer from
// the table), BENCH_TORCH (PyTorch's layers: "pyg,torch" (default), or "" for none),
// BENCH_GRAPH (rmat (default): R-MAT, skewed, its hubs' neighbourhoods shared by many seeds; uniform: a contextual
// SBM of the same vertices and mean degree BENCH_DEGREE (default 29, ogbn-papers100M's), near-uniform degrees,
// no locality: each step reads several times the distinct rows R-MAT's does; powerlaw: wm.graph.powerLawGraph of
// the same vertices and mean degree, heavy-tailed degrees of exponent 1 + BENCH_SKEW / (BENCH_SKEW - 1), default
// skew 2, and no communities),
// BENCH_GRAPH_DIR (where the graph file for PyTorch and the ranks goes, default the system's temporary folder;
// removed after), BENCH_RANKS (say "2,4": data-parallel runs on that many ranks, a GPU each, after the one-GPU
// runs: every rank maps the saved graph and copies it to its GPU, the features are one float16 table shared by
// the ranks' GPUs (WholeMemory, read over NVLink), each rank trains on its own batches and the dense
// gradients are all-reduced; an epoch's training vertices are shared between the ranks), BENCH_RANK_FEATURES (the
// one-host runs' feature tables, each run in turn: a list of 'chunked' (default), 'device' (a whole copy in each GPU's
// memory, as each process of PyTorch's DDP holds its data) or 'continuous:SHARE', the table in continuous WholeMemory
// with each rank caching SHARE of the table's rows the other GPUs hold, highest degree first (with two ranks 0.5 holds
// every row of the other: each GPU then reads its own memory alone); '+x' after any: the
// loader gathers each batch's rows, beside the previous batch's training), BENCH_RANK_HOSTS (2, as
// root: each BENCH_RANKS run again with its ranks on two simulated hosts, test/two_hosts.ts: network namespaces
// joined by a veth pair, half the GPUs each, NCCL over the pair's sockets; the features in 'hierarchical' memory,
// chunked over each host's GPUs and split between the hosts, each rank caching BENCH_RANK_CACHE (default 0.25; a
// share of the whole table's rows, so with two hosts 0.5 holds every row of the other and no row crosses) of
// the table's rows from those other hosts hold, highest degree first; the graph file must then be where both hosts
// see it: not /dev/shm, which each host has of its own).
// PyTorch runs first, on the graph file this run saves (bench/torch/graphsage.py maps it with numpy), so the
// two never hold GPU memory at once; it holds what it can, or its error is reported.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {DeviceCsr} from '../src/graph/device_csr';
import {NativeCsr} from '../src/graph/native_csr';
import type {GraphSageClassifier} from '../src/nn/graphsage';
import {int32Of} from '../src/util/arrays';
import {seededRng} from '../src/util/random';
import {TwoHosts} from '../test/two_hosts';
import {
  batchesOf,
  costliestOps,
  envChoice,
  profileSteps,
  rankOrMain,
  withCpuProfile,
  setBenchMatmulPrecision,
  resultIn,
  resultOnRanks,
  StepProfile,
  torchJson,
  writeBenchResult,
} from './bench_util';
import {CLASSES, FANOUTS, HIDDEN, papersSage} from './papers100m_model';

const SCALE = Number(process.env.BENCH_SCALE ?? 27);
const VERTICES = Number(process.env.BENCH_VERTICES ?? 111_059_956);
const EDGE_FACTOR = Number(process.env.BENCH_EDGE_FACTOR ?? 18);
const FEATURES = Number(process.env.BENCH_FEATURES ?? 128);
const GRAPH = envChoice('BENCH_GRAPH', ['rmat', 'uniform', 'powerlaw'] as const, 'rmat');
const SKEW = Number(process.env.BENCH_SKEW ?? 2);
const DEGREE = Number(process.env.BENCH_DEGREE ?? 29);
const BATCH = Number(process.env.BENCH_BATCH ?? 1024);
const STEPS = Number(process.env.BENCH_STEPS ?? 100);
// Untimed steps before the timed ones: with 3, one H100's 60 timed steps took 6.8 ms each where the 5
// profiled steps right after them took 4.6 ms of wall time.
const WARMUP_STEPS = Number(process.env.BENCH_WARMUP_STEPS ?? 20);
type RunKind = 'device' | 'device-x' | 'degree' | 'sampled' | 'host';
const RUNS = (process.env.BENCH_RUNS ?? 'device,degree,sampled,host').split(',') as RunKind[];
const CACHE_SHARE = Number(process.env.BENCH_CACHE ?? 0.25);
const PRESAMPLE_BATCHES = 20;
const PROFILE_STEPS = Number(process.env.BENCH_PROFILE_STEPS ?? 5);
const LAYERWISE_SECONDS = Number(process.env.BENCH_LAYERWISE_SECONDS ?? 600);
const TORCH_LAYERS = (process.env.BENCH_TORCH ?? 'pyg,torch').split(',').filter((x) => x !== '');
const RANKS = (process.env.BENCH_RANKS ?? '')
  .split(',')
  .filter((x) => x !== '')
  .map(Number);
const RANK_HOSTS = envChoice('BENCH_RANK_HOSTS', ['1', '2'] as const, '1');
const RANK_CACHE = Number(process.env.BENCH_RANK_CACHE ?? 0.25);
if (!(RANK_CACHE >= 0 && RANK_CACHE <= 1))
  throw new RangeError(`BENCH_RANK_CACHE must be a share in [0, 1], got ${process.env.BENCH_RANK_CACHE}`);
// BENCH_RANK_FEATURES: each one-host data-parallel run's feature memory and cached share.
const RANK_FEATURES = (process.env.BENCH_RANK_FEATURES ?? 'chunked').split(',').map((v) => {
  const [kind, ahead] = v.split('+');
  const [memory, share] = kind.split(':');
  const cache = memory === 'continuous' ? Number(share) : 0;
  const plain = (memory === 'chunked' || memory === 'device') && share === undefined;
  if (!(plain || (memory === 'continuous' && cache >= 0 && cache <= 1)) || ![undefined, 'x'].includes(ahead))
    throw new RangeError(
      `BENCH_RANK_FEATURES must list 'chunked', 'device' or 'continuous:SHARE' (SHARE in [0, 1]), each with '+x' or not, got '${v}'`,
    );
  return {memory, cache, loaderReads: ahead === 'x'};
});
const REPLACE = envChoice('BENCH_REPLACE', ['true', 'false'] as const, 'true') === 'true';
const TRAIN_VERTICES = 1_207_179;

interface LayerRun {
  layer: number;
  /** Where its outputs went ('auto' chose), or 'none' for the last layer of a prediction (classes only). */
  memory: string;
  /** Rows computed after its first batch, the seconds they took, and their rate. */
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  /** Seconds from the layer's start (its table allocated first) to its last batch measured; whether every vertex was done. */
  wallSeconds: number;
  complete: boolean;
}

interface LayerwiseRun {
  layers: LayerRun[];
  /** Whether every layer was computed for every vertex (the predicted classes of all of them), and the pass's seconds. */
  complete: boolean;
  wallSeconds: number;
}

class EnoughMeasured extends Error {}

// Every vertex's predicted class, layer by layer over full neighbourhoods (graph and features on the GPU,
// each layer's float16 outputs where 'auto' puts them, the last layer's logits turned into classes a batch
// at a time), until the pass is done or LAYERWISE_SECONDS have passed.
function layerwiseRun(graph: DeviceCsr): LayerwiseRun | undefined {
  if (!(LAYERWISE_SECONDS > 0)) return undefined;
  const n = graph.numVertices;
  const features = wm.nn.embedding({
    rows: n,
    dim: FEATURES,
    dtype: 'float16',
    memory: 'device',
    init: {type: 'uniform', scale: 1, seed: 11},
  });
  const model = papersSage(n, features);
  const layers: LayerRun[] = [];
  const started = Date.now();
  let layerStarted = started,
    layerEnd = started,
    first = {rows: 0, at: 0};
  try {
    model.predictLayerwise(graph, {
      dtype: 'float16',
      onProgress: (p) => {
        wm.synchronize();
        const at = Date.now();
        let cur = layers[layers.length - 1];
        if (!cur || cur.layer !== p.layer) {
          layerStarted = cur ? layerEnd : started; // a layer's time starts where the last one's batches ended
          cur = {layer: p.layer, memory: p.memory ?? 'none', rows: 0, seconds: 0, rowsPerSecond: 0, wallSeconds: 0, complete: false};
          layers.push(cur);
          first = {rows: p.rows, at};
        }
        cur.rows = p.rows - first.rows;
        cur.seconds = (at - first.at) / 1000;
        cur.rowsPerSecond = cur.seconds > 0 ? cur.rows / cur.seconds : 0;
        cur.wallSeconds = (at - layerStarted) / 1000;
        cur.complete = p.rows === p.totalRows;
        layerEnd = at;
        if (at - started > LAYERWISE_SECONDS * 1000) throw new EnoughMeasured();
      },
    });
  } catch (e) {
    if (!(e instanceof EnoughMeasured)) throw e;
  } finally {
    model.dispose();
    features.dispose();
  }
  const complete = layers.length === FANOUTS.length && layers.every((l) => l.complete);
  return {layers, complete, wallSeconds: (layerEnd - started) / 1000};
}

interface TorchRun {
  layers: string;
  seedsPerSecond?: number;
  msPerStep?: number;
  epochSeconds?: number;
  loadSeconds?: number;
  torch?: string;
  pyg?: string;
  error?: string;
}

// The same model in PyTorch on the same graph (bench/torch/graphsage.py over the saved file).
function torchRuns(file: string | undefined): TorchRun[] {
  if (!file) return [];
  return TORCH_LAYERS.map((layers) => {
    const args = [
      file,
      String(BATCH),
      String(STEPS),
      FANOUTS.join(','),
      String(HIDDEN),
      String(CLASSES),
      '0.003',
      '1',
      String(FEATURES),
      layers,
      String(WARMUP_STEPS),
    ];
    const r = torchJson<{seedsPerSecond: number; msPerStep: number; loadSeconds: number; torch: string; pyg?: string}>(
      'graphsage.py',
      args,
    );
    if (!r) return {layers, error: 'the PyTorch side stopped (its last line is printed above)'};
    console.log(`PyTorch (${layers} layers): ${r.seedsPerSecond.toFixed(0)} seeds/s, ${r.msPerStep.toFixed(1)} ms per step`);
    return {layers, ...r, epochSeconds: TRAIN_VERTICES / r.seedsPerSecond};
  });
}

// The graph written once for PyTorch and the ranks (mapped by both); undefined when neither runs.
function savedGraph(graph: NativeCsr): string | undefined {
  if (TORCH_LAYERS.length === 0 && RANKS.length === 0) return undefined;
  const dir = fs.mkdtempSync(path.join(process.env.BENCH_GRAPH_DIR ?? os.tmpdir(), 'wm-papers100m-'));
  const file = path.join(dir, 'graph.wmcsr');
  const t0 = Date.now();
  // Removed however the run ends: the file may sit in shared memory (/dev/shm).
  process.on('exit', () => fs.rmSync(dir, {recursive: true, force: true}));
  graph.save(file);
  console.log(`graph saved for PyTorch and the ranks in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return file;
}

interface RankRun {
  ranks: number;
  seedsPerSecond: number;
  msPerStep: number;
  epochSeconds: number;
  /** Seconds to map the graph file and copy it to each GPU, and to fill the feature table (and its cache). */
  graphSeconds: number;
  featureSeconds: number;
  /** The features' memory; over simulated hosts their count (two); with a cache its share of the table and hit rate. */
  hosts?: number;
  memory: string;
  /** Whether the loader gathered each batch's rows (beside the previous batch's training), not the model. */
  loaderReads?: boolean;
  cacheShare?: number;
  hitRate?: number;
  /** Rank 0's profile (every rank prints its own). */
  profile?: StepProfile;
}

// The training vertices: TRAIN_VERTICES distinct vertices drawn with a seeded stride (ogbn-papers100M's
// count), in a new order each epoch, sampled on the GPU (fixed fan-out), the next batch while one trains.
function trainLoader(csr: DeviceCsr, seed: number, share?: wm.nn.LoaderShare, features?: wm.nn.Embedding): wm.nn.NeighborLoader {
  const n = csr.numVertices;
  const count = Math.min(TRAIN_VERTICES, n);
  const stride = coprimeStride(n, seededRng(5));
  const train = int32Of(count, (i) => (i * stride) % n);
  return new wm.nn.NeighborLoader(csr, train, {
    fanouts: FANOUTS,
    batchSize: BATCH * (share?.size ?? 1),
    dropLast: true,
    seed,
    share,
    replace: REPLACE,
    features,
  });
}

// A stride coprime to n: i * stride mod n visits distinct vertices spread over the whole graph.
function coprimeStride(n: number, rng: () => number): number {
  const gcd = (x: number, y: number): number => (y === 0 ? x : gcd(y, x % y));
  let stride = 1 + Math.floor(rng() * (n - 1));
  while (n > 1 && gcd(n, stride) !== 1) stride = (stride % (n - 1)) + 1;
  return stride;
}

// One training step of `model` on a loader's batch, the loss minimised by `minimize`.
function stepOn(
  model: GraphSageClassifier,
  batch: wm.nn.NeighborBatch,
  minimize: (f: () => tf.Scalar) => tf.Scalar,
  sizes?: {csr: DeviceCsr; rows: number[][]},
): void {
  if (sizes && sizes.rows.length < 3) sizes.rows.push(distinctPerHop(sizes.csr, batch));
  const seeds = batch.seeds;
  const y = int32Of(seeds.length, (i) => seeds[i] % CLASSES); // the task does not matter, the work does
  const loss = minimize(() => wm.nn.softmaxCrossEntropy(y, model.forward(batch, batch.seed)) as tf.Scalar);
  batch.dispose();
  loss.dispose();
}

// The distinct vertices of each hop of a batch (inputs, then each layer's outputs), from the same draws sampled
// again: the batch itself is not asked (a loader whose model never asks leaves its last hop unrelabelled).
function distinctPerHop(csr: DeviceCsr, batch: wm.nn.NeighborBatch): number[] {
  const opts = {seed: batch.seed};
  const sub = REPLACE
    ? wm.graph.sampleFixedSubgraph(csr, batch.seeds, FANOUTS, opts)
    : wm.graph.sampleSubgraphInPlace(csr, batch.seeds, FANOUTS, opts);
  const sizes = [sub.inputIds.size, ...sub.layers.map((l) => ('numDst' in l ? l.numDst : l.block.numRows))];
  sub.dispose();
  return sizes;
}

// Where a data-parallel run's features were: their memory, with the cached share where there was a cache.
function rankFeatures(r: RankRun): string {
  const over = r.memory === 'hierarchical' ? 'split between the hosts' : r.memory === 'device' ? 'copied to each GPU' : 'over the GPUs';
  const cached = r.cacheShare ? `, each rank caching ${r.cacheShare} of the rows` : '';
  return `${r.memory} ${over}${cached}${r.loaderReads ? ', gathered by the loader' : ''}`;
}

// A rank of the data-parallel runs (BENCH_RANKS): the graph on its GPU, the features shared by every rank's GPU
// (BENCH_RANK_MEMORY: chunked, continuous with others' rows cached, or a copy on each, as the parent sets from BENCH_RANK_FEATURES;
// hierarchical for the runs over two hosts: split between the hosts, others' rows cached).
async function rank(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  setBenchMatmulPrecision();
  const comm = wm.communicatorFromEnv();
  const memory = envChoice('BENCH_RANK_MEMORY', ['chunked', 'continuous', 'hierarchical', 'device'] as const, 'chunked');
  const g0 = Date.now();
  const graph = NativeCsr.load(process.env.BENCH_GRAPH_FILE!);
  const csr = new DeviceCsr(graph);
  const degrees = (memory === 'continuous' || memory === 'hierarchical') && RANK_CACHE > 0 ? graph.degrees() : undefined;
  graph.free();
  const graphSeconds = (Date.now() - g0) / 1000;
  const n = csr.numVertices;
  const f0 = Date.now();
  const features = wm.nn.embedding({
    rows: n,
    dim: FEATURES,
    dtype: 'float16',
    memory,
    // 'device': a whole copy on each rank's GPU, the same seed's rows on every one.
    communicator: memory === 'device' ? undefined : comm,
    init: {type: 'uniform', scale: 1, seed: 11},
  });
  // A share of (parts - 1) / parts or more holds every row the other parts hold (the parts: the ranks, or the two
  // hosts of a hierarchical table; a part is rounded to whole pages, so the others' rows can be a little more than
  // that share of the table).
  const parts = memory === 'hierarchical' ? 2 : comm.size;
  const fraction = RANK_CACHE >= (parts - 1) / parts ? 1 : RANK_CACHE;
  if (degrees) features.cache({rows: wm.nn.hottestRows(degrees, n, features.localRows()), fraction});
  comm.barrier();
  const featureSeconds = (Date.now() - f0) / 1000;
  const model = papersSage(n, features);
  const dp = wm.dataParallel(wm.train.adam(0.003), comm);
  dp.broadcastVariables(model.denseVariables);
  // Every rank walks one order of the training vertices and takes its share of each batch of BATCH x ranks.
  const loaderReads = process.env.BENCH_RANK_X === '1';
  const loader = trainLoader(csr, 100, {rank: comm.rank, size: comm.size}, loaderReads ? features : undefined);
  const nextBatch = batchesOf(loader);
  const step = async () => stepOn(model, await nextBatch(), (f) => dp.minimize(f, model.trainableVariables));
  for (let i = 0; i < WARMUP_STEPS; ++i) await step();
  wm.synchronize();
  comm.barrier();
  const s0 = process.hrtime.bigint();
  await withCpuProfile(`papers100m-${memory}-rank${comm.rank}of${comm.size}`, async () => {
    for (let i = 0; i < STEPS; ++i) await step();
    wm.synchronize();
  });
  comm.barrier();
  const seconds = Number(process.hrtime.bigint() - s0) / 1e9;
  const hitRate = features.cacheStats()?.hitRate;
  // Each rank's profile (steps of every rank together: they are collectives), printed by each.
  const profile = PROFILE_STEPS > 0 ? await profiledSteps(step, `rank ${comm.rank}: `) : undefined;
  const seedsPerSecond = (BATCH * STEPS * comm.size) / seconds;
  const result: RankRun = {
    ranks: comm.size,
    seedsPerSecond,
    msPerStep: (1000 * seconds) / STEPS,
    epochSeconds: TRAIN_VERTICES / seedsPerSecond,
    graphSeconds,
    featureSeconds,
    memory,
    ...(degrees ? {cacheShare: RANK_CACHE, hitRate} : {}),
    loaderReads,
    profile,
  };
  if (comm.rank === 0) process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  model.dispose();
  features.dispose();
  csr.dispose();
  comm.destroy();
}

interface Run {
  features: string;
  seedsPerSecond: number;
  msPerStep: number;
  epochSeconds: number;
  featureBytes: number;
  cacheBytes?: number;
  hitRate?: number;
  rankSeconds?: number;
  profile?: StepProfile;
}

function gb(bytes: number): string {
  return `${(bytes / 1e9).toFixed(1)} GB`;
}

// The rows a pre-sampling pass reads, counted per vertex (the same sampler and seeds' distribution as training).
async function sampledCounts(csr: DeviceCsr): Promise<Uint32Array> {
  const counts = new Uint32Array(csr.numVertices);
  let b = 0;
  for await (const batch of trainLoader(csr, 77)) {
    for (const v of (batch.inputIds as tf.Tensor1D).dataSync()) ++counts[v];
    batch.dispose();
    if (++b === PRESAMPLE_BATCHES) break;
  }
  return counts;
}

async function train(csr: DeviceCsr, kind: RunKind, degrees: Int32Array | undefined): Promise<Run> {
  const n = csr.numVertices;
  const t0 = Date.now();
  const memory = kind === 'device' || kind === 'device-x' ? 'device' : 'host';
  const features = wm.nn.embedding({rows: n, dim: FEATURES, dtype: 'float16', memory, init: {type: 'uniform', scale: 1, seed: 11}});
  console.log(`features in ${memory} memory: ${gb(n * FEATURES * 2)} initialised in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  let rankSeconds: number | undefined;
  if (kind === 'degree' || kind === 'sampled') {
    const r0 = Date.now();
    const counts = kind === 'degree' ? degrees! : await sampledCounts(csr);
    const ranking = wm.nn.hottestRows(counts, Math.ceil(CACHE_SHARE * n));
    rankSeconds = (Date.now() - r0) / 1000;
    const c0 = Date.now();
    const st = features.cache({rows: ranking, fraction: CACHE_SHARE})!;
    console.log(
      `cache: ${st.slots} rows by ${kind === 'degree' ? 'degree' : `reads in ${PRESAMPLE_BATCHES} pre-sampled batches`} ` +
        `(ranked in ${rankSeconds.toFixed(1)} s), ${gb(st.bytes)} of GPU memory, filled in ${((Date.now() - c0) / 1000).toFixed(1)} s`,
    );
  }
  const model = papersSage(n, features);
  const optimizer = wm.train.adam(0.003);
  const sizes = {csr, rows: [] as number[][]};
  const minimize = (f: () => tf.Scalar) => optimizer.minimize(f, true, model.trainableVariables)!;
  const nextBatch = batchesOf(trainLoader(csr, 100, undefined, kind === 'device-x' ? features : undefined));
  const step = async () => stepOn(model, await nextBatch(), minimize, sizes);
  for (let i = 0; i < WARMUP_STEPS; ++i) await step();
  wm.synchronize();
  console.log(
    `distinct vertices per hop (inputs, then each layer's outputs), first steps: ${sizes.rows.map((x) => x.join('/')).join('; ')}`,
  );
  features.resetCacheCounts();
  const s0 = process.hrtime.bigint();
  await withCpuProfile(`papers100m-${kind}`, async () => {
    for (let i = 0; i < STEPS; ++i) await step();
    wm.synchronize();
  });
  const seconds = Number(process.hrtime.bigint() - s0) / 1e9;
  const cache = features.cacheStats();
  const profile = PROFILE_STEPS > 0 ? await profiledSteps(step) : undefined;
  model.dispose();
  features.dispose();
  const seedsPerSecond = (BATCH * STEPS) / seconds;
  const share = `${Math.round(CACHE_SHARE * 100)} %`;
  const names: {[k in RunKind]: string} = {
    device: 'GPU memory',
    'device-x': "GPU memory, the rows gathered by the loader beside the previous batch's training",
    degree: `pinned host memory, GPU cache of ${share} of rows by degree`,
    sampled: `pinned host memory, GPU cache of ${share} of rows by pre-sampling`,
    host: 'pinned host memory, no cache',
  };
  return {
    features: names[kind],
    seedsPerSecond,
    msPerStep: (1000 * seconds) / STEPS,
    epochSeconds: TRAIN_VERTICES / seedsPerSecond,
    featureBytes: n * FEATURES * 2,
    cacheBytes: cache?.bytes,
    hitRate: cache?.hitRate,
    rankSeconds,
    profile,
  };
}

// Where a step's time goes: PROFILE_STEPS more steps under wm.profileOps (not part of the timed steps), each
// native op's GPU milliseconds per step, the slowest first.
async function profiledSteps(step: () => Promise<void>, who = ''): Promise<StepProfile> {
  const p = await profileSteps(PROFILE_STEPS, async () => {
    for (let i = 0; i < PROFILE_STEPS; ++i) await step();
  });
  console.log(
    `  ${who}profiled (${PROFILE_STEPS} steps): ${p.msPerStep.toFixed(2)} ms per step, GPU ops ${p.gpuOpMsPerStep.toFixed(2)} ms; per step: ${costliestOps(p)}`,
  );
  return p;
}

// The data-parallel run of `ranks` ranks with half of them on each of two simulated hosts (BENCH_RANK_HOSTS=2).
async function onTwoHosts(ranks: number): Promise<RankRun> {
  if (ranks % 2 !== 0)
    throw new RangeError(`BENCH_RANK_HOSTS=2 splits each run's ranks between two hosts: BENCH_RANKS must be even, got ${ranks}`);
  if (process.env.BENCH_GRAPH_FILE?.startsWith('/dev/shm'))
    throw new RangeError('BENCH_RANK_HOSTS=2: each simulated host has a /dev/shm of its own; set BENCH_GRAPH_DIR to a folder both see');
  const hosts = TwoHosts.make();
  if (!(hosts instanceof TwoHosts)) throw new Error(`BENCH_RANK_HOSTS=2: no simulated hosts here (${hosts.why})`);
  try {
    const per = ranks / 2;
    const gpus = (node: number) => Array.from({length: per}, (_, i) => node * per + i).join(',');
    const runs = await Promise.all(
      ([0, 1] as const).map((node) =>
        hosts.run(
          node,
          hosts.launcherCommand(node, 29680 + ranks, __filename, [], per),
          hosts.rankEnv({
            CUDA_VISIBLE_DEVICES: gpus(node),
            ...TwoHosts.ncclEnv,
            BENCH_RANK_MEMORY: 'hierarchical',
          }),
          1_800_000,
        ),
      ),
    );
    const said = `${ranks} ranks over two hosts (status ${runs[0].status}, ${runs[1].status})`;
    return {...resultIn<RankRun>(runs[0].out + runs[1].out, 'RESULT ', said), hosts: 2};
  } finally {
    hosts.dispose();
  }
}

async function main(): Promise<void> {
  for (const r of RANKS)
    if (!(Number.isInteger(r) && r >= 1)) throw new RangeError(`BENCH_RANKS must list positive integers, got '${process.env.BENCH_RANKS}'`);
  await tf.setBackend(wm.BACKEND_NAME);
  const matmulPrecision = setBenchMatmulPrecision();
  const info = wm.deviceInfo();
  if (!info.gpu) throw new Error(`bench:papers100m needs a GPU (${info.reason})`);
  const t0 = Date.now();
  const graph =
    GRAPH === 'rmat'
      ? NativeCsr.rmat({scale: SCALE, edgeFactor: EDGE_FACTOR, vertices: VERTICES, seed: 1})
      : GRAPH === 'powerlaw'
        ? wm.graph.powerLawGraph({vertices: VERTICES, degree: DEGREE, skew: SKEW, seed: 1})
        : wm.graph.csbmNative({vertices: VERTICES, classes: 2, degree: DEGREE, homophily: 0.5, features: 0, seed: 1}).graph;
  const buildSeconds = (Date.now() - t0) / 1000;
  const offsetBytes = (graph.numVertices + 1) * 8,
    columnBytes = graph.numEdges * 4;
  console.log(
    `graph (${GRAPH}): ${graph.numVertices} vertices, ${graph.numEdges} CSR entries (offsets ${gb(offsetBytes)}, columns ${gb(columnBytes)}), ` +
      `generated in ${buildSeconds.toFixed(1)} s`,
  );
  const saved = savedGraph(graph);
  const torch = torchRuns(saved);
  const t1 = Date.now();
  const csr = new DeviceCsr(graph);
  const uploadSeconds = (Date.now() - t1) / 1000;
  const degrees = RUNS.includes('degree') ? graph.degrees() : undefined;
  const csrEntries = graph.numEdges;
  console.log(`graph copied to the GPU in ${uploadSeconds.toFixed(1)} s`);
  const runs: Run[] = [];
  for (const kind of RUNS) {
    const r = await train(csr, kind, degrees);
    runs.push(r);
    const hits = r.hitRate === undefined ? '' : `, cache hit rate ${(100 * r.hitRate).toFixed(1)} %`;
    console.log(`features in ${r.features}: ${r.seedsPerSecond.toFixed(0)} seeds/s, ${r.msPerStep.toFixed(1)} ms per step${hits}`);
  }
  let layerwise: LayerwiseRun | {error: string} | undefined;
  try {
    layerwise = layerwiseRun(csr);
  } catch (e) {
    layerwise = {error: (e as Error).message};
  }
  csr.dispose();
  graph.free();
  wm.emptyCache(); // the ranks' processes need this GPU's memory
  const rankRuns: RankRun[] = [];
  if (saved) process.env.BENCH_GRAPH_FILE = saved;
  for (const ranks of RANKS) {
    let r: RankRun | undefined;
    for (const v of RANK_FEATURES) {
      r = resultOnRanks<RankRun>(ranks, __filename, 'RESULT ', {
        env: {BENCH_RANK_MEMORY: v.memory, BENCH_RANK_CACHE: String(v.cache), BENCH_RANK_X: v.loaderReads ? '1' : '0'},
        echo: (line) => line.includes('profiled'),
      });
      console.log(
        `${ranks} ranks, features ${rankFeatures(r)}: ${r.seedsPerSecond.toFixed(0)} seeds/s, ${r.msPerStep.toFixed(1)} ms per step`,
      );
      rankRuns.push(r);
    }
    if (RANK_HOSTS === '2') {
      const h = await onTwoHosts(ranks);
      console.log(
        `${ranks} ranks over 2 simulated hosts, features hierarchical, cache ${RANK_CACHE} (hit rate ${h.hitRate === undefined ? '-' : (100 * h.hitRate).toFixed(1)} %): ` +
          `${h.seedsPerSecond.toFixed(0)} seeds/s, ${h.msPerStep.toFixed(1)} ms per step, ${(h.seedsPerSecond / r!.seedsPerSecond).toFixed(2)}x one host's`,
      );
      rankRuns.push(h);
    }
  }
  console.log(
    `\nGraphSAGE, 3 layers, fan-out ${FANOUTS.join('/')}, hidden ${HIDDEN}, batch ${BATCH}, ${FEATURES} float16 features, ${info.name}; ` +
      `epoch = ${TRAIN_VERTICES} training vertices, estimated from ${STEPS} timed steps`,
  );
  console.log('| features | seeds/s | ms per step | epoch (s) | cache hit rate | cache |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const r of runs) {
    const hit = r.hitRate === undefined ? '' : `${(100 * r.hitRate).toFixed(1)} %`;
    const bytes = r.cacheBytes === undefined ? '' : gb(r.cacheBytes);
    console.log(
      `| ${r.features} | ${r.seedsPerSecond.toFixed(0)} | ${r.msPerStep.toFixed(1)} | ${r.epochSeconds.toFixed(1)} | ${hit} | ${bytes} |`,
    );
  }
  for (const t of torch) {
    const name = `PyTorch ${t.torch ?? ''}${t.pyg ? `, PyG ${t.pyg} SAGEConv` : ', torch ops'}, features in GPU memory`;
    if (t.error) console.log(`| PyTorch (${t.layers} layers) | ${t.error} | | | | |`);
    else console.log(`| ${name} | ${t.seedsPerSecond!.toFixed(0)} | ${t.msPerStep!.toFixed(1)} | ${t.epochSeconds!.toFixed(1)} | | |`);
  }
  for (const r of rankRuns) {
    const where = `${r.hosts ? `over ${r.hosts} simulated hosts, ` : ''}features ${rankFeatures(r)}`;
    const hit = r.hitRate === undefined ? '' : `${(100 * r.hitRate).toFixed(1)} %`;
    console.log(
      `| ${r.ranks} GPUs, data parallel, ${where} | ${r.seedsPerSecond.toFixed(0)} | ${r.msPerStep.toFixed(1)} | ${r.epochSeconds.toFixed(1)} | ${hit} | |`,
    );
  }
  const ours = runs.find((r) => r.features === 'GPU memory');
  if (ours)
    for (const r of rankRuns)
      console.log(
        `${r.ranks} GPUs${r.hosts ? ` over ${r.hosts} hosts` : ''}, features ${rankFeatures(r)} / 1 GPU (features in GPU memory): ${(ours.epochSeconds / r.epochSeconds).toFixed(2)}x epoch speed`,
      );
  for (const t of torch.filter((x) => x.seedsPerSecond && ours))
    console.log(`ours (GPU memory) / PyTorch (${t.layers} layers): ${(ours!.seedsPerSecond / t.seedsPerSecond!).toFixed(2)}x seeds/s`);
  if (layerwise && 'error' in layerwise) console.log(`\nlayer-wise prediction stopped: ${layerwise.error}`);
  else if (layerwise) {
    console.log(
      `\nlayer-wise prediction of every vertex (full neighbourhoods, float16 outputs, batches of 65,536): ` +
        (layerwise.complete
          ? `every vertex done in ${layerwise.wallSeconds.toFixed(1)} s`
          : `stopped after ${LAYERWISE_SECONDS} s (a measured part)`),
    );
    console.log("| layer | outputs in | vertices measured | s | vertices/s | s from the layer's start | every vertex |");
    console.log('| --- | --- | --- | --- | --- | --- | --- |');
    for (const l of layerwise.layers)
      console.log(
        `| ${l.layer} | ${l.memory} | ${l.rows} | ${l.seconds.toFixed(1)} | ${l.rowsPerSecond.toFixed(0)} | ${l.wallSeconds.toFixed(1)} | ${l.complete ? 'yes' : 'no'} |`,
      );
  }
  writeBenchResult(GRAPH === 'rmat' ? 'papers100m' : `papers100m-${GRAPH}`, {
    device: info.name,
    matmulPrecision,
    graph: GRAPH === 'rmat' ? 'rmat' : `${GRAPH}, mean degree ${DEGREE}${GRAPH === 'powerlaw' ? `, skew ${SKEW}` : ''}`,
    scale: SCALE,
    vertices: VERTICES,
    edgeFactor: EDGE_FACTOR,
    csrEntries,
    buildSeconds,
    uploadSeconds,
    bytes: {offsets: offsetBytes, columns: columnBytes, features: VERTICES * FEATURES * 2},
    batch: BATCH,
    fanouts: FANOUTS,
    replace: REPLACE,
    steps: STEPS,
    runs,
    torch,
    layerwise,
    rankRuns,
  });
}

rankOrMain(rank, () =>
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  }),
);

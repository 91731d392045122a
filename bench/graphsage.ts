// `npm run bench:graphsage`: sampled GraphSAGE training throughput (seeds per
// second) on a seeded R-MAT graph, ours on 1, 2, 4... ranks against the same
// model in PyTorch on one GPU (bench/torch/graphsage.py) in the same run.
// Model, both sides: 128-wide float32 node embeddings (ours: in continuous
// WholeMemory over the ranks' GPUs, or shared host memory on the CPU; torch:
// nn.Embedding(sparse=True) on its GPU) updated by sparse SGD, 2 GraphSAGE
// layers (mean aggregator, hidden 128, 16 classes) under Adam, compact
// subgraphs sampled per step where the graph lives (ours: the CSR in
// WholeMemory, sampleFixedSubgraph; torch: on its GPU) with fan-out 25/10 (uniform with replacement,
// GraphSAGE's fixed-size sampling; a vertex without neighbours samples
// itself), BATCH seeds per rank per step, data parallel over the ranks.
// The graph is built once here and saved (loadCsr/saveCsr): every rank and
// the torch script read the same files.
// Environment: BENCH_SCALE (R-MAT 2^scale, default 16), BENCH_VERTICES (keep
// that many vertices, default all), BENCH_EDGE_FACTOR (default 16),
// BENCH_RANKS (default: every GPU, or 1), BENCH_BATCH, BENCH_STEPS (per timed window;
// the median of BENCH_WINDOWS windows, default 5, is reported),
// BENCH_GRAPH_DIR (where the graph files go; kept if it existed).
import {spawnSync} from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {CsrGraph} from '../src/graph/csr';
import {loadCsr, saveCsr} from '../src/graph/csr_file';
import {rmat} from '../src/graph/rmat';
import {GraphSageClassifier} from '../src/nn/graphsage';
import {sgd} from '../src/nn/sparse_optimizer';
import {seededRng} from '../src/util/random';
import {median, rankOrMain, resultOnRanks} from './bench_util';

const root = path.resolve(__dirname, '..', '..');
const SCALE = Number(process.env.BENCH_SCALE ?? 16);
const EDGE_FACTOR = Number(process.env.BENCH_EDGE_FACTOR ?? 16);
const VERTICES = process.env.BENCH_VERTICES ? Number(process.env.BENCH_VERTICES) : undefined;
const BATCH = Number(process.env.BENCH_BATCH ?? 1024);
const STEPS = Number(process.env.BENCH_STEPS ?? 20);
const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 5);
const FANOUTS = [25, 10];
const DIM = 128, CLASSES = 16, LR = 0.01;

interface Result {ranks: number; seedsPerSecond: number; msPerStep: number; loadSeconds: number}

async function rank(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const comm = wm.communicatorFromEnv();
  const t0 = Date.now();
  const graph = loadCsr(process.env.BENCH_GRAPH_DIR!);
  // The graph once in WholeMemory over the ranks' GPUs (host memory on the CPU), sampled in place.
  const csr = wm.graph.WholeMemoryCsr.create(comm, graph);
  const loadSeconds = (Date.now() - t0) / 1000;
  const gpu = wm.deviceInfo().gpu;
  const n = graph.numVertices;
  const model = new GraphSageClassifier({numNodes: n, numClasses: CLASSES, embeddingDim: DIM, hiddenDim: DIM, numLayers: 2, dropout: 0,
                                         seed: 3, embeddingLearningRate: LR, embeddingOptimizer: sgd({lr: LR}),
                                         embeddingMemory: 'continuous', communicator: comm});
  const dp = wm.dataParallel(tf.train.adam(LR), comm);
  dp.broadcastVariables(model.denseVariables);
  const rng = seededRng(100 + comm.rank);
  // One training step on the given seeds; `lap` (profiling) is called after each phase.
  const trainOn = (seeds: Int32Array, sampleSeed: number, lap?: (phase: string) => void) => {
    // On the CPU the C++ host sampler is the faster of the two (the fixed path's gather and mean go through tfjs ops).
    const fixed = gpu ? wm.graph.sampleFixedSubgraph(csr, seeds, FANOUTS, {seed: sampleSeed}) : undefined;
    const host = gpu ? undefined : wm.graph.sampleSubgraph(graph, seeds, FANOUTS, {seed: sampleSeed, replace: true});
    const logits = () => (fixed ? model.forwardFixed(fixed, true) : model.forwardSubgraph(host!, true));
    lap?.('sample');
    // Synthetic labels: the task does not matter, the work does.
    const y = tf.tidy(() => tf.oneHot(tf.tensor1d(Int32Array.from(seeds, (v) => v % CLASSES), 'int32'), CLASSES));
    if (lap) {
      tf.dispose(logits());
      lap('forward');
    }
    const loss = dp.minimize(() => tf.losses.softmaxCrossEntropy(y, logits()) as tf.Scalar, model.trainableVariables);
    lap?.('forward+backward+dense step');
    model.embedding.step();
    lap?.('embedding step');
    (fixed ?? host!).dispose();
    tf.dispose([y, loss]);
  };
  // BENCH_PROFILE=<file>: where a step's time goes, and which kernels ran on the CPU fallback.
  const profile = async () => {
    wm.resetFallbackCounts();
    const at: {[phase: string]: number} = {};
    const fixedSeeds = (i: number) => Int32Array.from({length: BATCH}, (_, k) => (k * 7919 + i * 104729) % n);
    for (let i = 0; i < 5; ++i) {
      let t = process.hrtime.bigint();
      trainOn(fixedSeeds(i), i, (phase) => {
        wm.synchronize();
        at[phase] = (at[phase] ?? 0) + Number(process.hrtime.bigint() - t) / 1e6 / 5;
        t = process.hrtime.bigint();
      });
    }
    // One more step under tf.profile: the kernels that take the time.
    const kernels = new Map<string, {ms: number; calls: number}>();
    const p = await tf.profile(() => trainOn(fixedSeeds(5), 99));
    for (const k of p.kernels) {
      const e = kernels.get(k.name) ?? {ms: 0, calls: 0};
      e.ms += k.kernelTimeMs as number;
      e.calls++;
      kernels.set(k.name, e);
    }
    const top = [...kernels.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 15).map(([k, v]) => `${k} ${v.ms.toFixed(2)} ms/${v.calls}`);
    fs.appendFileSync(process.env.BENCH_PROFILE!, `kernels (${p.kernels.length}): ${top.join(', ')}\n`);
    fs.appendFileSync(process.env.BENCH_PROFILE!, `profile (${n} vertices), ms per step: ${JSON.stringify(at)}; fallbacks: ${JSON.stringify(wm.fallbackCounts())}\n`);
  };
  const step = () => {
    const seeds = new Int32Array(BATCH);
    const seen = new Set<number>();
    for (let i = 0; i < BATCH;) {
      const v = Math.floor(rng() * n);
      if (!seen.has(v)) {
        seen.add(v);
        seeds[i++] = v;
      }
    }
    trainOn(seeds, Math.floor(rng() * 2 ** 31));
  };
  for (let i = 0; i < 3; ++i) step();
  wm.synchronize();
  if (process.env.BENCH_PROFILE && comm.rank === 0) await profile();
  comm.barrier();
  // WINDOWS windows of STEPS steps; the median, because the hosts' timing
  // wanders from run to run (by up to 30% between single windows).
  const windows: number[] = [];
  for (let w = 0; w < WINDOWS; ++w) {
    const s0 = process.hrtime.bigint();
    for (let i = 0; i < STEPS; ++i) step();
    wm.synchronize();
    comm.barrier();
    windows.push(Number(process.hrtime.bigint() - s0) / 1e9);
  }
  const seconds = median(windows);
  const result: Result = {ranks: comm.size, seedsPerSecond: (BATCH * STEPS * comm.size) / seconds, msPerStep: (1000 * seconds) / STEPS, loadSeconds};
  if (comm.rank === 0) process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  model.dispose();
  csr.free();
  comm.destroy();
}

function buildGraph(dir: string): {vertices: number; entries: number; seconds: number} {
  const t0 = Date.now();
  const g = CsrGraph.fromEdges(rmat({scale: SCALE, edgeFactor: EDGE_FACTOR, vertices: VERTICES, seed: 1}), {symmetric: true});
  const seconds = (Date.now() - t0) / 1000;
  saveCsr(g, dir);
  return {vertices: g.numVertices, entries: g.numEdges, seconds};
}

function torchSide(dir: string): {seedsPerSecond: number; msPerStep: number; torch: string; loadSeconds: number} | {skipped: string} {
  const r = spawnSync('python3', [path.join(root, 'bench', 'torch', 'graphsage.py'), dir, String(BATCH), String(STEPS), FANOUTS.join(','), String(DIM),
                                  String(CLASSES), String(LR), String(WINDOWS)], {encoding: 'utf8'});
  const line = (r.stdout || '').split('\n').find((l) => l.startsWith('RESULT '));
  if (r.status !== 0 || !line) return {skipped: (r.stderr || r.error?.message || 'no result').trim().split('\n').pop()!};
  return JSON.parse(line.slice(7));
}

function main(): void {
  const info = wm.deviceInfo();
  const maxRanks = Number(process.env.BENCH_RANKS ?? (info.gpu ? info.deviceCount : 1));
  const dir = process.env.BENCH_GRAPH_DIR ?? path.join(os.tmpdir(), `wm-bench-rmat-${SCALE}-${EDGE_FACTOR}-${VERTICES ?? 'all'}`);
  const existed = fs.existsSync(path.join(dir, 'header.json'));
  const built = existed ? undefined : buildGraph(dir);
  const header = JSON.parse(fs.readFileSync(path.join(dir, 'header.json'), 'utf8')) as {numVertices: number; numEdges: number};
  process.env.BENCH_GRAPH_DIR = dir;
  console.log(`R-MAT scale ${SCALE}: ${header.numVertices} vertices, ${header.numEdges / 2} undirected edges` +
              (built ? ` (built in ${built.seconds.toFixed(1)} s)` : ` (read from ${dir})`));
  const rows: Result[] = [];
  for (const ranks of [1, 2, 4, 8].filter((r) => r <= maxRanks)) {
    rows.push(resultOnRanks<Result>(ranks, __filename, 'RESULT '));
    console.log(`ours, ${ranks} rank(s): ${rows[rows.length - 1].seedsPerSecond.toFixed(0)} seeds/s`);
  }
  const torch = info.gpu ? torchSide(dir) : {skipped: 'no GPU'};
  if (!existed && !process.env.BENCH_KEEP_GRAPH) fs.rmSync(dir, {recursive: true, force: true});
  const where = info.gpu ? `${info.name}` : 'CPU (host memory)';
  console.log(`\nGraphSAGE, ${DIM}-wide float32 embeddings (ours: continuous WholeMemory), fan-out ${FANOUTS.join('/')}, ${BATCH} seeds per rank per step, ${where}`);
  console.log('| run | seeds/s | ms per step | vs ours on 1 rank | vs torch |');
  console.log('| --- | --- | --- | --- | --- |');
  const t = 'seedsPerSecond' in torch ? torch : undefined;
  for (const r of rows) {
    console.log(`| ours, ${r.ranks} rank(s) | ${r.seedsPerSecond.toFixed(0)} | ${r.msPerStep.toFixed(1)} | ${(r.seedsPerSecond / rows[0].seedsPerSecond).toFixed(2)}× |` +
                ` ${t ? (r.seedsPerSecond / t.seedsPerSecond).toFixed(2) + '×' : ''} |`);
  }
  if (t) console.log(`| PyTorch ${t.torch}, 1 GPU | ${t.seedsPerSecond.toFixed(0)} | ${t.msPerStep.toFixed(1)} | ${(t.seedsPerSecond / rows[0].seedsPerSecond).toFixed(2)}× | 1.00× |`);
  else console.log(`(PyTorch side not run: ${(torch as {skipped: string}).skipped})`);
  const out = process.env.BENCH_OUT ?? path.join(root, 'runs', 'bench', 'graphsage.json');
  fs.mkdirSync(path.dirname(out), {recursive: true});
  fs.writeFileSync(out, JSON.stringify({date: new Date().toISOString(), scale: SCALE, edgeFactor: EDGE_FACTOR, vertices: header.numVertices,
                                        csrEntries: header.numEdges, graphBuildSeconds: built?.seconds, batch: BATCH, fanouts: FANOUTS, device: where,
                                        results: rows, torch}, null, 2));
}

rankOrMain(rank, main);

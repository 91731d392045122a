// `npm run bench:papers100m-accuracy`: test accuracy at ogbn-papers100M's size, ours beside PyG on the same graph.
// The graph is a contextual SBM drawn natively (wm.graph.csbmNative): 111,059,956 vertices of mean degree 29, 172
// classes, BENCH_HOMOPHILY of the edges inside a class, 128 features drawn around each class's mean (BENCH_SIGNAL in
// units of the features' noise): labels a 3-layer GraphSAGE learns from the features and the graph, not from either
// alone (at 200,000 vertices, each vertex's class nearest its own features 6.3 % of the time, its neighbours' mean
// 18.9 %, its two-hop mean 44.2 % at homophily 0.3; 0.5 makes the two-hop mean alone 97.6 %; the default 0.4 puts
// GraphSAGE near 70 % after 5 epochs). ogbn-papers100M's counts of training (1,207,179) and
// test (214,338) vertices, drawn by one seeded permutation. Both sides train the same model (fan-out 30/30/30 drawn
// with replacement, hidden 256, batch 1024, Adam at BENCH_LR, no dropout, float16 features in GPU memory) for
// BENCH_EPOCHS epochs over the training vertices and, after each, classify every test vertex from a sample of its
// neighbourhood with the same fan-outs. BENCH_SCHEDULE 'cosine' (default) anneals the step size from BENCH_LR to 0 over
// the run's steps (torch's CosineAnnealingLR, a step at a time, on both sides), so a run of any length ends with steps
// that change little; 'constant' keeps BENCH_LR. PyTorch runs first (bench/torch/graphsage_accuracy.py, PyG's SAGEConv)
// on files this run writes to BENCH_GRAPH_DIR (the graph, the features as float16 .npy, the labels and the split;
// removed after), so the two never hold GPU memory at once; ours then fills its table from the same .npy, so both sides
// train on the same float16 values. PyG's layers start from ours' initial weights (BENCH_SAME_INIT=1, the default): on
// this graph a run's accuracy moves by several points with the initial weights alone, which would hide what the two
// implementations do.
// Environment: BENCH_VERTICES, BENCH_DEGREE, BENCH_CLASSES, BENCH_FEATURES, BENCH_HOMOPHILY (default 0.4),
// BENCH_SIGNAL (default 1), BENCH_EPOCHS (default 5), BENCH_TRAIN, BENCH_TEST, BENCH_LR (default 0.003; at 0.01 both
// sides stay at chance), BENCH_SCHEDULE, BENCH_ADAM_EPSILON (both sides'; default 1e-7, tfjs'), BENCH_SEED (ours'
// weights and torch's manual_seed; default 3), BENCH_SAMPLE_SEEDS (the training samples' and epoch orders' seeds, a
// comma-separated list, default 1: one run of each side per seed, all from the same initial weights, so the spread
// between seeds is what the sampling alone moves; PyG's generator takes the seed + 4, its draws being its own anyway),
// BENCH_SAME_INIT ('0': PyG draws its own initial weights),
// BENCH_MATMUL_PRECISION, BENCH_TORCH ('pyg' (default), or '' for ours alone), BENCH_OURS ('1' (default), or '0' for
// PyG alone from ours' initial weights: ours' runs repeat to the digit from one run to the next, so PyG's further
// sampling seeds can run without them), BENCH_GRAPH_DIR, BENCH_OUT.
// Without a GPU ours trains on the CPU (say BENCH_VERTICES=100000), PyTorch not run.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {npyHeader, writeNpy} from '../src/data/npy';
import {DeviceCsr} from '../src/graph/device_csr';
import {NativeFeatures} from '../src/graph/native_features';
import {seededPermutation} from '../src/graph/permutation';
import {EpochProgress} from '../src/train/progress';
import {setBenchMatmulPrecision, torchJson, writeBenchResult} from './bench_util';
import {Float16Workers} from './float16_workers';
import {CLASSES as PAPERS_CLASSES, FANOUTS, HIDDEN, papersSage} from './papers100m_model';

const VERTICES = Number(process.env.BENCH_VERTICES ?? 111_059_956);
const DEGREE = Number(process.env.BENCH_DEGREE ?? 29);
const CLASSES = Number(process.env.BENCH_CLASSES ?? PAPERS_CLASSES);
const FEATURES = Number(process.env.BENCH_FEATURES ?? 128);
const HOMOPHILY = Number(process.env.BENCH_HOMOPHILY ?? 0.4);
const SIGNAL = Number(process.env.BENCH_SIGNAL ?? 1);
const EPOCHS = Number(process.env.BENCH_EPOCHS ?? 5);
const TRAIN = Number(process.env.BENCH_TRAIN ?? 1_207_179);
const TEST = Number(process.env.BENCH_TEST ?? 214_338);
const LR = Number(process.env.BENCH_LR ?? 0.003);
const SCHEDULE = process.env.BENCH_SCHEDULE ?? 'cosine';
const EPSILON = Number(process.env.BENCH_ADAM_EPSILON ?? 1e-7);
const TORCH = process.env.BENCH_TORCH ?? 'pyg';
const SEED = Number(process.env.BENCH_SEED ?? 3);
const SAME_INIT = (process.env.BENCH_SAME_INIT ?? '1') === '1';
const OURS = (process.env.BENCH_OURS ?? '1') === '1';
const SAMPLE_SEEDS = (process.env.BENCH_SAMPLE_SEEDS ?? '1').split(',').map(Number);
const BATCH = 1024,
  EVAL_BATCH = 4096;

for (const [name, v] of Object.entries({BENCH_EPOCHS: EPOCHS, BENCH_TRAIN: TRAIN, BENCH_TEST: TEST, BENCH_SEED: SEED}))
  if (!(Number.isInteger(v) && v >= 1)) throw new RangeError(`${name} must be a positive integer, got ${v}`);
if (!SAMPLE_SEEDS.every((v) => Number.isInteger(v) && v >= 1))
  throw new RangeError(`BENCH_SAMPLE_SEEDS must be positive integers separated by commas, got '${process.env.BENCH_SAMPLE_SEEDS}'`);
if (!(EPSILON > 0)) throw new RangeError(`BENCH_ADAM_EPSILON must be a positive number, got ${process.env.BENCH_ADAM_EPSILON}`);
if (!(LR > 0)) throw new RangeError(`BENCH_LR must be a positive number, got ${process.env.BENCH_LR}`);
if (!['cosine', 'constant'].includes(SCHEDULE)) throw new RangeError(`BENCH_SCHEDULE must be 'cosine' or 'constant', got '${SCHEDULE}'`);
if (!['1', '0', undefined].includes(process.env.BENCH_SAME_INIT))
  throw new RangeError(`BENCH_SAME_INIT must be '1' or '0', got '${process.env.BENCH_SAME_INIT}'`);
if (!['pyg', ''].includes(TORCH)) throw new RangeError(`BENCH_TORCH must be 'pyg' or '', got '${TORCH}'`);
if (!['1', '0', undefined].includes(process.env.BENCH_OURS))
  throw new RangeError(`BENCH_OURS must be '1' or '0', got '${process.env.BENCH_OURS}'`);
if (!OURS && !TORCH) throw new RangeError(`BENCH_OURS=0 runs PyG alone: BENCH_TORCH must not be '' with it`);

interface EpochResult {
  epoch: number;
  seconds: number;
  testAccuracy: number;
  loss: number;
}

// One sampling seed's runs: ours and PyG's, each where it ran.
interface SeedRuns {
  sampleSeed: number;
  ours?: EpochResult[];
  torch?: TorchAccuracy;
}

interface TorchAccuracy {
  epochs: EpochResult[];
  loadSeconds: number;
  torch: string;
  pyg: string;
}

// The step size of step `step` (from 0) of `steps`: torch's CosineAnnealingLR to 0, or BENCH_LR throughout.
function stepSize(step: number, steps: number): number {
  return SCHEDULE === 'cosine' ? (LR * (1 + Math.cos((Math.PI * step) / steps))) / 2 : LR;
}

// The files PyTorch reads: the graph, the features as float16 (made a block of rows at a time), labels, split.
async function writeTorchFiles(dir: string, data: wm.graph.NativeCsbm, train: Int32Array, test: Int32Array): Promise<void> {
  const t0 = Date.now();
  data.graph.save(path.join(dir, 'graph.wmcsr'));
  const n = data.graph.numVertices;
  const block = Math.max(1, Math.floor(2 ** 24 / FEATURES));
  const fd = fs.openSync(path.join(dir, 'features.npy'), 'w');
  const converter = new Float16Workers(block * FEATURES);
  try {
    fs.writeSync(fd, npyHeader('<f2', [n, FEATURES]));
    for (let first = 0; first < n; first += block) {
      const bits = await converter.convert(data.featureRows(first, Math.min(block, n - first)));
      fs.writeSync(fd, new Uint8Array(bits.buffer, bits.byteOffset, bits.byteLength));
    }
  } finally {
    fs.closeSync(fd);
    await converter.close();
  }
  writeNpy(path.join(dir, 'labels.npy'), data.labels, [n]);
  writeNpy(path.join(dir, 'train.npy'), train, [train.length]);
  writeNpy(path.join(dir, 'test.npy'), test, [test.length]);
  console.log(`graph, features, labels and split written for PyTorch in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

// Ours' initial weights as init_{i}.npy (root kernel, neighbours' kernel, bias a layer), for PyG to start from: the
// model's weights depend on its seed and widths alone, so a one-row table of the same width draws them.
function writeInitialWeights(dir: string): void {
  const table = wm.nn.featureTable(new Float32Array(FEATURES), 1, FEATURES, {memory: 'host'});
  const model = papersSage(1, table, CLASSES, SEED);
  try {
    model.denseVariables.forEach((v, i) => writeNpy(path.join(dir, `init_${i}.npy`), v.dataSync() as Float32Array, v.shape));
  } finally {
    model.dispose();
    table.dispose();
  }
}

// Ours: the model trained for EPOCHS epochs on samples drawn from `sampleSeed`, the test vertices classified after
// each; `features` placed once for every seed's run.
async function ours(
  data: wm.graph.NativeCsbm,
  features: wm.nn.Embedding,
  graph: DeviceCsr | wm.graph.NativeCsr,
  train: Int32Array,
  test: Int32Array,
  sampleSeed: number,
): Promise<EpochResult[]> {
  const model = papersSage(data.graph.numVertices, features, CLASSES, SEED);
  const optimizer = wm.train.adam(LR, 0.9, 0.999, EPSILON);
  const loader = new wm.nn.NeighborLoader(graph, train, {
    fanouts: FANOUTS,
    batchSize: BATCH,
    labels: data.labels,
    seed: sampleSeed,
    replace: true,
  });
  const testLoader = new wm.nn.NeighborLoader(graph, test, {
    fanouts: FANOUTS,
    batchSize: EVAL_BATCH,
    labels: data.labels,
    seed: 2,
    shuffle: false,
    replace: true,
  });
  const results: EpochResult[] = [];
  const progress = new EpochProgress(EPOCHS, 'ours');
  const steps = EPOCHS * loader.length;
  let step = 0;
  try {
    for (let e = 1; e <= EPOCHS; ++e) {
      const s0 = Date.now();
      let last: tf.Scalar | undefined;
      for await (const batch of loader) {
        last?.dispose();
        optimizer.setLearningRate(stepSize(step++, steps));
        last = optimizer.minimize(
          () => wm.nn.softmaxCrossEntropy(batch.y!, model.forward(batch, batch.seed)) as tf.Scalar,
          true,
          model.trainableVariables,
        )!;
        batch.dispose();
      }
      wm.synchronize();
      const seconds = (Date.now() - s0) / 1000;
      const loss = last ? (await last.data())[0] : NaN;
      last?.dispose();
      let correct = 0;
      for await (const batch of testLoader) {
        const hits = tf.tidy(() => tf.sum(tf.cast(tf.equal(tf.argMax(model.forward(batch), 1), batch.y!), 'int32')));
        correct += (await hits.data())[0];
        hits.dispose();
        batch.dispose();
      }
      const r = {epoch: e, seconds, testAccuracy: correct / test.length, loss};
      progress.tick(
        `ours epoch ${e}: ${seconds.toFixed(1)} s, loss ${loss.toFixed(4)}, test accuracy ${(100 * r.testAccuracy).toFixed(2)} %`,
        `${(train.length / seconds).toFixed(0)} seeds/s`,
      );
      results.push(r);
    }
  } finally {
    progress.stop();
    model.dispose();
    optimizer.dispose();
  }
  return results;
}

// Ours' run for each sampling seed, the features (the float16 file PyTorch read where `dir` holds one: the same values
// on both sides) and the graph placed once for all of them.
async function oursOverSeeds(
  data: wm.graph.NativeCsbm,
  dir: string | undefined,
  train: Int32Array,
  test: Int32Array,
  gpu: boolean,
): Promise<EpochResult[][]> {
  const n = data.graph.numVertices;
  const source = dir
    ? NativeFeatures.fromNpy(path.join(dir, 'features.npy'), n)
    : NativeFeatures.generated(n, FEATURES, 'csbm', (first, count, out) => out.set(data.featureRows(first, count)));
  const t1 = Date.now();
  const features = wm.nn.featureTable(source, {
    dtype: 'float16',
    memory: gpu ? 'device' : 'host',
    onProgress: (l) => console.log(`  ${l}`),
  });
  const graph = gpu ? new DeviceCsr(data.graph) : data.graph;
  console.log(`features and graph placed in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  const results: EpochResult[][] = [];
  try {
    for (const sampleSeed of SAMPLE_SEEDS) results.push(await ours(data, features, graph, train, test, sampleSeed));
  } finally {
    features.dispose();
    if (graph instanceof DeviceCsr) graph.dispose();
  }
  return results;
}

// PyG trained on the files in `dir`, its samples and epoch order drawn from a generator seeded by `sampleSeed` + 4.
function runTorch(dir: string, sampleSeed: number): TorchAccuracy | undefined {
  const torch = torchJson<TorchAccuracy>('graphsage_accuracy.py', [
    dir,
    String(EPOCHS),
    String(BATCH),
    String(EVAL_BATCH),
    FANOUTS.join(','),
    String(HIDDEN),
    String(CLASSES),
    String(LR),
    SCHEDULE,
    String(EPSILON),
    String(SEED),
    String(sampleSeed + 4),
  ]);
  for (const r of torch?.epochs ?? [])
    console.log(
      `PyG epoch ${r.epoch}: ${r.seconds.toFixed(1)} s, loss ${r.loss.toFixed(4)}, test accuracy ${(100 * r.testAccuracy).toFixed(2)} %`,
    );
  return torch;
}

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const matmulPrecision = setBenchMatmulPrecision();
  const info = wm.deviceInfo();
  if (!OURS && !info.gpu) throw new Error(`BENCH_OURS=0 runs PyG alone, which needs a GPU: ${info.reason}`);
  const t0 = Date.now();
  const data = wm.graph.csbmNative({
    vertices: VERTICES,
    classes: CLASSES,
    degree: DEGREE,
    homophily: HOMOPHILY,
    features: FEATURES,
    signal: SIGNAL,
    seed: 7,
  });
  const n = data.graph.numVertices;
  if (TRAIN + TEST > n) throw new RangeError(`BENCH_TRAIN + BENCH_TEST (${TRAIN + TEST}) must not pass the ${n} vertices`);
  const order = seededPermutation(n, 11);
  const train = order.slice(0, TRAIN),
    test = order.slice(TRAIN, TRAIN + TEST);
  console.log(`${data.name}: ${data.graph.numEdges} CSR entries, drawn in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const dir =
    TORCH && info.gpu ? fs.mkdtempSync(path.join(process.env.BENCH_GRAPH_DIR ?? os.tmpdir(), 'wm-papers100m-accuracy-')) : undefined;
  const runs: SeedRuns[] = [];
  try {
    if (dir) {
      await writeTorchFiles(dir, data, train, test);
      if (SAME_INIT) writeInitialWeights(dir);
    }
    // PyG's runs first, then ours': the two never hold GPU memory at once.
    const torch = SAMPLE_SEEDS.map((sampleSeed) => (dir ? runTorch(dir, sampleSeed) : undefined));
    const oursBySeed = OURS ? await oursOverSeeds(data, dir, train, test, info.gpu) : [];
    runs.push(...SAMPLE_SEEDS.map((sampleSeed, i) => ({sampleSeed, ours: oursBySeed[i], torch: torch[i]})));
  } finally {
    if (dir) fs.rmSync(dir, {recursive: true, force: true});
  }
  const csrEntries = data.graph.numEdges;
  data.graph.free();
  console.log(
    `\nGraphSAGE on ${data.name}, ${TRAIN} training and ${TEST} test vertices, fan-out ${FANOUTS.join('/')}, hidden ${HIDDEN}, ` +
      `batch ${BATCH}, Adam ${LR} (${SCHEDULE}, epsilon ${EPSILON}), weights seed ${SEED}, ${info.gpu ? info.name : 'CPU'}, ` +
      `matmul precision ${matmulPrecision}`,
  );
  console.log('| sample seed | epoch | ours test accuracy | ours s | PyG test accuracy | PyG s | ours - PyG (points) |');
  console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: |');
  const accuracy = (r?: EpochResult) => (r ? `${(100 * r.testAccuracy).toFixed(2)} %` : '');
  const seconds = (r?: EpochResult) => (r ? r.seconds.toFixed(1) : '');
  for (const run of runs)
    for (let i = 0; i < Math.max(run.ours?.length ?? 0, run.torch?.epochs.length ?? 0); ++i) {
      const r = run.ours?.[i],
        t = run.torch?.epochs[i];
      const gap = r && t ? (100 * (r.testAccuracy - t.testAccuracy)).toFixed(2) : '';
      console.log(`| ${run.sampleSeed} | ${i + 1} | ${accuracy(r)} | ${seconds(r)} | ${accuracy(t)} | ${seconds(t)} | ${gap} |`);
    }
  if (runs.length > 1) {
    // Each side's final test accuracy over the seeds where it ran: mean (lowest to highest).
    const parts = [
      {name: 'ours', finals: runs.flatMap((r) => r.ours?.at(-1)?.testAccuracy ?? [])},
      {name: 'PyG', finals: runs.flatMap((r) => r.torch?.epochs.at(-1)?.testAccuracy ?? [])},
    ]
      .filter((side) => side.finals.length > 0)
      .map(
        ({name, finals}) =>
          `${name} ${((100 * finals.reduce((x, y) => x + y, 0)) / finals.length).toFixed(2)} % ` +
          `(${(100 * Math.min(...finals)).toFixed(2)} to ${(100 * Math.max(...finals)).toFixed(2)})`,
      );
    console.log(`final test accuracy over ${runs.length} sampling seeds, mean (lowest to highest): ${parts.join('; ')}`);
  }
  writeBenchResult('papers100m-accuracy', {
    device: info.gpu ? info.name : 'CPU',
    matmulPrecision,
    graph: data.name,
    csrEntries,
    train: TRAIN,
    test: TEST,
    fanouts: FANOUTS,
    hidden: HIDDEN,
    batch: BATCH,
    learningRate: LR,
    schedule: SCHEDULE,
    adamEpsilon: EPSILON,
    seed: SEED,
    sameInitialWeights: SAME_INIT,
    runs,
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

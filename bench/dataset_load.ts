// `npm run bench:dataset`: loads an ogbn-* folder of ogbn-products' size
// (2,449,029 vertices, 61,859,140 edges, 100 features, 47 classes; made once
// here with seeded random values in the ogb package's layout) with
// wm.graph.loadDataset twice, each in a fresh process: the first parses the
// text and writes the binary cache, the second maps the cache. Reports each
// load's time and peak resident memory against the bytes the loaded arrays need.
// BENCH_LAYOUT=npy makes a folder shaped like ogbn-papers100M instead
// (111,059,956 vertices, 1,615,685,872 edges as a NumPy int32 edge matrix,
// 128 float16 features in vertex_features.npy, 172 classes over 1,546,782
// labelled vertices with a fixed split), loads it with {into: 'native'} and
// fills a float16 feature table in pinned host memory (plain host memory
// without a GPU) from it, checking sampled rows against the file.
// Environment: BENCH_LAYOUT (ogb | npy), BENCH_VERTICES, BENCH_EDGES,
// BENCH_FEATURES, BENCH_DIR (where the folder goes; kept for the next run).
import {execFileSync} from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as zlib from 'zlib';

import {float16ToFloat32, npyHeader} from '../src/data/npy';
import {loadDataset} from '../src/graph/dataset';
import {featureTable} from '../src/nn/node_inputs';
import {seededRng} from '../src/util/random';
import {writeBenchResult} from './bench_util';

const NPY = process.env.BENCH_LAYOUT === 'npy';
if (process.env.BENCH_LAYOUT !== undefined && !NPY && process.env.BENCH_LAYOUT !== 'ogb')
  throw new Error(`BENCH_LAYOUT must be ogb or npy, got ${process.env.BENCH_LAYOUT}`);
const N = Number(process.env.BENCH_VERTICES ?? (NPY ? 111_059_956 : 2_449_029));
const M = Number(process.env.BENCH_EDGES ?? (NPY ? 1_615_685_872 : 61_859_140));
const F = Number(process.env.BENCH_FEATURES ?? (NPY ? 128 : 100));
const CLASSES = NPY ? 172 : 47;
const DIR = process.env.BENCH_DIR ?? path.join(os.tmpdir(), `wm-${NPY ? 'npy' : 'ogb'}-like-${N}-${M}-${F}`);

/** Writes `lines(i)` for i in [0, count) gzip-compressed, a block of lines at a time. */
async function writeGz(file: string, count: number, line: (i: number) => string): Promise<void> {
  fs.mkdirSync(path.dirname(file), {recursive: true});
  const gz = zlib.createGzip({level: 1});
  const out = fs.createWriteStream(file);
  gz.pipe(out);
  const done = new Promise<void>((resolve, reject) => {
    out.on('finish', () => resolve());
    gz.on('error', reject);
    out.on('error', reject);
  });
  for (let i = 0; i < count;) {
    const block: string[] = [];
    for (const end = Math.min(count, i + 65536); i < end; ++i) block.push(line(i));
    if (!gz.write(block.join('\n') + '\n')) await new Promise((r) => gz.once('drain', r));
  }
  gz.end();
  await done;
}

async function generate(): Promise<void> {
  const rng = seededRng(7);
  const raw = path.join(DIR, 'raw');
  await writeGz(path.join(raw, 'num-node-list.csv.gz'), 1, () => String(N));
  await writeGz(path.join(raw, 'num-edge-list.csv.gz'), 1, () => String(M));
  await writeGz(path.join(raw, 'edge.csv.gz'), M, () => `${Math.floor(rng() * N)},${Math.floor(rng() * N)}`);
  await writeGz(path.join(raw, 'node-label.csv.gz'), N, () => String(Math.floor(rng() * CLASSES)));
  const row = new Array<string>(F);
  await writeGz(path.join(raw, 'node-feat.csv.gz'), N, () => {
    for (let k = 0; k < F; ++k) row[k] = (rng() * 2 - 1).toFixed(4);
    return row.join(',');
  });
  const order = Int32Array.from({length: N}, (_, i) => i);
  const split = path.join(DIR, 'split', 'sales_history');
  const nTrain = Math.round(N * 0.08),
    nVal = Math.round(N * 0.02);
  await writeGz(path.join(split, 'train.csv.gz'), nTrain, (i) => String(order[i]));
  await writeGz(path.join(split, 'valid.csv.gz'), nVal, (i) => String(order[nTrain + i]));
  await writeGz(path.join(split, 'test.csv.gz'), N - nTrain - nVal, (i) => String(order[nTrain + nVal + i]));
  fs.writeFileSync(path.join(DIR, 'complete'), '');
}

/** xorshift32 draws: billions of them, so no closure per value. */
function fillRandom(out: Uint32Array, state: {s: number}): void {
  let x = state.s | 0 || 1;
  for (let i = 0; i < out.length; ++i) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x >>> 0;
  }
  state.s = x;
}

/** Writes `count` 32-bit words made by `fill` a block at a time after `header`, reporting the rate. */
function writeWords(file: string, header: Buffer, count: number, fill: (block: Uint32Array) => void): void {
  const fd = fs.openSync(file, 'w');
  const t = Date.now();
  try {
    fs.writeSync(fd, header);
    const block = new Uint32Array(1 << 24);
    for (let done = 0; done < count;) {
      const part = block.subarray(0, Math.min(block.length, count - done));
      fill(part);
      fs.writeSync(fd, part);
      done += part.length;
    }
  } finally {
    fs.closeSync(fd);
  }
  const s = (Date.now() - t) / 1000;
  console.log(`  ${path.basename(file)}: ${((count * 4) / 2 ** 30).toFixed(1)} GiB in ${s.toFixed(1)} s`);
}

/** The papers100M-shaped folder: edges.npy, vertex_features.npy (float16), vertex_value.tsv, split/. */
function generateNpy(): void {
  fs.mkdirSync(path.join(DIR, 'split'), {recursive: true});
  const state = {s: 0x9e3779b9};
  // [2, M] int32: a row of sources, then one of destinations; the last vertex has an edge, so ids reach N - 1.
  let first = true;
  writeWords(path.join(DIR, 'edges.npy'), npyHeader('<i4', [2, M]), 2 * M, (b) => {
    fillRandom(b, state);
    for (let i = 0; i < b.length; ++i) b[i] %= N;
    if (first) b[0] = N - 1;
    first = false;
  });
  // Two float16 values a word, in [0, 1) (exponent at most 14): finite, as features are.
  writeWords(path.join(DIR, 'vertex_features.npy'), npyHeader('<f2', [N, F]), (N * F) / 2, (b) => {
    fillRandom(b, state);
    for (let i = 0; i < b.length; ++i) b[i] &= 0x3bff3bff;
  });
  // papers100M's labelled share and split sizes, scaled to N.
  const labelled = Math.round(N * (1_546_782 / 111_059_956));
  const nTrain = Math.round(labelled * (1_207_179 / 1_546_782)),
    nVal = Math.round(labelled * (125_265 / 1_546_782));
  const rng = seededRng(7);
  const ids = new Int32Array(labelled);
  const seen = new Set<number>();
  for (let k = 0; k < labelled;) {
    const v = Math.floor(rng() * N);
    if (!seen.has(v)) (seen.add(v), (ids[k++] = v));
  }
  const lines = (from: number, to: number, line: (v: number) => string) => Array.from(ids.subarray(from, to), line).join('\n') + '\n';
  fs.writeFileSync(
    path.join(DIR, 'vertex_value.tsv'),
    lines(0, labelled, (v) => `${v}\t${v % CLASSES}`),
  );
  fs.writeFileSync(path.join(DIR, 'split', 'train.txt'), lines(0, nTrain, String));
  fs.writeFileSync(path.join(DIR, 'split', 'valid.txt'), lines(nTrain, nTrain + nVal, String));
  fs.writeFileSync(path.join(DIR, 'split', 'test.txt'), lines(nTrain + nVal, labelled, String));
  fs.writeFileSync(path.join(DIR, 'complete'), '');
}

/** The native form: the graph and features stay native; the features go into a float16 table, checked at sampled rows. */
async function loadNativeOnce(): Promise<void> {
  const rssBefore = process.memoryUsage().rss;
  const t0 = Date.now();
  const data = await loadDataset(DIR, {into: 'native', cache: true, onProgress: (m) => console.log(`  ${m}`)});
  const seconds = (Date.now() - t0) / 1000;
  const peakRss = process.resourceUsage().maxRSS * 1024;
  const f = data.features!;
  const t1 = Date.now();
  const table = featureTable(f, {memory: 'host', dtype: 'float16'});
  const tableSeconds = (Date.now() - t1) / 1000;
  // Rows read back from the table against the same rows read from the file.
  const rng = seededRng(3);
  const rows = Int32Array.from({length: 64}, () => Math.floor(rng() * N));
  const got = table.read(rows).dataSync();
  const fd = fs.openSync(path.join(DIR, 'vertex_features.npy'), 'r');
  const start = fs.statSync(path.join(DIR, 'vertex_features.npy')).size - N * F * 2;
  let wrong = 0;
  rows.forEach((r, k) => {
    const bits = new Uint16Array(F);
    fs.readSync(fd, new Uint8Array(bits.buffer), 0, F * 2, start + r * F * 2);
    const want = float16ToFloat32(bits);
    for (let j = 0; j < F; ++j) if (got[k * F + j] !== want[j]) ++wrong;
  });
  fs.closeSync(fd);
  table.dispose();
  if (wrong > 0) throw new Error(`${wrong} feature values of 64 sampled rows differ from the file`);
  const result = {
    seconds,
    tableSeconds,
    peakRss,
    peakRssWithTable: process.resourceUsage().maxRSS * 1024,
    arrays: (data.graph.numVertices + 1) * 8 + data.graph.numEdges * 4 + data.labels.byteLength + N * F * 2,
    rssBefore,
    vertices: data.graph.numVertices,
    entries: data.graph.numEdges,
    dim: f.dim,
  };
  data.graph.free();
  console.log(`RESULT ${JSON.stringify(result)}`);
}

/** One load in this process: prints a RESULT line with its time, peak memory and the arrays' bytes. */
async function loadOnce(): Promise<void> {
  const rssBefore = process.memoryUsage().rss;
  const t0 = Date.now();
  const data = await loadDataset(DIR, {cache: true, onProgress: (m) => console.log(`  ${m}`)});
  const seconds = (Date.now() - t0) / 1000;
  const peakRss = process.resourceUsage().maxRSS * 1024;
  const arrays =
    data.graph.rowPtr.byteLength + data.graph.colIdx.byteLength + data.labels.byteLength + (data.features?.values.byteLength ?? 0);
  const result = {
    seconds,
    peakRss,
    arrays,
    rssBefore,
    vertices: data.graph.numVertices,
    entries: data.graph.numEdges,
    dim: data.features?.dim,
  };
  console.log(`RESULT ${JSON.stringify(result)}`);
}

type LoadResult = {
  seconds: number;
  peakRss: number;
  arrays: number;
  rssBefore: number;
  vertices: number;
  entries: number;
  dim: number;
  tableSeconds?: number;
  peakRssWithTable?: number;
};

/** A load in a fresh process, so each peak is its own. */
function loadInChild(): LoadResult {
  const out = execFileSync(process.execPath, [__filename, 'load'], {
    env: process.env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.stdout.write(
    out
      .split('\n')
      .filter((l) => !l.startsWith('RESULT '))
      .join('\n'),
  );
  const line = out.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error('the load printed no result');
  return JSON.parse(line.slice(7)) as LoadResult;
}

async function main(): Promise<void> {
  if (process.argv[2] === 'load') return NPY ? loadNativeOnce() : loadOnce();
  if (!fs.existsSync(path.join(DIR, 'complete'))) {
    const t = Date.now();
    console.log(`making ${DIR} (${N} vertices, ${M} edges, ${F} features)...`);
    if (NPY) generateNpy();
    else await generate();
    console.log(`made in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  const sourceDir = NPY ? DIR : path.join(DIR, 'raw');
  const onDisk = fs.readdirSync(sourceDir).reduce((a, f) => {
    const s = fs.statSync(path.join(sourceDir, f));
    return a + (s.isFile() ? s.size : 0);
  }, 0);
  fs.rmSync(path.join(DIR, '.wmcache'), {recursive: true, force: true});
  console.log('first load (parse, build, write the cache):');
  const first = loadInChild();
  console.log('second load (the cache):');
  const cached = loadInChild();
  const gib = (b: number) => (b / 2 ** 30).toFixed(2);
  const row = (what: string, r: LoadResult) =>
    `| ${what} | ${r.seconds.toFixed(2)} | ${gib(r.peakRss)} | ${(r.peakRss / r.arrays).toFixed(2)} | ${gib(r.rssBefore)} |` +
    (NPY ? ` ${r.tableSeconds!.toFixed(1)} | ${gib(r.peakRssWithTable!)} |` : '');
  console.log(
    `\n${first.vertices} vertices, ${M} edges (${first.entries} CSR entries), ${first.dim} features, ` +
      `${gib(onDisk)} GiB of ${NPY ? 'files (.npy, text)' : 'gzip'}, loaded ${NPY ? 'graph, labels and float16 features' : 'arrays'} ` +
      `${gib(first.arrays)} GiB, ${os.cpus().length} CPUs\n` +
      `| load | s | peak RSS GiB | peak / loaded | RSS before GiB |${NPY ? ' feature table (s) | peak RSS with table GiB |' : ''}\n` +
      `| --- | --- | --- | --- | --- |${NPY ? ' --- | --- |' : ''}\n` +
      `${row('first (parse + build + write cache)', first)}\n${row('cached', cached)}`,
  );
  writeBenchResult(NPY ? 'dataset_load_npy' : 'dataset_load', {
    layout: NPY ? 'npy' : 'ogb',
    tableSeconds: first.tableSeconds,
    cachedTableSeconds: cached.tableSeconds,
    vertices: N,
    edges: M,
    features: F,
    csrEntries: first.entries,
    seconds: first.seconds,
    cachedSeconds: cached.seconds,
    peakRssBytes: first.peakRss,
    cachedPeakRssBytes: cached.peakRss,
    arrayBytes: first.arrays,
    gzipBytes: onDisk,
    rssBeforeBytes: first.rssBefore,
  });
}

main().catch((e) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});

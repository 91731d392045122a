// `npm run bench:dataset`: loads an ogbn-* folder of ogbn-products' size
// (2,449,029 vertices, 61,859,140 edges, 100 features, 47 classes; made once
// here with seeded random values in the ogb package's layout) with
// wm.graph.loadDataset twice, each in a fresh process: the first parses the
// text and writes the binary cache, the second maps the cache. Reports each
// load's time and peak resident memory against the bytes the loaded arrays need.
// Environment: BENCH_VERTICES, BENCH_EDGES, BENCH_FEATURES, BENCH_DIR (where
// the folder goes; kept for the next run).
import {execFileSync} from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as zlib from 'zlib';

import {loadDataset} from '../src/graph/dataset';
import {seededRng} from '../src/util/random';
import {writeBenchResult} from './bench_util';

const N = Number(process.env.BENCH_VERTICES ?? 2_449_029);
const M = Number(process.env.BENCH_EDGES ?? 61_859_140);
const F = Number(process.env.BENCH_FEATURES ?? 100);
const CLASSES = 47;
const DIR = process.env.BENCH_DIR ?? path.join(os.tmpdir(), `wm-ogb-like-${N}-${M}-${F}`);

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

type LoadResult = {seconds: number; peakRss: number; arrays: number; rssBefore: number; vertices: number; entries: number; dim: number};

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
  if (process.argv[2] === 'load') return loadOnce();
  if (!fs.existsSync(path.join(DIR, 'complete'))) {
    const t = Date.now();
    console.log(`making ${DIR} (${N} vertices, ${M} edges, ${F} features)...`);
    await generate();
    console.log(`made in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  const onDisk = fs.readdirSync(path.join(DIR, 'raw')).reduce((a, f) => a + fs.statSync(path.join(DIR, 'raw', f)).size, 0);
  fs.rmSync(path.join(DIR, '.wmcache'), {recursive: true, force: true});
  console.log('first load (parse, build, write the cache):');
  const first = loadInChild();
  console.log('second load (the cache):');
  const cached = loadInChild();
  const gib = (b: number) => (b / 2 ** 30).toFixed(2);
  const row = (what: string, r: LoadResult) =>
    `| ${what} | ${r.seconds.toFixed(2)} | ${gib(r.peakRss)} | ${(r.peakRss / r.arrays).toFixed(2)} | ${gib(r.rssBefore)} |`;
  console.log(
    `\n${first.vertices} vertices, ${M} edges (${first.entries} CSR entries), ${first.dim} features, ${gib(onDisk)} GiB of gzip, ` +
      `loaded arrays ${gib(first.arrays)} GiB, ${os.cpus().length} CPUs\n` +
      `| load | s | peak RSS GiB | peak / arrays | RSS before GiB |\n| --- | --- | --- | --- | --- |\n` +
      `${row('first (parse + build + write cache)', first)}\n${row('cached', cached)}`,
  );
  writeBenchResult('dataset_load', {
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

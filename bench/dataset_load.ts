// `npm run bench:dataset`: loads an ogbn-* folder of ogbn-products' size
// (2,449,029 vertices, 61,859,140 edges, 100 features, 47 classes; made once
// here with seeded random values in the ogb package's layout) with
// wm.graph.loadDataset, and reports the load time and the process's peak
// resident memory against the bytes the loaded arrays need.
// Environment: BENCH_VERTICES, BENCH_EDGES, BENCH_FEATURES, BENCH_DIR (where
// the folder goes; kept for the next run).
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

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(DIR, 'complete'))) {
    const t = Date.now();
    console.log(`making ${DIR} (${N} vertices, ${M} edges, ${F} features)...`);
    await generate();
    console.log(`made in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  const onDisk = fs.readdirSync(path.join(DIR, 'raw')).reduce((a, f) => a + fs.statSync(path.join(DIR, 'raw', f)).size, 0);
  const rssBefore = process.memoryUsage().rss;
  const t0 = Date.now();
  const data = await loadDataset(DIR);
  const seconds = (Date.now() - t0) / 1000;
  const peakRss = process.resourceUsage().maxRSS * 1024;
  const arrays =
    data.graph.rowPtr.byteLength + data.graph.colIdx.byteLength + data.labels.byteLength + (data.features?.values.byteLength ?? 0);
  const gib = (b: number) => (b / 2 ** 30).toFixed(2);
  console.log(
    `| vertices | edges (CSR entries) | features | gzip on disk | load s | peak RSS GiB | loaded arrays GiB | RSS before GiB |\n` +
      `| --- | --- | --- | --- | --- | --- | --- | --- |\n` +
      `| ${data.graph.numVertices} | ${M} (${data.graph.numEdges}) | ${data.features?.dim} | ${gib(onDisk)} GiB | ${seconds.toFixed(1)} | ${gib(peakRss)} | ${gib(arrays)} | ${gib(rssBefore)} |`,
  );
  writeBenchResult('dataset_load', {
    vertices: N,
    edges: M,
    features: F,
    csrEntries: data.graph.numEdges,
    seconds,
    peakRssBytes: peakRss,
    arrayBytes: arrays,
    gzipBytes: onDisk,
    rssBeforeBytes: rssBefore,
  });
}

main().catch((e) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});

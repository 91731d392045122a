// `npm run bench:managed` (GPU): gather bandwidth from an embedding table in
// (a) device memory, (b) managed memory resident on the GPU, (c) managed
// memory advised to stay on the host (read over the bus), (d) pinned host
// memory read over the bus; and managed prefetch bandwidth both ways.

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {timeMs, writeBenchResult} from './bench_util';

const ROWS = Number(process.env.BENCH_ROWS ?? 4_000_000);
const DIM = 128;
const N = Number(process.env.BENCH_N ?? 1_000_000);

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  if (!wm.deviceInfo().gpu) {
    console.log('bench:managed needs a GPU');
    return;
  }
  const tableBytes = ROWS * DIM * 4;
  const ids = tf.tidy(() => tf.cast(tf.floor(tf.mul(tf.randomUniform([N], 0, 1, 'float32', 7), ROWS)), 'int32'));
  const moved = N * DIM * 8 + N * 4; // rows read + written, indices
  const rows: {what: string; ms: number; GBs: number; note: string}[] = [];
  const gather = (what: string, memory: wm.nn.EmbeddingMemory, budget: number | null, note: string) => {
    wm.setManagedBudget(budget);
    const emb = wm.nn.embedding({rows: ROWS, dim: DIM, memory, init: {type: 'uniform', scale: 1, seed: 1}});
    const ms = timeMs(() => emb.read(ids).dispose());
    rows.push({what, ms, GBs: moved / ms / 1e6, note});
    emb.dispose();
    wm.setManagedBudget(null);
  };
  gather('(a) device memory', 'device', null, 'cudaMallocAsync pool');
  gather('(b) managed, resident on the GPU', 'managed', null, 'first touched by the GPU init kernel');
  gather(
    '(c) managed, preferred location host',
    'managed',
    tableBytes / 2,
    'budget below the table: advised to the host, read over the bus',
  );
  gather('(d) pinned host memory', 'host', null, 'cudaHostAlloc mapped, read over the bus');

  const b = wm.backend();
  // What the cache saves: allocation + free through the cache (hits) against
  // a cudaMallocManaged + cudaFree each time (misses, cache emptied).
  const allocRows: {size: string; hitUs: number; missUs: number}[] = [];
  for (const [size, bytes] of [
    ['4 KiB', 4096],
    ['2 MiB', 2 << 20],
    ['20 MiB', 20 << 20],
    ['200 MiB', 200 << 20],
  ] as const) {
    const cycle = (empty: boolean) => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < 20; ++i) {
        b.freeDevice(b.allocManaged(bytes));
        if (empty) b.native.managedEmptyCache();
      }
      return Number(process.hrtime.bigint() - t0) / 1e3 / 20;
    };
    b.freeDevice(b.allocManaged(bytes));
    const hitUs = cycle(false);
    b.native.managedEmptyCache();
    const missUs = cycle(true);
    allocRows.push({size, hitUs, missUs});
  }
  const buf = b.allocManaged(tableBytes);
  b.native.fill(0, buf, ROWS * DIM, 1); // pages now on the GPU
  const toHost = timeMs(
    () => {
      b.native.managedPrefetch(buf, tableBytes, -1);
      wm.synchronize();
      b.native.managedPrefetch(buf, tableBytes, wm.deviceInfo().device!);
    },
    3,
    1,
  );
  const both = timeMs(
    () => {
      b.native.managedPrefetch(buf, tableBytes, -1);
      b.native.managedPrefetch(buf, tableBytes, wm.deviceInfo().device!);
    },
    3,
    1,
  );
  b.freeDevice(buf);
  ids.dispose();
  wm.emptyCache();
  const prefetch = both / 2;
  console.log(
    `\nmanaged memory on ${wm.deviceInfo().name}: gather of ${N} random rows of ${DIM} float32 from a ${(tableBytes / 2 ** 30).toFixed(1)} GiB table`,
  );
  console.log('| table in | ms | GB/s (rows read + written) | note |');
  console.log('| --- | --- | --- | --- |');
  for (const r of rows) console.log(`| ${r.what} | ${r.ms.toFixed(3)} | ${r.GBs.toFixed(0)} | ${r.note} |`);
  console.log(
    `prefetch of ${(tableBytes / 2 ** 30).toFixed(1)} GiB: device -> host and back ${both.toFixed(1)} ms (${((2 * tableBytes) / both / 1e6).toFixed(1)} GB/s average); ` +
      `(device -> host then host -> device, synced between: ${toHost.toFixed(1)} ms); about ${(tableBytes / prefetch / 1e6).toFixed(1)} GB/s each way`,
  );
  console.log('| managed block | cached alloc + free µs | cudaMallocManaged + cudaFree µs |');
  console.log('| --- | --- | --- |');
  for (const r of allocRows) console.log(`| ${r.size} | ${r.hitUs.toFixed(1)} | ${r.missUs.toFixed(1)} |`);
  writeBenchResult('managed', {
    device: wm.deviceInfo().name,
    rows: ROWS,
    dim: DIM,
    n: N,
    gathers: rows,
    prefetchBothWaysMs: both,
    allocation: allocRows,
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

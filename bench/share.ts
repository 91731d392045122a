// `npm run bench:share`: a 1 GiB float32 tensor made by one process and used
// by another. Shared (wm.share / wm.open: CUDA IPC on a GPU, a memfd segment
// on the host): the time to open it and the read bandwidth through it (a
// sum over every element), against the same sum over a tensor this process
// owns; and against moving it through the host instead (the maker downloads
// it and writes a file in /dev/shm, the user reads it and uploads it).
import * as fs from 'fs';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {SharePeer} from '../test/fixtures/share_peer';
import {median, writeBenchResult} from './bench_util';

const root = path.resolve(__dirname, '..', '..');
const BYTES = Number(process.env.BENCH_BYTES ?? 1 << 30);
const N = BYTES / 4;

function sumMs(t: tf.Tensor, reps = 10): number {
  const times: number[] = [];
  for (let i = 0; i < reps + 2; ++i) {
    wm.synchronize();
    const t0 = process.hrtime.bigint();
    const s = tf.sum(t);
    s.dataSync();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    s.dispose();
  }
  return median(times.slice(2));
}

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const location: wm.SharedLocation = wm.deviceInfo().gpu ? 'device' : 'host';
  const p = await SharePeer.start();
  const {descriptor} = (await p.ask({cmd: 'share-fill', n: N, seed: 1, location})) as unknown as {descriptor: wm.SharedDescriptor};
  const t0 = process.hrtime.bigint();
  const shared = wm.open(descriptor);
  const openMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const sharedSum = sumMs(shared);
  const local = tf.fill([N], 1);
  const localSum = sumMs(local);
  // Through the host: the maker writes, this process reads and uploads.
  const file = path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : root, `wm-bench-share-${process.pid}.bin`);
  const {ms: writeMs} = (await p.ask({cmd: 'via-file', n: N, seed: 1, store: file})) as unknown as {ms: number};
  const r0 = process.hrtime.bigint();
  const buf = fs.readFileSync(file);
  const copied = tf.tensor(new Float32Array(buf.buffer, buf.byteOffset, N));
  if (location === 'device') (tf.backend() as unknown as {devicePtr(t: tf.Tensor): number}).devicePtr(copied);
  wm.synchronize();
  const readMs = Number(process.hrtime.bigint() - r0) / 1e6;
  fs.unlinkSync(file);
  const gbs = (ms: number) => (BYTES / ms / 1e6).toFixed(1);
  const where = location === 'device' ? `GPU memory of ${wm.deviceInfo().name} (CUDA IPC)` : 'host memory (memfd), CPU box';
  console.log(`\n${(BYTES / 2 ** 30).toFixed(2)} GiB float32 tensor made by another process, ${where}`);
  console.log('| | time | read GB/s (sum over every element) |');
  console.log('| --- | --- | --- |');
  console.log(`| wm.open(descriptor) | ${openMs.toFixed(2)} ms | ${gbs(sharedSum)} |`);
  console.log(`| a tensor this process made (reference) | | ${gbs(localSum)} |`);
  console.log(
    `| through the host: download + write file (maker), read + upload (user) | ${(writeMs + readMs).toFixed(0)} ms (${writeMs.toFixed(0)} + ${readMs.toFixed(0)}) | |`,
  );
  writeBenchResult('share', {
    location,
    device: wm.deviceInfo().name ?? 'cpu',
    bytes: BYTES,
    openMs,
    sharedSumMs: sharedSum,
    localSumMs: localSum,
    viaHostMs: writeMs + readMs,
    viaHostWriteMs: writeMs,
    viaHostReadMs: readMs,
  });
  wm.close(shared);
  tf.dispose([local, copied]);
  await p.ask({cmd: 'exit'});
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

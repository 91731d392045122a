// `npm run bench:allreduce` (GPUs): per-call time and bus bandwidth
// (2(n-1)/n x bytes / time) of comm.allReduce, back-to-back calls from Node,
// for bfloat16 and float32 on the wire: the automatic choice, each of our
// paths forced (one-shot, two-shot, NCCL through our C++, float32 only), set
// against PyTorch in the same run under torchrun (dist.all_reduce over NCCL;
// symmetric-memory one_shot_all_reduce / two_shot_all_reduce_, the latter also
// fed from and back to a float32 tensor as ours is), and the same
// calls queued from our C++ (the automatic path, and a plain ncclAllReduce
// loop) to separate Node's dispatch from the GPU's time. Bytes are the
// message's bytes in its wire type. Starts its own ranks.
import {spawnSync} from 'child_process';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../src/backend/backend_wholememory';
import {WIRE_CODES} from '../src/memory/allreduce';
import * as wm from '../src/index';
import {callWindowsUs, cpuProfileFromEnv, median, rankOrMain, resultOnRanks, writeBenchResult} from './bench_util';

const root = path.resolve(__dirname, '..', '..');
const GPU = wm.deviceInfo().gpu;
const SIZES = (
  process.env.BENCH_SIZES ??
  [
    1 << 10,
    16 << 10,
    64 << 10,
    256 << 10,
    512 << 10,
    1 << 20,
    2 << 20,
    4 << 20,
    8 << 20,
    16 << 20,
    ...(GPU ? [64 << 20, 256 << 20] : []),
  ].join(',')
)
  .split(',')
  .map(Number);

// BENCH_FORCED=0: the automatic path only; BENCH_TORCH=0: no PyTorch side (quick A/B runs of one path).
// Without GPUs the shared-memory path runs (float32 only, no forced paths), set against a plain copy
// of the message (Float32Array.set) timed in the same processes at the same moment.
const FORCED = process.env.BENCH_FORCED !== '0' && GPU;
const WIRES = (GPU ? (process.env.BENCH_WIRES ?? 'bfloat16,float32') : 'float32').split(',') as Array<'bfloat16' | 'float32'>;

interface Row {
  dtype: string;
  bytes: number;
  auto: number;
  autoHost: number;
  /** Every rank's host µs per call for the automatic path (rank order): the kernels wait for the slowest. */
  autoHostByRank?: number[];
  /** The automatic path's windows, µs per call in the order they ran. */
  autoWindows: number[];
  autoPath: string;
  oneShot?: number;
  twoShot?: number;
  nccl?: number;
  autoFromCpp?: number;
  ncclFromCpp?: number;
  copyUs?: number;
}

async function rank(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const comm = wm.communicatorFromEnv();
  const rows: Row[] = [];
  // Median µs per call over 9 windows, and the host's share (callWindowsUs).
  // Small messages measure the host path: V8 must have optimised it first (10 calls left the
  // first size measured, 1 KiB, slower than 64 KiB); large ones need few.
  const time = (x: tf.Tensor, opts: wm.AllReduceOptions, reps: number) =>
    callWindowsUs(
      () => comm.allReduce(x, opts)[0].dispose(),
      reps,
      x.size * 4 <= 1 << 20 ? 500 : 10,
      () => comm.barrier(),
    );
  // Untimed first, every call the sweep makes, for BENCH_WARM_MS of rank 0's clock (default 3000): after
  // 19,000 automatic calls alone the first size measured still came out slower than the same calls later in
  // the run (4 x H100: bfloat16 4 KiB 12.0-17.2 µs in every run, 6.4 from C++). The forced paths' option
  // objects, NCCL's communicator and its threads, and the C++ loops all come before the first window.
  const warmUp = tf.randomNormal([Math.max(1, Math.min(SIZES[0], 64 << 10) / 4)]);
  const b = tf.backend() as WholeMemoryBackend;
  const warmOut = GPU ? b.makeDeviceOutput(warmUp.shape, 'float32') : undefined;
  const warmMs = Number(process.env.BENCH_WARM_MS ?? 3000);
  const warmStart = Date.now();
  let warmRounds = 0;
  do {
    for (const wire of WIRES) {
      for (const algorithm of FORCED ? (['auto', 'one-shot', 'two-shot'] as const) : (['auto'] as const))
        for (let i = 0; i < 500; ++i) comm.allReduce(warmUp, {wire, algorithm})[0].dispose();
      if (FORCED && wire === 'float32') for (let i = 0; i < 100; ++i) comm.allReduce(warmUp, {algorithm: 'nccl'})[0].dispose();
      if (warmOut) {
        for (const algo of [1, 2, ...(wire === 'float32' && wm.ncclStatus().startsWith('NCCL') ? [3] : [])])
          comm.nativeComm.allReduceLoop(b.devicePtr(warmUp), warmOut.ptr, warmUp.size, WIRE_CODES[wire], algo, 100);
      }
    }
    ++warmRounds;
  } while (comm.allgatherJson(Date.now() - warmStart < warmMs, 'warm-up')[0]);
  if (warmOut) b.disposeData(warmOut.info.dataId);
  warmUp.dispose();
  const warmUpMs = Date.now() - warmStart;
  // BENCH_CPU_PROFILE=<dir>: where each rank's host time goes in the timed calls.
  const stopProfile = await cpuProfileFromEnv(`allreduce-rank${comm.rank}-of-${comm.size}`);
  // Size by size, every wire at each: measured wire after wire, the first wire's small messages took
  // more host time per call than the same calls later in the run (2 x H200: bfloat16 first
  // 9.2-11 µs, float32 first 7.0-8.8 for both).
  for (const bytes of SIZES) {
    for (const wire of WIRES) {
      const esize = wire === 'float32' ? 4 : 2;
      const x = tf.randomNormal([bytes / esize]);
      const reps = bytes <= 1 << 20 ? 200 : bytes <= 64 << 20 ? 50 : 10;
      const auto = time(x, {wire}, reps);
      const row: Row = {
        dtype: wire,
        bytes,
        auto: auto.us,
        autoHost: auto.hostUs,
        autoWindows: auto.windowsUs.map((us) => Math.round(us * 100) / 100),
        autoPath: comm.lastAllReducePath,
      };
      if (bytes <= 64 << 20 && FORCED) {
        row.oneShot = time(x, {wire, algorithm: 'one-shot'}, reps).us;
        row.twoShot = time(x, {wire, algorithm: 'two-shot'}, reps).us;
      }
      if (wire === 'float32' && FORCED) row.nccl = time(x, {algorithm: 'nccl'}, reps).us;
      if (GPU) {
        // The same calls queued from C++ (no Node dispatch), and a plain ncclAllReduce loop: the median of 5.
        const out = b.makeDeviceOutput(x.shape, 'float32');
        const loop = (algo: number) => {
          comm.nativeComm.allReduceLoop(b.devicePtr(x), out.ptr, x.size, WIRE_CODES[wire], algo, 10);
          return median(
            Array.from({length: 5}, () => comm.nativeComm.allReduceLoop(b.devicePtr(x), out.ptr, x.size, WIRE_CODES[wire], algo, reps)),
          );
        };
        row.autoFromCpp = loop(row.autoPath === 'two-shot' ? 2 : row.autoPath === 'nccl' ? 3 : 1);
        if (wire === 'float32' && wm.ncclStatus().startsWith('NCCL')) row.ncclFromCpp = loop(3);
        b.disposeData(out.info.dataId);
      }
      if (!GPU) {
        const src = new Float32Array(bytes / 4).fill(1),
          dst = new Float32Array(bytes / 4);
        const copies: number[] = [];
        for (let k = 0; k < 9; ++k) {
          comm.barrier();
          const t0 = process.hrtime.bigint();
          for (let i = 0; i < reps; ++i) dst.set(src);
          copies.push(Number(process.hrtime.bigint() - t0) / 1e3 / reps);
        }
        row.copyUs = median(copies);
      }
      rows.push(row);
      x.dispose();
    }
  }
  await stopProfile();
  const hostByRank = comm.allgatherJson(
    rows.map((r) => r.autoHost),
    'host µs',
  );
  rows.forEach((r, i) => (r.autoHostByRank = hostByRank.map((h) => Math.round(h[i] * 100) / 100)));
  rows.sort(
    (a, b) => WIRES.indexOf(a.dtype as 'bfloat16' | 'float32') - WIRES.indexOf(b.dtype as 'bfloat16' | 'float32') || a.bytes - b.bytes,
  );
  const cpuBinding = comm.allgatherJson(wm.deviceInfo().cpuBinding ?? '', 'CPU binding');
  if (comm.rank === 0) process.stdout.write(`OURS ${JSON.stringify({rows, warmUpMs, warmRounds, cpuBinding})}\n`);
  comm.destroy();
}

function main(): void {
  if (!GPU) return mainCpu();
  const n = Number(process.env.BENCH_RANKS ?? wm.deviceInfo().deviceCount);
  if (!(n >= 2)) {
    console.log(`bench:allreduce needs at least two GPUs (${wm.deviceInfo().deviceCount} here)`);
    return;
  }
  const torch =
    process.env.BENCH_TORCH === '0'
      ? {stdout: '', stderr: 'BENCH_TORCH=0'}
      : spawnSync(
          'python3',
          ['-m', 'torch.distributed.run', '--standalone', `--nproc_per_node=${n}`, path.join(root, 'bench', 'torch', 'allreduce.py')],
          {encoding: 'utf8', env: {...process.env, NCCL_NVLS_ENABLE: '0', BENCH_SIZES: SIZES.join(',')}},
        );
  const torchLine = (torch.stdout || '').split('\n').find((l) => l.startsWith('{'));
  const ref = torchLine ? JSON.parse(torchLine) : undefined;
  if (!ref) console.log(`(PyTorch side not run: ${(torch.stderr || '').trim().split('\n').slice(-3).join(' ')})`);
  const {rows, warmUpMs, warmRounds, cpuBinding} = resultOnRanks<{rows: Row[]; warmUpMs: number; warmRounds: number; cpuBinding: string[]}>(
    n,
    __filename,
    'OURS ',
  );
  const bus = (bytes: number, us?: number) => (us ? ((((2 * (n - 1)) / n) * bytes) / us / 1e3).toFixed(0) : '');
  const f = (us?: number) => (us === undefined ? '' : us.toFixed(1));
  const slowest = (r: Row) => {
    const h = r.autoHostByRank ?? [r.autoHost];
    const worst = h.indexOf(Math.max(...h));
    return `${f(h[worst])} (rank ${worst})`;
  };
  console.log(
    `\nall-reduce on ${n} x ${wm.deviceInfo().name}, back-to-back calls after ${warmUpMs} ms of warm-up (${warmRounds} rounds); µs per call (bus GB/s)`,
  );
  console.log(
    '| wire | bytes | ours auto | host µs, rank 0 / slowest | path | ours from C++ | ours one-shot | ours two-shot | ours NCCL (f32) | NCCL from C++ | torch NCCL | torch one-shot | torch two-shot | torch two-shot, f32 in/out |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    const t = ref?.results.find((x: {dtype: string; bytes: number}) => x.dtype === r.dtype && x.bytes === r.bytes);
    console.log(
      `| ${r.dtype} | ${r.bytes} | ${f(r.auto)} (${bus(r.bytes, r.auto)}) | ${f(r.autoHost)} / ${slowest(r)} | ${r.autoPath} | ${f(r.autoFromCpp)} | ${f(r.oneShot)} | ${f(r.twoShot)} | ${f(r.nccl)} | ${f(r.ncclFromCpp)} | ` +
        `${t ? `${f(t.ncclUs)} (${bus(r.bytes, t.ncclUs)})` : ''} | ${f(t?.oneShotUs)} | ${f(t?.twoShotUs)} | ${f(t?.twoShotFloat32Us)} |`,
    );
  }
  if (ref) console.log(`torch ${ref.torch}, NCCL ${ref.nccl}; ours: ${wm.ncclStatus()}`);
  console.log(`ranks' CPUs (WM_CPU_BIND): ${cpuBinding.map((c, r) => `rank ${r}: ${c}`).join('; ')}`);
  writeBenchResult('allreduce', {ranks: n, device: wm.deviceInfo().name, warmUpMs, cpuBinding, ours: rows, torch: ref});
}

function mainCpu(): void {
  const n = Number(process.env.BENCH_RANKS ?? 2);
  const {rows} = resultOnRanks<{rows: Row[]}>(n, __filename, 'OURS ');
  console.log(`\nall-reduce on the CPU: ${n} processes over shared memory (${wm.deviceInfo().reason ?? 'no GPU'}), µs per call`);
  console.log('| bytes | ours | ours GB/s | copy of the message (Float32Array.set) | ours / copy |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const r of rows) {
    console.log(
      `| ${r.bytes} | ${r.auto.toFixed(1)} | ${(r.bytes / r.auto / 1e3).toFixed(2)} | ${r.copyUs!.toFixed(1)} | ${(r.auto / r.copyUs!).toFixed(1)} |`,
    );
  }
  writeBenchResult('allreduce-cpu', {ranks: n, device: 'cpu', ours: rows});
}

rankOrMain(rank, main);

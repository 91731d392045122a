// `npm run bench:embedding` (GPU): embedding gather and sparse optimizer
// steps on a 10M-row table with 1M random indices, set against PyTorch on
// the same GPU in the same run (bench/torch/embedding.py, run first so the
// two never hold GPU memory at once) and against a device-to-device copy.
// On the CPU: host gather/scatter against a plain memcpy of the same bytes.

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {timeMs, torchJson, writeBenchResult} from './bench_util';

const ROWS = Number(process.env.BENCH_ROWS ?? (wm.deviceInfo().gpu ? 10_000_000 : 1_000_000));
const N = Number(process.env.BENCH_N ?? (wm.deviceInfo().gpu ? 1_000_000 : 200_000));

interface Row {
  op: string;
  dim: number;
  dtype: string;
  ms: number;
  TBs: number;
}

function torchSide(): {copyTBs: number; results: Row[]; torch: string} | undefined {
  return torchJson<{copyTBs: number; results: Row[]; torch: string}>('embedding.py', [String(ROWS), String(N)]);
}

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const gpu = wm.deviceInfo().gpu;
  const torch = gpu ? torchSide() : undefined;
  const rows: Row[] = [];
  const b = wm.backend();
  // Reference rate: a plain copy of 1 GiB (read + write counted).
  let copyTBs: number;
  if (gpu) {
    const src = b.allocDevice(1 << 30),
      dst = b.allocDevice(1 << 30);
    copyTBs = (2 * (1 << 30)) / timeMs(() => b.native.copyDeviceToDevice(dst, src, 1 << 30)) / 1e9;
    b.freeDevice(src);
    b.freeDevice(dst);
  } else {
    const src = new Uint8Array(1 << 28).fill(1),
      dst = new Uint8Array(1 << 28);
    copyTBs = (2 * (1 << 28)) / timeMs(() => dst.set(src), 5, 1) / 1e9;
  }
  const ids = tf.tidy(() => tf.cast(tf.floor(tf.mul(tf.randomUniform([N], 0, 1, 'float32', 7), ROWS)), 'int32'));
  const configs: [number, wm.nn.EmbeddingDType][] = gpu
    ? [
        [32, 'float32'],
        [128, 'float32'],
        [512, 'float32'],
        [128, 'float16'],
        [128, 'bfloat16'],
      ]
    : [
        [32, 'float32'],
        [128, 'float32'],
        [128, 'bfloat16'],
      ];
  for (const [dim, dtype] of configs) {
    const esz = dtype === 'float32' ? 4 : 2;
    const emb = wm.nn.embedding({rows: ROWS, dim, dtype, init: {type: 'uniform', scale: 1, seed: 5}});
    // Bytes the gather must move: rows read in storage, float32 written, indices read.
    const moved = N * dim * (esz + 4) + N * 4;
    const ms = timeMs(() => emb.read(ids).dispose());
    rows.push({op: 'gather', dim, dtype, ms, TBs: moved / ms / 1e9});
    if (dim !== 128) {
      emb.dispose();
      continue;
    }
    const grads = tf.randomNormal([N, dim], 0, 1, 'float32', 3);
    // Updates: float32 values read, each touched row read and written in storage, each float32 state read and written.
    const updateBytes = (states: number) => N * dim * (4 + 2 * esz + 8 * states) + N * 4;
    const addMs = timeMs(() => emb.add(ids, grads), 10, 2);
    rows.push({op: 'scatter add', dim, dtype, ms: addMs, TBs: updateBytes(0) / addMs / 1e9});
    emb.dispose();
    const steps = [
      ['sgd', wm.nn.sgd, 0],
      ['adam', wm.nn.adam, 2],
      ['adagrad', wm.nn.adagrad, 1],
      ['rmsprop', wm.nn.rmsprop, 1],
    ] as const;
    for (const [name, make, states] of steps.filter(([name]) => dtype === 'float32' || name === 'sgd' || name === 'adam')) {
      const t = wm.nn.embedding({rows: ROWS, dim, dtype, optimizer: make({lr: 0.01}), init: {type: 'uniform', scale: 1, seed: 5}});
      const stepMs = timeMs(() => t.applyGradients(ids, grads), 10, 2);
      rows.push({op: `step ${name}`, dim, dtype, ms: stepMs, TBs: updateBytes(states) / stepMs / 1e9});
      t.dispose();
    }
    grads.dispose();
  }
  // Rows read over the bus: a float16 table in pinned host memory, against the copy engine moving the
  // same bytes from it (the link's rate); the gather reads N rows of 256 bytes and writes float32.
  let hostRows: {ms: number; GBs: number; copyGBs: number; share: number} | undefined;
  if (gpu) {
    const dim = 128;
    const emb = wm.nn.embedding({rows: ROWS, dim, dtype: 'float16', memory: 'host', init: {type: 'uniform', scale: 1, seed: 5}});
    const ms = timeMs(() => emb.read(ids).dispose());
    const table = (emb as unknown as {store: {table: {ptr: number}}}).store.table.ptr;
    const dst = b.allocDevice(N * dim * 2);
    const copyMs = timeMs(() => b.native.copyDeviceToDevice(dst, table, N * dim * 2));
    b.freeDevice(dst);
    emb.dispose();
    const GBs = (N * dim * 2) / ms / 1e6,
      copyGBs = (N * dim * 2) / copyMs / 1e6;
    hostRows = {ms, GBs, copyGBs, share: GBs / copyGBs};
  }
  ids.dispose();

  const where = gpu ? wm.deviceInfo().name : 'CPU (2 cores here)';
  console.log(`\nembedding tables: ${ROWS} rows, ${N} random indices, on ${where}; device copy ${copyTBs.toFixed(2)} TB/s (read + write)`);
  // Gathers against torch's gather of the same rows; updates against torch's index_add_ of float32 rows (its
  // fastest scatter; it moves 3 units per element, an Adam step 7): both the time ratio and the bytes/s ratio.
  console.log(
    '| op | dim | storage | ours ms | ours GB/s | % of copy | torch op | torch ms | torch GB/s | torch ms / ours ms | ours GB/s / torch GB/s |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    const ref = torch?.results.find((x) =>
      r.op === 'gather' ? x.op === 'gather' && x.dim === r.dim && x.dtype === r.dtype : x.op === 'index_add_' && x.dim === r.dim,
    );
    const cells = ref
      ? [ref.op, ref.ms.toFixed(3), (1000 * ref.TBs).toFixed(0), `${(ref.ms / r.ms).toFixed(2)}x`, `${(r.TBs / ref.TBs).toFixed(2)}x`]
      : ['', '', '', '', ''];
    console.log(
      `| ${r.op} | ${r.dim} | ${r.dtype} | ${r.ms.toFixed(3)} | ${(1000 * r.TBs).toFixed(0)} | ${((100 * r.TBs) / copyTBs).toFixed(0)}% | ${cells.join(' | ')} |`,
    );
  }
  if (torch) console.log(`torch ${torch.torch}: its device copy ${torch.copyTBs.toFixed(2)} TB/s`);
  if (hostRows) {
    console.log(
      `pinned host table (${ROWS} x 128 float16): gather of ${N} random rows ${hostRows.ms.toFixed(2)} ms, ` +
        `${hostRows.GBs.toFixed(1)} GB/s of rows read = ${(100 * hostRows.share).toFixed(0)}% of the copy engine's ` +
        `${hostRows.copyGBs.toFixed(1)} GB/s from the same memory`,
    );
  }
  writeBenchResult('embedding', {rows: ROWS, n: N, device: where, copyTBs, ours: rows, torch, hostRows});
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

// `npm run bench:wholememory` (GPU; starts its own ranks, one per GPU):
// gather bandwidth per GPU from continuous (CUDA VMM), chunked (CUDA IPC) and
// distributed (NCCL all-to-all, every rank gathering at once) WholeMemory with uniform random rows — (n-1)/n of them on other GPUs —
// against the same gather restricted to the rank's own rows. Rank 0 prints
// the table and writes JSON.
import {spawnSync} from 'child_process';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {rankOrMain, timeMs, writeBenchResult} from './bench_util';

const root = path.resolve(__dirname, '..', '..');
const DIM = 128;
const N = Number(process.env.BENCH_N ?? 1_000_000);

async function rank(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const comm = wm.communicatorFromEnv();
  const rowsPerRank = Number(process.env.BENCH_ROWS_PER_RANK ?? 2_000_000);
  const rows = rowsPerRank * comm.size;
  const results: {type: string; randomGBs: number; localGBs: number; remoteFraction: number}[] = [];
  for (const type of ['continuous', 'chunked', 'distributed'] as const) {
    const t = comm.malloc({type, location: 'device', shape: [rows, DIM]});
    const {first, count} = t.localRange;
    const fillValues = new Float32Array(count * DIM);
    for (let i = 0; i < fillValues.length; ++i) fillValues[i] = (i % 9973) * 0.001 + comm.rank;
    t.writeLocal(fillValues);
    comm.barrier();
    const anywhere = tf.tidy(() => tf.cast(tf.floor(tf.mul(tf.randomUniform([N], 0, 1, 'float32', 11 + comm.rank), rows)), 'int32'));
    const local = tf.tidy(() => tf.cast(tf.add(tf.floor(tf.mul(tf.randomUniform([N], 0, 1, 'float32', 13), count)), first), 'int32'));
    const bytes = N * DIM * 4; // rows read (the written copy is local)
    const randomMs = timeMs(() => t.gather(anywhere).dispose());
    const localMs = timeMs(() => t.gather(local).dispose());
    results.push({type, randomGBs: bytes / randomMs / 1e6, localGBs: bytes / localMs / 1e6, remoteFraction: (comm.size - 1) / comm.size});
    tf.dispose([anywhere, local]);
    comm.barrier();
    t.free();
  }
  const all = comm.allgatherJson(results, 'bench results');
  if (comm.rank === 0) {
    console.log(
      `\nWholeMemory gather on ${comm.size} x ${wm.deviceInfo().name}: ${N} random rows of ${DIM} float32 per GPU from ${rows} rows`,
    );
    console.log('| type | rank | random rows GB/s (read) | of which remote GB/s | own rows only GB/s |');
    console.log('| --- | --- | --- | --- | --- |');
    all.forEach((rs, r) =>
      rs.forEach((x) =>
        console.log(
          `| ${x.type} | ${r} | ${x.randomGBs.toFixed(0)} | ${(x.randomGBs * x.remoteFraction).toFixed(0)} | ${x.localGBs.toFixed(0)} |`,
        ),
      ),
    );
    writeBenchResult('wholememory', {ranks: comm.size, device: wm.deviceInfo().name, n: N, dim: DIM, rows, results: all});
  }
  comm.destroy();
}

// Started directly: one rank per GPU.
rankOrMain(rank, () => {
  const n = Number(process.env.BENCH_RANKS ?? wm.deviceInfo().deviceCount);
  if (!(n >= 1)) {
    console.log(`bench:wholememory needs GPUs (${wm.deviceInfo().reason})`);
    process.exit(0);
  }
  const r = spawnSync(process.execPath, [path.join(root, 'dist', 'bin', 'tfjs-wm-run.js'), '-n', String(n), __filename], {
    stdio: 'inherit',
  });
  process.exit(r.status ?? 1);
});

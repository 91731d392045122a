// The CPU matrix product (tf.matMul on the 'wholememory' backend's C++ core) beside NumPy/OpenBLAS in the
// same run, same threads, float32: the shapes GNN training makes (X·W, Xᵀ·dY, dY·Wᵀ on Cora, CiteSeer and
// ogbn-arxiv widths; tall-skinny and wide-short; batched; every transpose variant). Both sides are timed
// alike, as a loop calls them: warmed up for 300 ms (the JavaScript engine optimises the op path over its first thousands of calls), then 9 windows of back-to-back calls of at least 2 ms
// each, the median window's ms per call; then the median over BENCH_ROUNDS rounds.
// `npm run bench:matmul-cpu`; TFJS_WHOLEMEMORY_DEVICE=cpu on a GPU machine.
import * as os from 'os';

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {callWindowsUs, envPositiveInt, median, timeTensorsMs, torchJson, writeBenchResult} from './bench_util';

type Shape = [batch: number, m: number, n: number, k: number, transA: boolean, transB: boolean, what: string];

const SHAPES: Shape[] = [
  [1, 2708, 16, 1433, false, false, 'Cora X·W'],
  [1, 1433, 16, 2708, true, false, 'Cora Xᵀ·dY'],
  [1, 2708, 1433, 16, false, true, 'Cora dY·Wᵀ'],
  [1, 2708, 7, 16, false, false, 'Cora H·W2'],
  [1, 16, 7, 2708, true, false, 'Cora Hᵀ·dY2'],
  [1, 3327, 16, 3703, false, false, 'CiteSeer X·W'],
  [1, 3703, 16, 3327, true, false, 'CiteSeer Xᵀ·dY'],
  [1, 169343, 256, 128, false, false, 'arxiv X·W (tall)'],
  [1, 128, 256, 169343, true, false, 'arxiv Xᵀ·dY (long k)'],
  [1, 169343, 128, 256, false, true, 'arxiv dY·Wᵀ'],
  [1, 256, 256, 256, false, false, 'square 256'],
  [1, 1024, 1024, 1024, false, false, 'square 1024'],
  [1, 1024, 1024, 1024, true, true, 'square 1024 ᵀ·ᵀ'],
  [1, 64, 4096, 64, false, false, 'wide-short'],
  [64, 128, 64, 128, false, false, 'batched 64×'],
  [64, 128, 64, 128, true, true, 'batched 64× ᵀ·ᵀ'],
];

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  // Rounds of ours then NumPy's, each side's figure the median over rounds: a shared machine's slow spells
  // fall on both sides alike instead of on whichever ran in them.
  const rounds = envPositiveInt('BENCH_ROUNDS', 3);
  const threads = wm.deviceInfo().hostThreads;
  process.env.OPENBLAS_NUM_THREADS = String(threads);
  const oursRounds: number[][] = [],
    npRounds: number[][] = [];
  let np: {ms: number[]; numpy: string; blas: string} | undefined;
  for (let r = 0; r < rounds; ++r) {
    oursRounds.push(
      SHAPES.map(([batch, m, n, k, ta, tb]) => {
        const a = tf.randomNormal(batch === 1 ? (ta ? [k, m] : [m, k]) : ta ? [batch, k, m] : [batch, m, k], 0, 1, 'float32', 1);
        const b = tf.randomNormal(batch === 1 ? (tb ? [n, k] : [k, n]) : tb ? [batch, n, k] : [batch, k, n], 0, 1, 'float32', 2);
        const call = () => tf.dispose(tf.matMul(a, b, ta, tb));
        const once = timeTensorsMs(() => tf.matMul(a, b, ta, tb), 1, 1);
        const ms = callWindowsUs(call, Math.max(1, Math.ceil(2 / once)), Math.ceil(300 / once)).us / 1e3;
        tf.dispose([a, b]);
        return ms;
      }),
    );
    np = torchJson<{ms: number[]; numpy: string; blas: string}>('matmul_numpy.py', [JSON.stringify(SHAPES.map((s) => s.slice(0, 6)))]);
    if (np) npRounds.push(np.ms);
  }
  const medianOver = (runs: number[][], i: number) => median(runs.map((r) => r[i]));
  const ours = SHAPES.map((_, i) => medianOver(oursRounds, i));
  if (np) np = {...np, ms: SHAPES.map((_, i) => medianOver(npRounds, i))};
  const rows = SHAPES.map((s, i) => {
    const [batch, m, n, k, ta, tb, what] = s;
    return {what, batch, m, n, k, transA: ta, transB: tb, oursMs: ours[i], numpyMs: np?.ms[i], ratio: np ? ours[i] / np.ms[i] : undefined};
  });
  writeBenchResult('matmul_cpu', {
    machine: `${os.cpus()[0].model}, ${threads} threads`,
    numpy: np?.numpy,
    blas: np?.blas,
    timing: 'warm 300 ms; median of 9 windows of calls of >= 2 ms',
    rounds,
    rows,
  });
  console.log(`threads ${threads}; NumPy ${np?.numpy ?? '-'} (${np?.blas ?? 'not run'})`);
  console.log('shape                      ours ms   numpy ms   ours/numpy');
  for (const r of rows)
    console.log(
      `${r.what.padEnd(26)} ${r.oursMs.toFixed(3).padStart(8)} ${(r.numpyMs?.toFixed(3) ?? '-').padStart(10)} ${(r.ratio?.toFixed(2) ?? '-').padStart(10)}`,
    );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

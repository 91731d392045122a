// Embedding tables: gathers and sparse optimizer steps against a float64
// reference on random data (duplicates, unsorted, last row, empty batch),
// every storage type and memory kind available here.
import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import type {NativeTable} from '../src/native/handles';
import {embeddingNative} from '../src/native/domains';
import {rng} from './helpers';

// 'distributed' here is a group of one process (on a GPU: NCCL with one rank); several ranks: whole_memory.test.ts.
const memories = (): wm.nn.EmbeddingMemory[] =>
  wm.deviceInfo().gpu
    ? ['device', 'managed', 'host', 'continuous', 'chunked', 'distributed']
    : ['host', 'managed', 'continuous', 'chunked', 'distributed'];
const DTYPES: wm.nn.EmbeddingDType[] = ['float32', 'float16', 'bfloat16'];
// Relative rounding of each storage type.
const TOL: {[d in wm.nn.EmbeddingDType]: number} = {float32: 2e-6, float16: 1e-3, bfloat16: 8e-3};

function randomRows(n: number, dim: number, seed: number): Float64Array {
  const r = rng(seed);
  return Float64Array.from({length: n * dim}, () => r() * 4 - 2);
}

function randomIds(n: number, rows: number, seed: number): Int32Array {
  const r = rng(seed);
  const ids = Int32Array.from({length: n}, () => Math.floor(r() * rows));
  if (n >= 3) {
    ids[0] = rows - 1; // the last row
    ids[1] = ids[2]; // a duplicate
  }
  return ids;
}

function expectNear(got: ArrayLike<number>, want: ArrayLike<number>, rel: number, what: string): void {
  expect(got.length, `${what}: length`).to.equal(want.length);
  for (let i = 0; i < want.length; ++i) {
    const tol = rel * Math.max(1, Math.abs(want[i]));
    if (!(Math.abs(got[i] - want[i]) <= tol)) expect.fail(`${what}: [${i}] = ${got[i]}, expected ${want[i]} (±${tol})`);
  }
}

type Rule = (w: number, g: number, s: number[], t: number) => number;
const RULES: {[k: string]: [wm.nn.SparseOptimizerConfig, Rule]} = {
  sgd: [wm.nn.sgd({lr: 0.1, weightDecay: 0.01}), (w, g) => w - 0.1 * (g + 0.01 * w)],
  adam: [
    wm.nn.adam({lr: 0.05}),
    (w, g, s, t) => {
      s[0] = 0.9 * s[0] + 0.1 * g;
      s[1] = 0.999 * s[1] + 0.001 * g * g;
      return w - (0.05 * (s[0] / (1 - 0.9 ** t))) / (Math.sqrt(s[1] / (1 - 0.999 ** t)) + 1e-8);
    },
  ],
  adagrad: [
    wm.nn.adagrad({lr: 0.1}),
    (w, g, s) => {
      s[0] += g * g;
      return w - (0.1 * g) / (Math.sqrt(s[0]) + 1e-10);
    },
  ],
  rmsprop: [
    wm.nn.rmsprop({lr: 0.01, rho: 0.8}),
    (w, g, s) => {
      s[0] = 0.8 * s[0] + 0.2 * g * g;
      return w - (0.01 * g) / (Math.sqrt(s[0]) + 1e-8);
    },
  ],
};

describe('wm.nn.embedding', () => {
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  for (const memory of memories()) {
    for (const dtype of DTYPES) {
      it(`gathers random rows: ${memory} ${dtype}`, () => {
        for (const [rows, dim] of [
          [1, 1],
          [37, 5],
          [300, 128],
          [64, 33],
        ]) {
          const emb = wm.nn.embedding({rows, dim, dtype, memory});
          const values = randomRows(rows, dim, rows + dim);
          emb.write(
            Int32Array.from({length: rows}, (_, i) => i),
            Float32Array.from(values),
          );
          // 5,000: past the size from which pinned host tables are read in row order (sorted, then placed back).
          for (const n of [0, 1, 7, 200, 5000]) {
            const ids = randomIds(n, rows, n + 1);
            const got = emb.read(ids);
            expect(got.shape).to.deep.equal([n, dim]);
            const want = Float64Array.from({length: n * dim}, (_, k) => values[ids[Math.floor(k / dim)] * dim + (k % dim)]);
            expectNear(got.dataSync(), want, TOL[dtype], `${memory} ${dtype} ${rows}x${dim} n=${n}`);
            got.dispose();
          }
          expect(() => emb.read([0, rows])).to.throw(new RegExp(`index ${rows} at position 1 is outside the table's ${rows} rows`));
          expect(() => emb.read([-1])).to.throw(/index -1 at position 0/);
          emb.dispose();
        }
      });
    }

    for (const [name, [config, rule]] of Object.entries(RULES)) {
      for (const dtype of name === 'adam' ? DTYPES : (['float32'] as wm.nn.EmbeddingDType[])) {
        it(`${name} updates only touched rows, merging duplicates: ${memory} ${dtype}`, () => {
          const rows = 50,
            dim = 6;
          const emb = wm.nn.embedding({rows, dim, dtype, memory, optimizer: config});
          const start = randomRows(rows, dim, 7);
          emb.write(
            Int32Array.from({length: rows}, (_, i) => i),
            Float32Array.from(start),
          );
          const stored = Float64Array.from(emb.read(Int32Array.from({length: rows}, (_, i) => i)).dataSync());
          const ref = Float64Array.from(stored);
          const state = Array.from({length: rows * dim}, () => [0, 0]);
          for (let t = 1; t <= 3; ++t) {
            const ids = randomIds(t === 2 ? 0 : 40, rows, 100 + t);
            const g = randomRows(ids.length, dim, 200 + t);
            const grads = tf.tensor2d(Float32Array.from(g), [ids.length, dim]);
            emb.applyGradients(ids, grads);
            grads.dispose();
            const sum = new Map<number, Float64Array>();
            ids.forEach((r, i) => {
              const acc = sum.get(r) ?? new Float64Array(dim);
              for (let j = 0; j < dim; ++j) acc[j] += Math.fround(g[i * dim + j]);
              sum.set(r, acc);
            });
            for (const [r, acc] of sum)
              for (let j = 0; j < dim; ++j) ref[r * dim + j] = rule(ref[r * dim + j], acc[j], state[r * dim + j], t);
          }
          const got = emb.read(Int32Array.from({length: rows}, (_, i) => i)).dataSync();
          expectNear(got, ref, dtype === 'float32' ? 1e-5 : TOL[dtype] * 2, `${name} ${memory} ${dtype}`);
          // Rows no step touched are bit-for-bit unchanged.
          const touched = new Set([...randomIds(40, rows, 101), ...randomIds(40, rows, 103)]);
          for (let r = 0; r < rows; ++r) {
            if (touched.has(r)) continue;
            for (let j = 0; j < dim; ++j) expect(got[r * dim + j]).to.equal(stored[r * dim + j]);
          }
          emb.dispose();
        });
      }
    }

    // Ids with runs of one row longer than a warp's 32 sorted positions (the GPU step sums runs across warps).
    const longRunIds = (n: number, rows: number, seed: number): Int32Array => {
      const ids = randomIds(n, rows, seed);
      for (let i = 0; i < Math.min(n, 75); ++i) ids[(i * 7) % n] = Math.floor(rows / 3);
      return ids;
    };
    // Hot rows: one row 1,000 times (a run over 30-odd windows), one 64 times, one 32 times, among random ids.
    const hotIds = (rows: number, seed: number): Int32Array => {
      const ids = randomIds(1300, rows, seed);
      for (let i = 0; i < 1000; ++i) ids[i] = 1;
      for (let i = 1000; i < 1064; ++i) ids[i] = 2;
      for (let i = 1064; i < 1096; ++i) ids[i] = rows - 1;
      const r = rng(seed + 1);
      for (let i = ids.length - 1; i > 0; --i) {
        const j = Math.floor(r() * (i + 1));
        [ids[i], ids[j]] = [ids[j], ids[i]];
      }
      return ids;
    };
    const sumByRow = (ids: Int32Array, g: Float64Array, dim: number): Map<number, Float64Array> => {
      const sum = new Map<number, Float64Array>();
      ids.forEach((r, i) => {
        const acc = sum.get(r) ?? new Float64Array(dim);
        for (let j = 0; j < dim; ++j) acc[j] += Math.fround(g[i * dim + j]);
        sum.set(r, acc);
      });
      return sum;
    };

    for (const dtype of DTYPES) {
      it(`add() scatter-adds rows, summing repeated ids, without an optimizer: ${memory} ${dtype}`, () => {
        for (const [rows, dim, n] of [
          [1, 1, 3],
          [50, 33, 120],
          [300, 128, 400],
          [40, 260, 90],
          [20, 4, 0],
        ]) {
          const emb = wm.nn.embedding({rows, dim, dtype, memory});
          const all = Int32Array.from({length: rows}, (_, i) => i);
          emb.write(all, Float32Array.from(randomRows(rows, dim, rows + dim)));
          const ref = Float64Array.from(emb.read(all).dataSync());
          const ids = longRunIds(n, rows, n + dim);
          const v = randomRows(n, dim, 3 * n + 1);
          const values = tf.tensor2d(Float32Array.from(v), [n, dim]);
          emb.add(ids, values);
          values.dispose();
          for (const [r, acc] of sumByRow(ids, v, dim)) for (let j = 0; j < dim; ++j) ref[r * dim + j] += acc[j];
          expectNear(
            emb.read(all).dataSync(),
            ref,
            dtype === 'float32' ? 1e-5 : TOL[dtype] * 2,
            `add ${memory} ${dtype} ${rows}x${dim} n=${n}`,
          );
          expect(emb.stepCount).to.equal(0);
          expect(() => emb.add([0], tf.zeros([1, dim + 1]))).to.throw(/embedding.add: values must be float32 with 1 x/);
          expect(() => emb.add([rows], tf.ones([1, dim]))).to.throw(
            new RegExp(`index ${rows} at position 0 is outside the table's ${rows} rows`),
          );
          emb.dispose();
        }
      });
    }

    it(`adam over wide rows and runs of one row longer than 32 positions: ${memory}`, () => {
      const [config, rule] = RULES.adam;
      for (const [rows, dim, hot] of [
        [90, 128, 0],
        [30, 260, 0],
        [64, 33, 0],
        [70, 36, 1],
        [50, 7, 1],
      ]) {
        const emb = wm.nn.embedding({rows, dim, memory, optimizer: config});
        const all = Int32Array.from({length: rows}, (_, i) => i);
        emb.write(all, Float32Array.from(randomRows(rows, dim, 11 + dim)));
        const ref = Float64Array.from(emb.read(all).dataSync());
        const state = Array.from({length: rows * dim}, () => [0, 0]);
        for (let t = 1; t <= 2; ++t) {
          const ids = hot ? hotIds(rows, 40 + t) : longRunIds(150, rows, 40 + t);
          const g = randomRows(ids.length, dim, 60 + t);
          const grads = tf.tensor2d(Float32Array.from(g), [ids.length, dim]);
          emb.applyGradients(ids, grads);
          grads.dispose();
          for (const [r, acc] of sumByRow(ids, g, dim))
            for (let j = 0; j < dim; ++j) ref[r * dim + j] = rule(ref[r * dim + j], acc[j], state[r * dim + j], t);
        }
        expectNear(emb.read(all).dataSync(), ref, 1e-5, `adam ${memory} ${rows}x${dim}`);
        emb.dispose();
      }
    });

    it(`skips NaN/Inf gradient elements and counts them; bad indices change nothing: ${memory}`, () => {
      const emb = wm.nn.embedding({rows: 4, dim: 3, memory, optimizer: wm.nn.sgd({lr: 1})});
      emb.write([0, 1, 2, 3], Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]));
      const g = tf.tensor2d([
        [1, NaN, 1],
        [Infinity, 1, 1],
      ]);
      emb.applyGradients([1, 3], g);
      expect(Array.from(emb.read([1, 3]).dataSync())).to.deep.equal([3, 5, 5, 10, 10, 11]);
      expect(emb.skippedGradients()).to.equal(2);
      const before = Array.from(emb.read([0, 1, 2, 3]).dataSync());
      expect(() => emb.applyGradients([0, 4], g)).to.throw(/index 4 at position 1 is outside the table's 4 rows/);
      expect(Array.from(emb.read([0, 1, 2, 3]).dataSync())).to.deep.equal(before);
      g.dispose();
      emb.dispose();
    });
  }

  it('pinned host tables read in row order: device-only ids, int64 ids, a bad index reported at its position', function () {
    if (!wm.deviceInfo().gpu) this.skip();
    const rows = 30_000,
      n = 20_000;
    for (const dim of [3, 128]) {
      const host = wm.nn.embedding({rows, dim, dtype: 'float16', memory: 'host', init: {type: 'normal', seed: 5}});
      const device = wm.nn.embedding({rows, dim, dtype: 'float16', memory: 'device', init: {type: 'normal', seed: 5}});
      try {
        const ids = randomIds(n, rows, 9);
        // Made on the GPU (no host copy): the kernel checks them, and the host ids check cannot run first.
        const onDevice = () => tf.tidy(() => tf.add(tf.tensor1d(ids, 'int32'), tf.zerosLike(tf.tensor1d(ids, 'int32'))));
        const idx = onDevice();
        const a = host.read(idx),
          b = device.read(ids);
        expect(Array.from(a.dataSync())).to.deep.equal(Array.from(b.dataSync()));
        tf.dispose([a, b, idx]);
        ids[12_345] = rows + 7;
        const bad = onDevice();
        expect(() => host.read(bad)).to.throw(new RegExp(`index ${rows + 7} at position 12345 is outside the table's ${rows} rows`));
        bad.dispose();
        // int64 indices through the op itself, against the int32 gather.
        ids[12_345] = 4;
        const b2 = wm.backend();
        const table = (host as unknown as {store: {table: NativeTable}}).store.table;
        const ids64 = b2.allocDevice(n * 8),
          ids32 = b2.allocDevice(n * 4),
          out64 = b2.allocDevice(n * dim * 4),
          out32 = b2.allocDevice(n * dim * 4);
        embeddingNative().upload(
          ids64,
          BigInt64Array.from(ids, (v) => BigInt(v)),
        );
        embeddingNative().upload(ids32, ids);
        embeddingNative().embeddingGather(table, ids64, 1, n, out64, 0);
        embeddingNative().embeddingGather(table, ids32, 0, n, out32, 0);
        const x = new Float32Array(n * dim),
          y = new Float32Array(n * dim);
        embeddingNative().download(out64, x);
        embeddingNative().download(out32, y);
        expect(x.some((v) => v !== 0)).to.equal(true);
        expect(Array.from(x)).to.deep.equal(Array.from(y));
        [ids64, ids32, out64, out32].forEach((p) => b2.freeDevice(p));
      } finally {
        host.dispose();
        device.dispose();
      }
    }
  });

  it('trains inside optimizer.minimize: sparse step, no dense gradient, no leaks', () => {
    const emb = wm.nn.embedding({rows: 20, dim: 4, optimizer: wm.nn.adam({lr: 0.05}), init: {type: 'normal', scale: 0.5, seed: 9}});
    const w = tf.variable(tf.randomNormal([4, 1], 0, 0.5, 'float32', 3));
    const opt = tf.train.adam(0.05);
    const ids = tf.tensor1d([0, 3, 3, 7, 19], 'int32');
    const target = tf.tensor2d([[1], [-1], [-1], [2], [0.5]]);
    const lossOf = () => tf.losses.meanSquaredError(target, tf.matMul(emb.lookup(ids), w)) as tf.Scalar;
    const first = opt.minimize(lossOf, true)!;
    emb.step();
    let last = first.dataSync()[0];
    first.dispose();
    const before = wm.memoryInfo();
    for (let i = 0; i < 100; ++i) {
      const l = opt.minimize(lossOf, true)!;
      emb.step();
      last = l.dataSync()[0];
      l.dispose();
    }
    expect(last).to.be.lessThan(0.05);
    expect(emb.stepCount).to.equal(101);
    const after = wm.memoryInfo();
    expect(after.numTensors).to.equal(before.numTensors);
    expect(after.deviceBytesInUse).to.equal(before.deviceBytesInUse);
    tf.dispose([w, ids, target]);
    opt.dispose();
    emb.dispose();
  });

  it('rejects bad options by name', () => {
    expect(() => wm.nn.embedding({rows: -1, dim: 2})).to.throw(/rows must be a non-negative integer/);
    expect(() => wm.nn.embedding({rows: 2, dim: 2, dtype: 'int8' as never})).to.throw(/dtype must be/);
    expect(() => wm.nn.adam({lr: -1})).to.throw(/lr must be/);
    expect(() => wm.nn.adam({beta1: 1})).to.throw(/beta1 must be in/);
    expect(() => wm.nn.embedding({rows: 2, dim: 2, memory: 'striped' as never})).to.throw(/memory must be/);
  });
});

// Row-wise AdaGrad: one state per row, the mean of the row's squared summed gradient (weight decay added).
describe('wm.nn.rowAdagrad', () => {
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  it('counts one float of state per row when it checks that a table fits', () => {
    // 86,054,151 rows (Freebase's entities) of 8,192 bfloat16, more than any machine here holds: AdaGrad's state
    // is a float per element on top, row-wise AdaGrad's a float per row. Each is refused with the sum it needs.
    const big = (optimizer: wm.nn.SparseOptimizerConfig) => () =>
      wm.nn.embedding({rows: 86054151, dim: 8192, dtype: 'bfloat16', memory: 'host', optimizer});
    const gib = (bytes: number) => (bytes / 2 ** 30).toFixed(2);
    expect(big(wm.nn.adagrad())).to.throw(new RegExp(`${gib(86054151 * 8192 * (2 + 4))} GiB of host memory asked for`));
    expect(big(wm.nn.rowAdagrad())).to.throw(new RegExp(`${gib(86054151 * (8192 * 2 + 4))} GiB of host memory asked for`));
  });

  const lr = 0.1,
    wd = 0.01,
    eps = 1e-10;
  for (const memory of memories()) {
    for (const dtype of ['float32', 'bfloat16'] as wm.nn.EmbeddingDType[]) {
      it(`keeps one state per row and steps each row against it, as a float64 reference: ${memory} ${dtype}`, () => {
        for (const [rows, dim] of [
          [50, 6],
          [40, 33],
          [9, 130],
        ]) {
          const emb = wm.nn.embedding({rows, dim, dtype, memory, optimizer: wm.nn.rowAdagrad({lr, weightDecay: wd})});
          emb.write(
            Int32Array.from({length: rows}, (_, i) => i),
            Float32Array.from(randomRows(rows, dim, 5)),
          );
          const ref = Float64Array.from(emb.read(Int32Array.from({length: rows}, (_, i) => i)).dataSync());
          const state = new Float64Array(rows);
          let nonFinite = 0;
          for (let t = 1; t <= 3; ++t) {
            // Step 2: row 3 a hundred times (a run past two warp windows), and a NaN and an Inf element.
            const ids = t === 2 ? Int32Array.from([...randomIds(20, rows, 7), ...new Array(100).fill(3)]) : randomIds(40, rows, 100 + t);
            const g = Float32Array.from(randomRows(ids.length, dim, 300 + t));
            if (t === 2) {
              g[1] = NaN;
              g[dim + 2] = Infinity;
            }
            const grads = tf.tensor2d(g, [ids.length, dim]);
            emb.applyGradients(ids, grads);
            grads.dispose();
            const sum = new Map<number, Float64Array>();
            ids.forEach((r, i) => {
              const acc = sum.get(r) ?? new Float64Array(dim);
              for (let j = 0; j < dim; ++j) acc[j] += g[i * dim + j];
              sum.set(r, acc);
            });
            for (const [r, acc] of sum) {
              let squares = 0;
              for (let j = 0; j < dim; ++j) if (Number.isFinite(acc[j])) squares += (acc[j] + wd * ref[r * dim + j]) ** 2;
              state[r] += squares / dim;
              for (let j = 0; j < dim; ++j) {
                if (!Number.isFinite(acc[j])) {
                  ++nonFinite;
                  continue;
                }
                const gj = acc[j] + wd * ref[r * dim + j];
                ref[r * dim + j] -= (lr * gj) / (Math.sqrt(state[r]) + eps);
              }
            }
          }
          const what = `rowAdagrad ${memory} ${dtype} ${rows}x${dim}`;
          const got = emb.read(Int32Array.from({length: rows}, (_, i) => i)).dataSync();
          // bfloat16 rounds every stored row after each step; the reference keeps float64 rows.
          expectNear(got, ref, dtype === 'float32' ? 1e-5 : 3e-2, what);
          expect(emb.skippedGradients(), `${what}: skipped`).to.equal(nonFinite);
          const saved = emb.exportState();
          expect(saved.states.length).to.equal(1);
          expect(saved.states[0].length, `${what}: one state per row`).to.equal(rows);
          expectNear(saved.states[0], state, dtype === 'float32' ? 1e-5 : 3e-2, `${what}: states`);
          expect(() => emb.importState({...saved, states: [new Float32Array(rows * dim)]})).to.throw(
            new RegExp(`optimizer state 0 holds ${rows * dim} values, the table's hold ${rows}`),
          );
          emb.importState(saved);
          expectNear(emb.exportState().states[0], saved.states[0], 0, `${what}: states restored`);
          emb.dispose();
        }
      });
    }
  }
});

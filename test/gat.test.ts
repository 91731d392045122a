// wm.nn.gatAggregate (graph attention as one native op each way) against an
// independent dense formulation on tfjs-backend-cpu (adjacency mask,
// softmax over each row, a batched matmul; gradients by tfjs' autodiff), on
// random graphs: several heads, odd widths, rows with no entries and rows of
// more than 32 entries (a warp's lanes on the GPU), more sources than rows.
// Blocks with repeated entries (sampling with replacement makes them),
// which a dense matrix cannot hold, are checked against the composite of
// tfjs ops that other backends run.
import '@tensorflow/tfjs-backend-cpu';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as path from 'path';

import * as wm from '../src/index';
import {loadDataset} from '../src/graph/dataset';
import {trainNodeClassification} from '../src/train/node_classification';
import {freeScratch, gatBackwardPass, gatColsPass, gatForwardPass, gatRowsPass, scratch} from '../src/nn/gat_passes';
import type {Columns} from '../src/nn/gat_passes';
import {assertGpuIfRequired, expectReject, rng} from './helpers';

interface Graph {
  rows: number;
  cols: number;
  rowPtr: Int32Array;
  colIdx: Int32Array;
}

// Row r takes degree(r) sources; distinct ones unless `repeats`.
function randomGraph(rows: number, cols: number, degree: (r: number) => number, seed: number, repeats = false): Graph {
  const r = rng(seed);
  const rowPtr = new Int32Array(rows + 1),
    lists: number[][] = [];
  for (let i = 0; i < rows; ++i) {
    const want = Math.min(degree(i), repeats ? Infinity : cols);
    const picked = new Set<number>(),
      list: number[] = [];
    while (list.length < want) {
      const c = Math.floor(r() * cols);
      if (!repeats && picked.has(c)) continue;
      picked.add(c);
      list.push(c);
    }
    lists.push(list);
    rowPtr[i + 1] = rowPtr[i] + list.length;
  }
  return {rows, cols, rowPtr, colIdx: Int32Array.from(lists.flat())};
}

function random(n: number, seed: number, scale = 1): Float32Array {
  const r = rng(seed);
  return Float32Array.from({length: n}, () => (r() * 2 - 1) * scale);
}

// The same function from dense tfjs ops (no repeated entries).
function dense(g: Graph, feat: tf.Tensor, src: tf.Tensor, dst: tf.Tensor, slope: number): tf.Tensor {
  const mask = new Float32Array(g.rows * g.cols);
  for (let r = 0; r < g.rows; ++r) for (let e = g.rowPtr[r]; e < g.rowPtr[r + 1]; ++e) mask[r * g.cols + g.colIdx[e]] = 1;
  const heads = feat.shape[1]!;
  const m = tf.tensor3d(mask, [g.rows, g.cols, 1]);
  const z = tf.leakyRelu(tf.add(tf.expandDims(src, 0), tf.expandDims(dst, 1)), slope); // [rows, cols, heads]
  const masked = tf.where(tf.cast(tf.tile(m, [1, 1, heads]), 'bool'), z, tf.fill(z.shape, -1e30));
  const alpha = tf.mul(tf.softmax(tf.transpose(masked, [0, 2, 1])), tf.transpose(m, [0, 2, 1])); // [rows, heads, cols]
  const out = tf.matMul(tf.transpose(alpha, [1, 0, 2]), tf.transpose(feat, [1, 0, 2])); // [heads, rows, dim]
  return tf.transpose(out, [1, 0, 2]);
}

async function outputAndGrads(backend: string, g: Graph, heads: number, dim: number, slope: number, how: 'gat' | 'dense', seed: number) {
  await tf.setBackend(backend);
  const block = new wm.graph.CsrBlock(g.rowPtr, g.colIdx, g.cols);
  const feat = tf.tensor3d(random(g.cols * heads * dim, seed), [g.cols, heads, dim]);
  const src = tf.tensor2d(random(g.cols * heads, seed + 1, 2), [g.cols, heads]);
  const dst = tf.tensor2d(random(g.rows * heads, seed + 2, 2), [g.rows, heads]);
  const up = tf.tensor3d(random(g.rows * heads * dim, seed + 3), [g.rows, heads, dim]);
  const f = (a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) =>
    how === 'gat'
      ? wm.nn.gatAggregate(block, a as tf.Tensor3D, b as tf.Tensor2D, c as tf.Tensor2D, {negativeSlope: slope})
      : dense(g, a, b, c, slope);
  const y = tf.tidy(() => f(feat, src, dst));
  const grads = tf.grads((a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) => tf.sum(tf.mul(f(a, b, c), up)))([feat, src, dst]);
  const out = [y, ...grads].map((t) => Array.from(t.dataSync()));
  tf.dispose([feat, src, dst, up, y, ...grads]);
  block.dispose();
  return out;
}

function expectClose(got: number[][], want: number[][], what: string, tol = 2e-4): void {
  const names = ['out', 'dFeat', 'dSrc', 'dDst'];
  got.forEach((g, k) => {
    expect(g.length, `${what} ${names[k]} length`).to.equal(want[k].length);
    g.forEach((v, i) => {
      const w = want[k][i];
      if (!(Math.abs(v - w) <= tol * (1 + Math.abs(w)))) expect.fail(`${what} ${names[k]}[${i}] is ${v}, expected ${w}`);
    });
  });
}

describe('wm.nn.gatAggregate (graph attention as one op each way)', () => {
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    assertGpuIfRequired();
  });
  after(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  const cases: {what: string; g: () => Graph; heads: number; dim: number; slope: number}[] = [
    {
      what: '3 heads of 5, some empty rows',
      g: () => randomGraph(23, 31, (r) => (r % 5 === 2 ? 0 : 1 + (r % 7)), 1),
      heads: 3,
      dim: 5,
      slope: 0.2,
    },
    {
      what: 'one head of 40 (more than a warp), rows of 40-60 entries',
      g: () => randomGraph(9, 70, (r) => 40 + 3 * r, 2),
      heads: 1,
      dim: 40,
      slope: 0.1,
    },
    {what: 'width 1, 4 heads, more rows than sources', g: () => randomGraph(40, 6, (r) => r % 4, 3), heads: 4, dim: 1, slope: 0.2},
    {what: 'every row empty', g: () => randomGraph(5, 4, () => 0, 4), heads: 2, dim: 3, slope: 0.2},
    {what: 'slope 0 (ReLU logits)', g: () => randomGraph(12, 12, (r) => 1 + (r % 5), 5), heads: 2, dim: 8, slope: 0},
  ];
  for (const c of cases) {
    it(`matches the dense formulation on tfjs-backend-cpu: ${c.what}`, async () => {
      const g = c.g();
      const want = await outputAndGrads('cpu', g, c.heads, c.dim, c.slope, 'dense', 100);
      const got = await outputAndGrads(wm.BACKEND_NAME, g, c.heads, c.dim, c.slope, 'gat', 100);
      expectClose(got, want, c.what);
    });
  }

  it('repeated entries (sampling with replacement) count once each, as the composite of tfjs ops on other backends', async () => {
    const g = randomGraph(30, 8, (r) => r % 9, 6, true);
    const want = await outputAndGrads('cpu', g, 2, 7, 0.2, 'gat', 200); // tfjs-backend-cpu: the composite
    const got = await outputAndGrads(wm.BACKEND_NAME, g, 2, 7, 0.2, 'gat', 200);
    expectClose(got, want, 'repeats');
  });

  it('rejects wrong shapes, dtypes and slopes by name, and leaves no tensors behind', () => {
    const g = randomGraph(4, 5, () => 2, 7);
    const block = new wm.graph.CsrBlock(g.rowPtr, g.colIdx, g.cols);
    const before = tf.memory().numTensors;
    // feat[s, h, d] = s, equal logits: each row's output is the mean of its two sources' ids.
    const feat = tf.tidy(() => tf.tile(tf.reshape(tf.range(0, 5), [5, 1, 1]), [1, 2, 3])) as tf.Tensor3D;
    const src = tf.zeros([5, 2]) as tf.Tensor2D,
      dst = tf.zeros([4, 2]) as tf.Tensor2D;
    expect(() => tf.tidy(() => wm.nn.gatAggregate(block, tf.zeros([4, 2, 3]) as tf.Tensor3D, src, dst))).to.throw(
      RangeError,
      /feat has 4 rows, the block reads 5/,
    );
    expect(() => tf.tidy(() => wm.nn.gatAggregate(block, feat, tf.zeros([5, 3]) as tf.Tensor2D, dst))).to.throw(
      RangeError,
      /src must be \[5, 2\]/,
    );
    expect(() => tf.tidy(() => wm.nn.gatAggregate(block, feat, src, tf.zeros([5, 2]) as tf.Tensor2D))).to.throw(
      RangeError,
      /dst must be \[4, 2\]/,
    );
    expect(() => tf.tidy(() => wm.nn.gatAggregate(block, tf.zeros([5, 2, 3], 'int32') as tf.Tensor3D, src, dst))).to.throw(
      TypeError,
      /feat must be a float32 tensor of rank 3/,
    );
    expect(() => wm.nn.gatAggregate(block, feat, src, dst, {negativeSlope: NaN})).to.throw(
      RangeError,
      /negativeSlope must be a finite number/,
    );
    const y = tf.tidy(() => wm.nn.gatAggregate(block, feat, src, dst));
    expect(y.shape).to.deep.equal([4, 2, 3]);
    const got = y.dataSync();
    for (let r = 0; r < 4; ++r) {
      const mean = (g.colIdx[g.rowPtr[r]] + g.colIdx[g.rowPtr[r] + 1]) / 2;
      for (let k = 0; k < 6; ++k) expect(got[r * 6 + k]).to.be.closeTo(mean, 1e-6);
    }
    tf.dispose([feat, src, dst, y]);
    block.dispose(); // its device copies of the CSR arrays, on a GPU
    expect(tf.memory().numTensors).to.equal(before);
  });

  it('a two-head GAT layer written as in the README trains with tf.train.adam: attention finds the source that decides, and leaks nothing', () => {
    // Row r reads one "key" source (ids below 20) and three others; its class is the key's class (id mod 3).
    // Features: the source's class one-hot, whether it is a key, noise. A plain mean blurs the key with the
    // others; the attention logits can single it out.
    const n = 80,
      heads = 2,
      dim = 4,
      classes = 3,
      r0 = rng(21);
    const rowPtr = Int32Array.from({length: n + 1}, (_, r) => 4 * r);
    const colIdx = new Int32Array(4 * n),
      label = new Int32Array(n);
    for (let r = 0; r < n; ++r) {
      const key = Math.floor(r0() * 20);
      colIdx.set([Math.floor(20 + r0() * 60), key, Math.floor(20 + r0() * 60), Math.floor(20 + r0() * 60)], 4 * r);
      label[r] = key % classes;
    }
    const hv = new Float32Array(n * 8);
    for (let v = 0; v < n; ++v) {
      hv[v * 8 + (v % classes)] = 1;
      hv[v * 8 + 3] = v < 20 ? 1 : 0;
      for (let k = 4; k < 8; ++k) hv[v * 8 + k] = r0() - 0.5;
    }
    const block = new wm.graph.CsrBlock(rowPtr, colIdx, n);
    const labels = tf.oneHot(tf.tensor1d(label, 'int32'), classes);
    const h = tf.tensor2d(hv, [n, 8]);
    const w = tf.variable(tf.randomNormal([8, heads * dim], 0, 0.3, 'float32', 10));
    const aSrc = tf.variable(tf.randomNormal([1, heads, dim], 0, 0.3, 'float32', 11));
    const aDst = tf.variable(tf.randomNormal([1, heads, dim], 0, 0.3, 'float32', 12));
    const wOut = tf.variable(tf.randomNormal([heads * dim, classes], 0, 0.3, 'float32', 13));
    const aSrc0 = aSrc.dataSync().slice();
    const opt = tf.train.adam(0.05);
    const loss = () =>
      tf.tidy(() => {
        const feat = tf.reshape(tf.matMul(h, w), [n, heads, dim]) as tf.Tensor3D;
        const src = tf.sum(tf.mul(feat, aSrc), 2) as tf.Tensor2D,
          dst = tf.sum(tf.mul(feat, aDst), 2) as tf.Tensor2D;
        const out = wm.nn.gatAggregate(block, feat, src, dst, {negativeSlope: 0.2});
        return tf.losses.softmaxCrossEntropy(labels, tf.matMul(tf.reshape(out, [n, heads * dim]), wOut)) as tf.Scalar;
      });
    const value = () => {
      const l = loss();
      const v = l.dataSync()[0];
      l.dispose();
      return v;
    };
    const start = value();
    opt.minimize(loss, false); // the optimizer's slots are made here and persist
    const before = wm.memoryInfo();
    for (let i = 1; i < 150; ++i) opt.minimize(loss, false);
    const after = wm.memoryInfo();
    expect(after.numTensors, 'tensors after 149 steps').to.equal(before.numTensors);
    expect(after.deviceBytesInUse, 'device bytes after 149 steps').to.equal(before.deviceBytesInUse);
    const end = value();
    expect(end, `loss ${start} -> ${end}`).to.be.below(start / 4);
    expect(Array.from(aSrc.dataSync()), 'the attention vector trained').to.not.deep.equal(Array.from(aSrc0));
    tf.dispose([labels, h, w, aSrc, aDst, wOut]);
    opt.dispose();
    block.dispose();
  });

  it("the main job's --model gat classifies polblogs (one seed, 20 epochs: test accuracy above 85%)", async function () {
    this.timeout(120000);
    const data = await loadDataset(path.join(__dirname, '..', '..', 'data', 'polblogs'));
    const r = await trainNodeClassification(data, {model: 'gat', heads: 4, epochs: 20, seed: 0});
    expect(r.testAcc, `test accuracy at the best validation epoch (${r.bestEpoch})`).to.be.above(0.85);
    await expectReject(trainNodeClassification(data, {model: 'gat', sampler: 'tree', epochs: 1}), /use sampler 'subgraph'/);
    await expectReject(
      trainNodeClassification(data, {model: 'gat', heads: 3, epochs: 1}),
      /heads must be a positive integer dividing hiddenDim \(64\), got 3/,
    );
  });

  for (const scatter of [false, true]) {
    it(`its passes read columns of wider matrices in place and write their gradients there, leaving the other columns (${scatter ? 'scattered' : 'transposed'} column pass)`, () => {
      const b = wm.backend();
      const g = randomGraph(37, 29, (r) => (r % 6 === 1 ? 0 : 1 + (r % 41)), 11);
      const heads = 3,
        dim = 5,
        slope = 0.2,
        wide = heads * dim;
      const block = wm.graph.CsrBlock.trusted(g.rowPtr, g.colIdx, g.cols, undefined, undefined, scatter);
      // P [cols, 7 + wide + heads + 4]: feat at column 7, src after it; Q [rows, 2 + heads + 3]: dst at column 2.
      const pW = 7 + wide + heads + 4,
        qW = 2 + heads + 3;
      const P = tf.tensor2d(random(g.cols * pW, 12), [g.cols, pW]),
        Q = tf.tensor2d(random(g.rows * qW, 13), [g.rows, qW]);
      const feat = tf.reshape(tf.slice(P, [0, 7], [-1, wide]), [g.cols, heads, dim]),
        src = tf.slice(P, [0, 7 + wide], [-1, heads]),
        dst = tf.slice(Q, [0, 2], [-1, heads]);
      const dy = tf.tensor3d(random(g.rows * wide, 14), [g.rows, heads, dim]);
      const [out, alpha] = gatForwardPass(b, block, feat, src, dst, heads, dim, slope);
      const cols = (t: tf.Tensor2D, offset: number) => ({t, offset});
      const strided = [cols(P, 7), cols(P, 7 + wide), cols(Q, 2)] as [Columns, Columns, Columns];
      const [out2, alpha2] = gatForwardPass(b, block, ...strided, heads, dim, slope);
      expect(Array.from(out2.dataSync())).to.deep.equal(Array.from(out.dataSync()));
      expect(Array.from(alpha2.dataSync())).to.deep.equal(Array.from(alpha.dataSync()));
      const want = gatBackwardPass(b, block, [feat, src, dst, alpha], dy, heads, dim, slope).map((t) => Array.from(t.dataSync()));
      // The gradients written into copies of P and Q: their own columns replaced, the others kept.
      const dz = scratch(b, alpha.size);
      let dP: tf.Tensor, dQ: tf.Tensor;
      try {
        [dQ] = b.nativeOutputs([Q], [[g.rows, qW]], ([q], [dq]) => {
          b.native.stridedCopy(4, q, 0, [qW, 1], [g.rows, qW], dq, 0, [qW, 1], [g.rows, qW]);
          gatRowsPass(b, block, strided, alpha, dy, heads, dim, slope, dz, {buf: dq, offset: 2, stride: qW});
        });
        // The column pass's own columns zeroed first (a scattered pass adds into them).
        const zeroed = tf.concat(
          [tf.slice(P, [0, 0], [-1, 7]), tf.zeros([g.cols, wide + heads]), tf.slice(P, [0, 7 + wide + heads], [-1, 4])],
          1,
        );
        [dP] = b.nativeOutputs([zeroed], [[g.cols, pW]], ([p], [dp]) => {
          b.native.stridedCopy(4, p, 0, [pW, 1], [g.cols, pW], dp, 0, [pW, 1], [g.cols, pW]);
          const place = (offset: number) => ({buf: dp, offset, stride: pW});
          gatColsPass(b, block, alpha, dz, dy, heads, dim, place(7), place(7 + wide));
        });
      } finally {
        freeScratch(b, dz);
      }
      const near = (got: tf.Tensor, w: number[], what: string) =>
        Array.from(got.dataSync()).forEach((v, i) => expect(Math.abs(v - w[i]), `${what}[${i}]`).to.be.below(1e-5 * (1 + Math.abs(w[i]))));
      near(tf.reshape(tf.slice(dP, [0, 7], [-1, wide]), [-1]), want[0], 'dFeat');
      near(tf.reshape(tf.slice(dP, [0, 7 + wide], [-1, heads]), [-1]), want[1], 'dSrc');
      near(tf.reshape(tf.slice(dQ, [0, 2], [-1, heads]), [-1]), want[2], 'dDst');
      const kept = (m: tf.Tensor, from: tf.Tensor, begin: number, size: number) =>
        expect(Array.from(tf.slice(m, [0, begin], [-1, size]).dataSync())).to.deep.equal(
          Array.from(tf.slice(from, [0, begin], [-1, size]).dataSync()),
        );
      kept(dP, P, 0, 7);
      kept(dP, P, 7 + wide + heads, 4);
      kept(dQ, Q, 0, 2);
      kept(dQ, Q, 2 + heads, 3);
      // A view past its tensor's end is refused by name before anything runs (a GPU kernel could not tell).
      expect(() => gatForwardPass(b, block, cols(P, pW - wide + 1), strided[1], strided[2], heads, dim, slope)).to.throw(
        RangeError,
        /graph attention: feat must hold 29 rows of 15 floats 29 apart from 15 \(842 floats\), got a float32 tensor of 841/,
      );
      tf.dispose([P, Q, feat, src, dst, dy, out, alpha, out2, alpha2, dP!, dQ!]);
    });
  }

  it('the addon checks host buffers against the block before reading them', function () {
    const b = wm.backend();
    if (!b.hostKernels) this.skip();
    const rowPtr = Int32Array.from([0, 1, 3]),
      colIdx = Int32Array.from([0, 2, 9]);
    const f = new Float32Array(64);
    expect(() => b.native.gatForward(rowPtr, colIdx, 2, 4, f, f, f, 1, 2, 0.2, f, f)).to.throw(
      /gatForward: argument 1 \(colIdx\) entry 2 = 9 is outside \[0, 4\)/,
    );
    expect(() => b.native.gatForward(rowPtr, Int32Array.from([0, 1, 2]), 2, 4, f.subarray(0, 7), f, f, 1, 2, 0.2, f, f)).to.throw(
      /argument 4 \(feat\) holds 7 elements, needs 8/,
    );
    expect(() => b.native.gatForward(Int32Array.from([0, 2, 1]), colIdx, 2, 4, f, f, f, 1, 2, 0.2, f, f)).to.throw(
      /gatForward: argument 0 \(rowPtr\) decreases at row 1/,
    );
    const ok = Int32Array.from([0, 1, 2]);
    expect(() => b.native.gatForward(rowPtr, ok, 2, 4, f, f, f, 2, 3, 0.2, f, f, 5, 2, 2)).to.throw(
      /gatForward: argument 12 \(featStride\) must be at least a row's 6 floats/,
    );
    // Four source rows 10 floats apart span 36 floats.
    expect(() => b.native.gatForward(rowPtr, ok, 2, 4, f.subarray(0, 35), f, f, 2, 3, 0.2, f, f, 10, 2, 2)).to.throw(
      /argument 4 \(feat\) holds 35 elements, needs 36/,
    );
  });
});

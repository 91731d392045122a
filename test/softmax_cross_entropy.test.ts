// wm.nn.softmaxCrossEntropy (native forward and gradient) against
// tf.losses.softmaxCrossEntropy on tfjs-backend-cpu.
import '@tensorflow/tfjs-backend-cpu';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {rng} from './helpers';

type LabelKind = 'one-hot' | 'soft' | 'ids' | 'id-array';

interface Case {
  rows: number;
  classes: number;
  big?: boolean; // logits up to ±80: log-sum-exp must not overflow
}

const CASES: Case[] = [
  {rows: 1024, classes: 16},
  {rows: 7, classes: 1},
  {rows: 3, classes: 1000},
  {rows: 33, classes: 33, big: true},
  {rows: 0, classes: 5},
  {rows: 65, classes: 40},
];

function data(c: Case, seed: number) {
  const r = rng(seed);
  const span = c.big ? 160 : 6;
  const logits = Float32Array.from({length: c.rows * c.classes}, () => r() * span - span / 2);
  const ids = Int32Array.from({length: c.rows}, () => Math.floor(r() * c.classes));
  const oneHot = new Float32Array(c.rows * c.classes);
  ids.forEach((k, i) => (oneHot[i * c.classes + k] = 1));
  // Soft labels: distributions (tfjs' gradient assumes rows summing to one; see the float64 test for others).
  const soft = Float32Array.from({length: c.rows * c.classes}, () => r());
  for (let i = 0; i < c.rows; ++i) {
    let s = 0;
    for (let k = 0; k < c.classes; ++k) s += soft[i * c.classes + k];
    for (let k = 0; k < c.classes; ++k) soft[i * c.classes + k] /= s;
  }
  const upstream = Float32Array.from({length: c.rows}, () => r() * 2 - 0.5);
  return {logits, ids, oneHot, soft, upstream};
}

// Loss and gradient in the logits; for 'none' the gradient of sum(loss * upstream).
async function lossAndGrad(
  backend: string,
  c: Case,
  kind: LabelKind,
  reduction: wm.nn.LossReduction,
  seed: number,
  ours: boolean,
): Promise<{loss: Float32Array; grad: Float32Array}> {
  await tf.setBackend(backend);
  const d = data(c, seed);
  const x = tf.tensor2d(d.logits, [c.rows, c.classes]);
  const soft = kind === 'soft';
  const labels =
    kind === 'id-array' ? d.ids : kind === 'ids' ? tf.tensor1d(d.ids, 'int32') : tf.tensor2d(soft ? d.soft : d.oneHot, [c.rows, c.classes]);
  const w = tf.tensor1d(d.upstream);
  const lossOf = (logits: tf.Tensor) => {
    if (ours) return wm.nn.softmaxCrossEntropy(labels, logits, {reduction});
    const y = kind === 'ids' || kind === 'id-array' ? tf.tensor2d(d.oneHot, [c.rows, c.classes]) : (labels as tf.Tensor);
    const r = reduction === 'mean' ? tf.Reduction.SUM_BY_NONZERO_WEIGHTS : reduction === 'sum' ? tf.Reduction.SUM : tf.Reduction.NONE;
    return tf.losses.softmaxCrossEntropy(y, logits, undefined, 0, r);
  };
  const loss = lossOf(x);
  const grad = tf.grad((logits: tf.Tensor) => {
    const l = lossOf(logits);
    return (reduction === 'none' ? tf.sum(tf.mul(l, w)) : l) as tf.Scalar;
  })(x);
  const out = {loss: loss.dataSync().slice() as Float32Array, grad: grad.dataSync().slice() as Float32Array};
  tf.dispose([x, w, loss, grad]);
  if (labels instanceof tf.Tensor) labels.dispose();
  return out;
}

function expectClose(got: Float32Array, want: Float32Array, what: string, rtol = 2e-5, atol = 2e-6): void {
  expect(got.length, `${what}: length`).to.equal(want.length);
  for (let i = 0; i < want.length; ++i) {
    if (Number.isNaN(want[i]) && Number.isNaN(got[i])) continue;
    if (!(Math.abs(got[i] - want[i]) <= atol + rtol * Math.abs(want[i]))) expect.fail(`${what} [${i}]: ${got[i]}, tfjs ${want[i]}`);
  }
}

describe('wm.nn.softmaxCrossEntropy (native loss and gradient)', () => {
  after(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  for (const c of CASES) {
    for (const kind of ['one-hot', 'soft', 'ids', 'id-array'] as LabelKind[]) {
      it(`[${c.rows}, ${c.classes}]${c.big ? ' with logits to ±80' : ''}, ${kind} labels: mean, sum and none equal tfjs with their gradients`, async () => {
        for (const reduction of ['mean', 'sum', 'none'] as wm.nn.LossReduction[]) {
          const seed = c.rows * 31 + c.classes;
          const want = await lossAndGrad('cpu', c, kind === 'soft' ? 'soft' : 'one-hot', reduction, seed, false);
          const got = await lossAndGrad(wm.BACKEND_NAME, c, kind, reduction, seed, true);
          // Logits to ±80: tfjs forms softmax - 1 from a float32 log-softmax and loses ~2e-6 of a unit gradient.
          const atol = c.big ? 1e-5 : 2e-6;
          expectClose(got.loss, want.loss, `${reduction} loss`, 2e-5, atol);
          expectClose(got.grad, want.grad, `${reduction} gradient`, 2e-5, atol);
          if (c.rows > 0 && c.classes > 1 && reduction !== 'none') expect(Math.abs(got.loss[0])).to.be.greaterThan(0);
        }
      });
    }
  }

  it('labels that do not sum to one: the loss and its true gradient, against float64', async () => {
    // tfjs' gradient is softmax - y, right only for distributions; the loss
    // sum_c y_c (lse - x_c) has gradient softmax * sum(y) - y.
    await tf.setBackend(wm.BACKEND_NAME);
    const rows = 9,
      classes = 6,
      r = rng(5);
    const x = Float32Array.from({length: rows * classes}, () => r() * 8 - 4);
    const y = Float32Array.from({length: rows * classes}, () => r() * 2);
    const wantLoss = new Float64Array(rows),
      wantGrad = new Float64Array(rows * classes);
    for (let i = 0; i < rows; ++i) {
      const row = Array.from(x.subarray(i * classes, (i + 1) * classes), Number);
      const m = Math.max(...row);
      const lse = m + Math.log(row.reduce((a, v) => a + Math.exp(v - m), 0));
      let sy = 0;
      for (let k = 0; k < classes; ++k) ((sy += y[i * classes + k]), (wantLoss[i] += y[i * classes + k] * (lse - row[k])));
      for (let k = 0; k < classes; ++k) wantGrad[i * classes + k] = Math.exp(row[k] - lse) * sy - y[i * classes + k];
    }
    const xt = tf.tensor2d(x, [rows, classes]),
      yt = tf.tensor2d(y, [rows, classes]);
    const loss = wm.nn.softmaxCrossEntropy(yt, xt, {reduction: 'none'});
    const grad = tf.grad((l: tf.Tensor) => wm.nn.softmaxCrossEntropy(yt, l, {reduction: 'sum'}) as tf.Scalar)(xt);
    expectClose(loss.dataSync() as Float32Array, Float32Array.from(wantLoss), 'loss');
    expectClose(grad.dataSync() as Float32Array, Float32Array.from(wantGrad), 'gradient');
    tf.dispose([xt, yt, loss, grad]);
  });

  it('names a label outside the classes and labels of the wrong shape or type', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const x = tf.randomNormal([4, 3]);
    expect(() => wm.nn.softmaxCrossEntropy(Int32Array.from([0, 2, 3, 1]), x)).to.throw(
      /label 3 at position 2 is not a class id in \[0, 3\)/,
    );
    const bad = tf.tensor1d([0, -1, 1, 1], 'int32');
    expect(() => wm.nn.softmaxCrossEntropy(bad, x)).to.throw(/label -1 at position 1/);
    expect(() => wm.nn.softmaxCrossEntropy(Int32Array.from([0, 1]), x)).to.throw(/one id per row \(4\)/);
    expect(() => wm.nn.softmaxCrossEntropy(tf.zeros([4, 2]), x)).to.throw(/labels must be float32 \[4,3\]/);
    expect(() => wm.nn.softmaxCrossEntropy(tf.zeros([4, 3]), tf.zeros([12]))).to.throw(/logits must be a float32 \[rows, classes\]/);
    expect(() => wm.nn.softmaxCrossEntropy(Int32Array.from([0, 1, 2, 0]), x, {reduction: 'avg' as never})).to.throw(/reduction must be/);
    tf.dispose([x, bad]);
  });

  it('leaves no tensors behind, with or without a gradient', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const x = tf.randomNormal([50, 7]);
    const ids = Int32Array.from({length: 50}, (_, i) => i % 7);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 20; ++i) {
      wm.nn.softmaxCrossEntropy(ids, x).dispose();
      tf.grad((l: tf.Tensor) => wm.nn.softmaxCrossEntropy(ids, l) as tf.Scalar)(x).dispose();
    }
    expect(tf.memory().numTensors).to.equal(before);
    x.dispose();
  });
});

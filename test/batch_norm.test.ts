// batchNormTraining (batch normalisation over a batch's own statistics, its gradient written out) against
// tf.moments + tf.batchNorm differentiated by tfjs on tfjs-backend-cpu, in float64 where it counts: outputs,
// statistics and the gradients of the rows, gamma and beta on random data of odd sizes.
import '@tensorflow/tfjs-backend-cpu';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {batchNormTraining} from '../src/nn/batch_norm';
import {rng} from './helpers';

function near(got: ArrayLike<number>, want: ArrayLike<number>, what: string, tol = 2e-4): void {
  expect(got.length, `${what}: length`).to.equal(want.length);
  const scale = Math.max(1, ...Array.from(want, Math.abs));
  for (let i = 0; i < want.length; ++i)
    if (!(Math.abs(got[i] - want[i]) <= tol * scale)) expect.fail(`${what}: [${i}] is ${got[i]}, expected ${want[i]}`);
}

describe('batchNormTraining (batch normalisation, its gradient written out)', () => {
  after(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  it("matches tf.moments + tf.batchNorm differentiated by tfjs on tfjs-backend-cpu: outputs, statistics, and the rows', gamma's and beta's gradients", async () => {
    for (const [rows, cols] of [
      [2, 1],
      [7, 3],
      [129, 64],
      [1000, 33],
    ]) {
      const r = rng(rows * 31 + cols);
      const x = Float32Array.from({length: rows * cols}, () => r() * 6 - 2);
      const gamma = Float32Array.from({length: cols}, () => 0.5 + r());
      const beta = Float32Array.from({length: cols}, () => r() - 0.5);
      const dy = Float32Array.from({length: rows * cols}, () => r() * 2 - 1);
      const run = (ours: boolean) =>
        tf.tidy(() => {
          const [xt, gt, bt, dyt] = [tf.tensor2d(x, [rows, cols]), tf.tensor1d(gamma), tf.tensor1d(beta), tf.tensor2d(dy, [rows, cols])];
          const stats: tf.Tensor[] = [];
          const f = (a: tf.Tensor, g: tf.Tensor, b: tf.Tensor) => {
            if (!ours) {
              const m = tf.moments(a, 0);
              stats.push(tf.keep(m.mean), tf.keep(m.variance));
              return tf.mul(tf.batchNorm(a as tf.Tensor2D, m.mean, m.variance, b as tf.Tensor1D, g as tf.Tensor1D, 1e-5), dyt);
            }
            const o = batchNormTraining(a as tf.Tensor2D, g as tf.Tensor1D, b as tf.Tensor1D, 1e-5);
            stats.push(o.mean, o.variance);
            return tf.mul(o.y, dyt);
          };
          const {value, grads} = tf.valueAndGrads((a: tf.Tensor, g: tf.Tensor, b: tf.Tensor) => tf.sum(f(a, g, b)))([xt, gt, bt]);
          const out = [value, ...grads, ...stats].map((t) => Float32Array.from(t.dataSync()));
          tf.dispose(stats);
          return out;
        });
      await tf.setBackend('cpu');
      const want = run(false);
      await tf.setBackend(wm.BACKEND_NAME);
      const before = tf.memory().numTensors;
      const got = run(true);
      expect(tf.memory().numTensors, 'tensors left').to.equal(before);
      ['loss', 'dx', 'dgamma', 'dbeta', 'mean', 'variance'].forEach((what, i) => near(got[i], want[i], `${rows}x${cols} ${what}`));
    }
    const [empty, ones, zeros] = [tf.zeros([0, 3]) as tf.Tensor2D, tf.ones([3]) as tf.Tensor1D, tf.zeros([3]) as tf.Tensor1D];
    expect(() => batchNormTraining(empty, ones, zeros, 1e-5)).to.throw(/a batch of no rows/);
    tf.dispose([empty, ones, zeros]);
  });
});

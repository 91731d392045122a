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

  it("matches tf.moments + tf.batchNorm differentiated by tfjs on tfjs-backend-cpu: outputs, statistics, and the rows', gamma's and beta's gradients; moves running statistics", async () => {
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
    // Running statistics given: moved toward the batch's inside the op (r += 0.1 (batch - r)), under a gradient tape too.
    {
      const r = rng(5);
      const x = tf.tensor2d(
        Float32Array.from({length: 40 * 6}, () => r() * 4 - 1),
        [40, 6],
      );
      const [gamma, beta] = [tf.ones([6]) as tf.Tensor1D, tf.zeros([6]) as tf.Tensor1D];
      const old = [Float32Array.from({length: 6}, () => r()), Float32Array.from({length: 6}, () => 1 + r())];
      const running = {mean: tf.variable(tf.tensor1d(old[0]), false), variance: tf.variable(tf.tensor1d(old[1]), false), momentum: 0.1};
      const before = tf.memory().numTensors;
      let stats: Float32Array[] = [];
      tf.dispose(
        tf.grads((a: tf.Tensor) => {
          const o = batchNormTraining(a as tf.Tensor2D, gamma, beta, 1e-5, running);
          stats = [o.mean, o.variance].map((t) => Float32Array.from(t.dataSync()));
          tf.dispose([o.mean, o.variance]);
          return tf.sum(tf.square(o.y));
        })([x]),
      );
      expect(tf.memory().numTensors, 'tensors left by a pass with running statistics').to.equal(before);
      near(
        running.mean.dataSync(),
        old[0].map((v, i) => v + 0.1 * (stats[0][i] - v)),
        'running mean',
      );
      near(
        running.variance.dataSync(),
        old[1].map((v, i) => v + 0.1 * (stats[1][i] - v)),
        'running variance',
      );
      tf.dispose([x, gamma, beta, running.mean, running.variance]);
    }
    const [empty, ones, zeros] = [tf.zeros([0, 3]) as tf.Tensor2D, tf.ones([3]) as tf.Tensor1D, tf.zeros([3]) as tf.Tensor1D];
    expect(() => batchNormTraining(empty, ones, zeros, 1e-5)).to.throw(/a batch of no rows/);
    tf.dispose([empty, ones, zeros]);
  });
});

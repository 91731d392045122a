// wm.nn.rowDots against a float64 reference (values and both gradients) on
// random data of odd and even widths, one and several blocks, no rows; the
// CPU core and (on a GPU machine) the CUDA kernels; argument errors; and the
// other backends' composite.
import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {composite} from '../src/nn/row_dots';
import {seededRng} from '../src/util/random';

function reference(a: Float32Array, b: Float32Array, g: Float32Array, n: number, m: number, d: number) {
  const out = new Float64Array(m * n),
    dA = new Float64Array(n * d),
    dB = new Float64Array(m * n * d);
  for (let j = 0; j < m; ++j) {
    for (let i = 0; i < n; ++i) {
      let s = 0;
      for (let k = 0; k < d; ++k) {
        s += a[i * d + k] * b[(j * n + i) * d + k];
        dA[i * d + k] += g[j * n + i] * b[(j * n + i) * d + k];
        dB[(j * n + i) * d + k] = g[j * n + i] * a[i * d + k];
      }
      out[j * n + i] = s;
    }
  }
  return {out, dA, dB};
}

function close(got: ArrayLike<number>, want: Float64Array, what: string): void {
  expect(got.length, `${what}: length`).to.equal(want.length);
  for (let i = 0; i < want.length; ++i) {
    expect(Math.abs(got[i] - want[i]), `${what}[${i}]: ${got[i]} vs ${want[i]}`).to.be.at.most(1e-4 + 1e-5 * Math.abs(want[i]) * 10);
  }
}

describe('row dots (wm.nn.rowDots)', () => {
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  it('values and both gradients against float64, widths 1 to 130, one to six blocks, no rows; nothing left behind', async () => {
    const r = seededRng(12);
    const before = wm.memoryInfo().numTensors;
    for (const [n, m, d] of [
      [7, 1, 1],
      [5, 2, 3],
      [300, 2, 128],
      [33, 6, 5],
      [64, 3, 16],
      [17, 2, 33],
      [40, 1, 64],
      [9, 4, 130],
      [0, 2, 8],
      [4, 0, 8],
      [6, 3, 0],
      [1000, 2, 4],
    ]) {
      const rand = (k: number) => Float32Array.from({length: k}, () => r() * 4 - 2);
      const av = rand(n * d),
        bv = rand(m * n * d),
        gv = rand(m * n);
      const a = tf.tensor2d(av, [n, d]),
        b = tf.tensor3d(bv, [m, n, d]),
        g = tf.tensor2d(gv, [m, n]);
      const want = reference(av, bv, gv, n, m, d);
      const what = `n ${n} m ${m} d ${d}`;
      const before2 = wm.fallbackCounts();
      const out = wm.nn.rowDots(a, b);
      expect(out.shape).to.deep.equal([m, n]);
      close(await out.data(), want.out, `${what} out`);
      const [dA, dB] = tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.mul(wm.nn.rowDots(x as tf.Tensor2D, y as tf.Tensor3D), g)))([
        a,
        b,
      ]);
      close(await dA.data(), want.dA, `${what} dA`);
      close(await dB.data(), want.dB, `${what} dB`);
      expect(wm.fallbackCounts(), 'no kernel fell back').to.deep.equal(before2);
      tf.dispose([a, b, g, out, dA, dB]);
    }
    expect(wm.memoryInfo().numTensors).to.equal(before);
  });

  it('the tfjs composite (other backends) computes the same', async () => {
    const r = seededRng(3);
    const a = tf.tensor2d(
        Float32Array.from({length: 21}, () => r()),
        [7, 3],
      ),
      b = tf.tensor3d(
        Float32Array.from({length: 42}, () => r()),
        [2, 7, 3],
      );
    const x = await wm.nn.rowDots(a, b).data(),
      y = await composite(a, b).data();
    y.forEach((v, i) => expect(x[i]).to.be.closeTo(v, 1e-5));
    tf.dispose([a, b]);
  });

  it('bad arguments name the argument and the rule', () => {
    const a = tf.zeros([4, 3]) as tf.Tensor2D,
      b = tf.zeros([2, 4, 3]) as tf.Tensor3D;
    expect(() => wm.nn.rowDots(tf.zeros([4, 3], 'int32') as tf.Tensor2D, b)).to.throw(
      /a must be a float32 tensor of rank 2, got int32 \[4,3\]/,
    );
    expect(() => wm.nn.rowDots(a, tf.zeros([8, 3]) as unknown as tf.Tensor3D)).to.throw(
      /b must be a float32 tensor of rank 3, got float32 \[8,3\]/,
    );
    expect(() => wm.nn.rowDots(a, tf.zeros([2, 5, 3]) as tf.Tensor3D)).to.throw(/b must be \[m, 4, 3\] to match a \[4, 3\], got \[2,5,3\]/);
    tf.dispose([a, b]);
  });
});

// wm.nn.dropout (one native pass each way) against a mask recomputed here
// from the same (seed, position) function, written apart in JavaScript.
import '@tensorflow/tfjs-backend-cpu';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {dropoutThreshold} from '../src/nn/dropout';
import {rng} from './helpers';

// Wellons' lowbias32, as kernels/dropout_mask.h (positions below 2^32: block 0).
function hash32(x: number): number {
  x = (x ^ (x >>> 16)) >>> 0;
  x = Math.imul(x, 0x7feb352d) >>> 0;
  x = (x ^ (x >>> 15)) >>> 0;
  x = Math.imul(x, 0x846ca68b) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}
function keeps(seed: number, i: number, threshold: number): boolean {
  const low = seed >>> 0,
    high = Math.floor(seed / 2 ** 32) >>> 0;
  const key = hash32((low ^ hash32((high + 0x9e3779b9) >>> 0)) >>> 0);
  return hash32((i ^ key) >>> 0) >>> 8 >= threshold;
}

describe('wm.nn.dropout', () => {
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  for (const n of [0, 1, 7, 1000, 4099]) {
    for (const [rate, seed] of [
      [0.1, 0],
      [0.5, 12345],
      [0.9, 2 ** 40 + 3],
    ] as const) {
      it(`keeps the mask's elements, scaled, and routes the gradient through them: n=${n}, rate ${rate}, seed ${seed}`, () => {
        const r = rng(n + 17);
        const xv = Float32Array.from({length: n}, () => r() * 4 - 2);
        const wv = Float32Array.from({length: n}, () => r() * 2 - 1);
        const x = tf.tensor1d(xv),
          w = tf.tensor1d(wv);
        const y = wm.nn.dropout(x, rate, seed);
        const dx = tf.grad((t: tf.Tensor) => tf.sum(tf.mul(wm.nn.dropout(t, rate, seed), w)))(x);
        const scale = Math.fround(1 / (1 - rate)),
          thr = dropoutThreshold(rate);
        const yv = y.dataSync(),
          dv = dx.dataSync();
        for (let i = 0; i < n; ++i) {
          const k = keeps(seed, i, thr);
          expect(yv[i], `y[${i}]`).to.equal(k ? Math.fround(xv[i] * scale) : 0);
          expect(dv[i], `dx[${i}]`).to.equal(k ? Math.fround(wv[i] * scale) : 0);
        }
        tf.dispose([x, w, y, dx]);
      });
    }
  }

  it('drops about `rate` of the elements, differently for another seed, the same for the same one', () => {
    const x = tf.ones([300, 333]);
    const a = wm.nn.dropout(x, 0.3, 7),
      b = wm.nn.dropout(x, 0.3, 8),
      c = wm.nn.dropout(x, 0.3, 7);
    const av = a.dataSync(),
      bv = b.dataSync();
    let zeros = 0;
    for (const v of av) zeros += v === 0 ? 1 : 0;
    const dropped = zeros / av.length;
    expect(dropped).to.be.within(0.29, 0.31);
    let differ = 0;
    for (let i = 0; i < av.length; ++i) differ += (av[i] === 0) !== (bv[i] === 0) ? 1 : 0;
    expect(differ / av.length).to.be.within(0.38, 0.46); // 2 x 0.3 x 0.7 for independent masks
    expect(Array.from(c.dataSync())).to.deep.equal(Array.from(av));
    expect(a.shape).to.deep.equal([300, 333]);
    tf.dispose([x, a, b, c]);
  });

  it('is the identity at rate 0 and names what it refuses', () => {
    const x = tf.tensor2d([
      [1, -2],
      [3, 4],
    ]);
    const y = wm.nn.dropout(x, 0, 1);
    expect(Array.from(y.dataSync())).to.deep.equal([1, -2, 3, 4]);
    expect(() => wm.nn.dropout(x, 1, 1)).to.throw(RangeError, 'dropout: rate must be in [0, 1), got 1');
    expect(() => wm.nn.dropout(x, -0.1, 1)).to.throw(RangeError, 'rate must be in [0, 1), got -0.1');
    expect(() => wm.nn.dropout(x, NaN, 1)).to.throw(RangeError, 'got NaN');
    expect(() => wm.nn.dropout(x, 0.5, -1)).to.throw(RangeError, 'dropout: seed must be an integer from 0 to 2^53 - 1, got -1');
    expect(() => wm.nn.dropout(x, 0.5, 1.5)).to.throw(RangeError, 'got 1.5');
    const i = tf.tensor1d([1, 2], 'int32');
    expect(() => wm.nn.dropout(i, 0.5, 1)).to.throw(TypeError, 'dropout: x must be a float32 tensor, got int32');
    tf.dispose([x, y, i]);
  });

  it('falls back to tf.dropout on other backends', async () => {
    await tf.setBackend('cpu');
    try {
      const x = tf.ones([1000]);
      const y = wm.nn.dropout(x, 0.5, 3);
      const kept = y.dataSync().filter((v) => v !== 0);
      expect(kept.length).to.be.within(400, 600);
      kept.forEach((v) => expect(v).to.equal(2));
      tf.dispose([x, y]);
    } finally {
      await tf.setBackend(wm.BACKEND_NAME);
    }
  });
});

describe('wm.nn.dropoutLayer', () => {
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  it('a new mask per training call, the sequence fixed by the seed; the identity at inference', () => {
    const x = tf.ones([64, 32]);
    const masks = (seed: number) => {
      const layer = wm.nn.dropoutLayer({rate: 0.5, seed});
      return [0, 1, 2].map(() => tf.tidy(() => Array.from((layer.apply(x, {training: true}) as tf.Tensor).dataSync())));
    };
    const [a, b, c] = masks(7);
    expect(a).to.not.deep.equal(b);
    expect(b).to.not.deep.equal(c);
    expect(masks(7)).to.deep.equal([a, b, c]);
    for (const m of [a, b, c]) {
      const zeros = m.filter((v) => v === 0).length / m.length;
      expect(zeros).to.be.within(0.4, 0.6);
      expect(m.every((v) => v === 0 || v === 2)).to.equal(true);
    }
    const layer = wm.nn.dropoutLayer({rate: 0.5, seed: 7});
    expect(Array.from((layer.apply(x) as tf.Tensor).dataSync())).to.deep.equal(new Array(64 * 32).fill(1));
    expect(() => wm.nn.dropoutLayer({rate: 1})).to.throw(/dropoutLayer: rate must be in \[0, 1\), got 1/);
    expect(() => wm.nn.dropoutLayer({rate: 0.1, seed: -1})).to.throw(/dropoutLayer: seed must be an integer/);
    x.dispose();
  });

  it('trains inside a tf.sequential with model.fit and round-trips through its config', async () => {
    const tfl = await import('@tensorflow/tfjs-layers');
    const model = tfl.sequential({
      layers: [wm.nn.dropoutLayer({rate: 0.2, seed: 3, inputShape: [8]}), tfl.layers.dense({units: 1, kernelInitializer: 'zeros'})],
    });
    model.compile({optimizer: tf.train.sgd(0.1), loss: 'meanSquaredError'});
    const xs = tf.randomNormal([64, 8], 0, 1, 'float32', 1);
    const ys = tf.sum(xs, 1, true);
    const h = await model.fit(xs, ys, {epochs: 20, verbose: 0});
    const losses = h.history.loss as number[];
    expect(losses[losses.length - 1]).to.be.below(losses[0] * 0.5);
    const cfg = model.layers[0].getConfig();
    expect(cfg).to.include({rate: 0.2, seed: 3});
    tf.dispose([xs, ys]);
    model.dispose();
  });
});

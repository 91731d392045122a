// wm.nn.sageLayer (one op each way on the GPU) against the same layer from
// tfjs ops on tfjs-backend-cpu: the output and the gradients in h, both
// weights and the bias, on random data.
import '@tensorflow/tfjs-backend-cpu';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {rng} from './helpers';

interface Case {
  inputs: number;
  numDst: number;
  fanout: number;
  inDim: number;
  outDim: number;
  relu: boolean;
}

const CASES: Case[] = [
  {inputs: 301, numDst: 37, fanout: 5, inDim: 128, outDim: 128, relu: true},
  {inputs: 90, numDst: 11, fanout: 3, inDim: 130, outDim: 16, relu: false},
  {inputs: 40, numDst: 40, fanout: 1, inDim: 5, outDim: 7, relu: true},
  {inputs: 600, numDst: 513, fanout: 2, inDim: 33, outDim: 9, relu: true}, // more than one 512-row chunk of the bias gradient
  {inputs: 12, numDst: 0, fanout: 4, inDim: 8, outDim: 3, relu: true},
];

function random(n: number, r: () => number, scale = 1): Float32Array {
  return Float32Array.from({length: n}, () => (r() * 2 - 1) * scale);
}

async function layerAndGrads(backend: string, c: Case, fused: boolean): Promise<Float32Array[]> {
  await tf.setBackend(backend);
  const r = rng(c.inputs * 7 + c.inDim);
  const h = tf.tensor2d(random(c.inputs * c.inDim, r), [c.inputs, c.inDim]);
  const ws = tf.tensor2d(random(c.inDim * c.outDim, r, 0.3), [c.inDim, c.outDim]);
  const wn = tf.tensor2d(random(c.inDim * c.outDim, r, 0.3), [c.inDim, c.outDim]);
  const bias = tf.tensor1d(random(c.outDim, r, 0.5));
  const ids = Int32Array.from({length: c.numDst * c.fanout}, () => Math.floor(r() * c.inputs));
  const neighbors = tf.tensor1d(ids, 'int32');
  const upstream = tf.tensor2d(random(c.numDst * c.outDim, r), [c.numDst, c.outDim]);
  const layer = {numDst: c.numDst, fanout: c.fanout, neighbors};
  const f = (x: tf.Tensor, a: tf.Tensor, b: tf.Tensor, d: tf.Tensor) => {
    if (fused) return wm.nn.sageLayer(x as tf.Tensor2D, layer, a as tf.Tensor2D, b as tf.Tensor2D, d as tf.Tensor1D, c.relu);
    const self = tf.slice(x, [0, 0], [c.numDst, c.inDim]);
    const mean = tf.mean(tf.reshape(tf.gather(x, neighbors), [c.numDst, c.fanout, c.inDim]), 1);
    const z = tf.add(tf.add(tf.matMul(self, a), tf.matMul(mean, b)), d);
    return c.relu ? tf.relu(z) : z;
  };
  const y = f(h, ws, wn, bias);
  const grads = tf.grads((x: tf.Tensor, a: tf.Tensor, b: tf.Tensor, d: tf.Tensor) => tf.sum(tf.mul(f(x, a, b, d), upstream)))([
    h,
    ws,
    wn,
    bias,
  ]);
  const out = [y, ...grads].map((t) => t.dataSync().slice() as Float32Array);
  tf.dispose([h, ws, wn, bias, neighbors, upstream, y, ...grads]);
  return out;
}

describe('wm.nn.sageLayer (a GraphSAGE layer as one op each way)', () => {
  after(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });
  for (const c of CASES) {
    it(
      `${c.inputs} inputs, ${c.numDst} outputs, fan-out ${c.fanout}, ${c.inDim} -> ${c.outDim}${c.relu ? ', ReLU' : ''}: ` +
        "output and gradients in h, wSelf, wNeigh, bias equal tfjs'",
      async () => {
        const want = await layerAndGrads('cpu', c, false);
        const got = await layerAndGrads(wm.BACKEND_NAME, c, true);
        ['output', 'dh', 'dwSelf', 'dwNeigh', 'dbias'].forEach((what, k) => {
          expect(got[k].length, `${what} length`).to.equal(want[k].length);
          got[k].forEach((v, i) => {
            const e = want[k][i];
            if (!(Math.abs(v - e) <= 1e-4 + 1e-4 * Math.abs(e))) expect.fail(`${what} [${i}]: ${v}, tfjs ${e}`);
          });
        });
        if (c.numDst > 0)
          expect(
            got[1].some((v) => v !== 0),
            'dh is not all zeros',
          ).to.equal(true);
      },
    );
  }

  it('differentiated in the weights only (h a fixed feature table): the same weight gradients, and no gradient of h computed', async () => {
    const c = CASES[0];
    const all = await layerAndGrads(wm.BACKEND_NAME, c, true);
    const r = rng(c.inputs * 7 + c.inDim);
    const h = tf.tensor2d(random(c.inputs * c.inDim, r), [c.inputs, c.inDim]);
    const ws = tf.tensor2d(random(c.inDim * c.outDim, r, 0.3), [c.inDim, c.outDim]);
    const wn = tf.tensor2d(random(c.inDim * c.outDim, r, 0.3), [c.inDim, c.outDim]);
    const bias = tf.tensor1d(random(c.outDim, r, 0.5));
    const neighbors = tf.tensor1d(
      Int32Array.from({length: c.numDst * c.fanout}, () => Math.floor(r() * c.inputs)),
      'int32',
    );
    const upstream = tf.tensor2d(random(c.numDst * c.outDim, r), [c.numDst, c.outDim]);
    const layer = {numDst: c.numDst, fanout: c.fanout, neighbors};
    const p = wm.profileOps(() =>
      tf.grads((a: tf.Tensor, b: tf.Tensor, d: tf.Tensor) =>
        tf.sum(tf.mul(wm.nn.sageLayer(h, layer, a as tf.Tensor2D, b as tf.Tensor2D, d as tf.Tensor1D, c.relu), upstream)),
      )([ws, wn, bias]),
    );
    const got = p.result.map((t) => t.dataSync());
    ['dwSelf', 'dwNeigh', 'dbias'].forEach((what, k) => {
      expect(got[k].length, what).to.equal(all[k + 2].length);
      got[k].forEach((v, i) => {
        const e = all[k + 2][i]; // the same kernels; a sum's order may differ between runs on the GPU
        if (!(Math.abs(v - e) <= 1e-6 + 1e-6 * Math.abs(e))) expect.fail(`${what} [${i}]: ${v}, with h's gradient ${e}`);
      });
    });
    if (wm.deviceInfo().gpu) {
      const names = p.ops.map((o) => o.name);
      expect(names, 'the weights need the ReLU mask').to.include('biasActivationGrad');
      expect(names, "h's gradient is not computed").to.not.include('neighborMeanGrad');
    }
    tf.dispose([h, ws, wn, bias, neighbors, upstream, ...p.result]);
  });

  it("a sampleSubgraph layer (a CsrBlock) works too: output and gradients equal a float64 reference's", async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const r = rng(21);
    const n = 60;
    const src = Int32Array.from({length: 240}, () => Math.floor(r() * n)),
      dst = Int32Array.from({length: 240}, () => Math.floor(r() * n));
    const g = wm.graph.CsrGraph.fromEdges({numVertices: n, src, dst, directed: false}, {symmetric: true});
    // Plain arrays as seeds.
    const sub = wm.graph.sampleSubgraph(g, [3, 8, 13, 21, 34], [4, 3], {seed: 2});
    const layer = sub.layers[0];
    const inDim = 5,
      outDim = 3;
    const hv = Float32Array.from({length: layer.src.length * inDim}, () => r() * 2 - 1);
    const wv = Float32Array.from({length: inDim * outDim * 2 + outDim}, () => r() * 2 - 1);
    const h = tf.tensor2d(hv, [layer.src.length, inDim]);
    const ws = tf.tensor2d(wv.subarray(0, inDim * outDim), [inDim, outDim]),
      wn = tf.tensor2d(wv.subarray(inDim * outDim, 2 * inDim * outDim), [inDim, outDim]),
      bias = tf.tensor1d(wv.subarray(2 * inDim * outDim));
    const y = wm.nn.sageLayer(h, layer, ws, wn, bias, false);
    const grads = tf.grads((x: tf.Tensor) => tf.sum(tf.square(wm.nn.sageLayer(x as tf.Tensor2D, layer, ws, wn, bias, false))))([h]);
    // float64: out[i] = h[i] ws + mean of h[j] over i's block row · wn + bias; d/dh of sum(out^2).
    const rows = layer.dst.length;
    const nbrs = Array.from({length: rows}, (_, i) => {
      const out: number[] = [];
      const entries = layer.block.entries(false);
      for (let e = entries.rowPtr[i]; e < entries.rowPtr[i + 1]; ++e) out.push(entries.colIdx[e]);
      return out;
    });
    const W = (k: number, j: number, off: number) => wv[off + k * outDim + j];
    const want = new Float64Array(rows * outDim),
      dh = new Float64Array(layer.src.length * inDim);
    for (let i = 0; i < rows; ++i)
      for (let j = 0; j < outDim; ++j) {
        let z = wv[2 * inDim * outDim + j];
        for (let k = 0; k < inDim; ++k) {
          let mean = 0;
          for (const c of nbrs[i]) mean += hv[c * inDim + k] / Math.max(nbrs[i].length, 1);
          z += hv[i * inDim + k] * W(k, j, 0) + mean * W(k, j, inDim * outDim);
        }
        want[i * outDim + j] = z;
        for (let k = 0; k < inDim; ++k) {
          dh[i * inDim + k] += 2 * z * W(k, j, 0);
          for (const c of nbrs[i]) dh[c * inDim + k] += (2 * z * W(k, j, inDim * outDim)) / nbrs[i].length;
        }
      }
    const got = y.dataSync(),
      gotDh = grads[0].dataSync();
    want.forEach((v, i) => expect(got[i]).to.be.closeTo(v, 1e-4));
    dh.forEach((v, i) => expect(gotDh[i]).to.be.closeTo(v, 1e-4));
    expect(() => wm.nn.sageLayer(tf.zeros([2, inDim]) as tf.Tensor2D, layer, ws, wn, bias, false)).to.throw(
      new RegExp(`the layer reads ${layer.src.length} input rows \\(its src\\), h has 2`),
    );
    // The fixed sampler reads graphs on the GPU: a host graph is named, not a TypeError from inside.
    expect(() => wm.graph.sampleFixedSubgraph(g as never, [1, 2], [3])).to.throw(/sampleFixedSubgraph: graph must be a DeviceCsr/);
    tf.dispose([h, ws, wn, bias, y, ...grads]);
    sub.dispose();
  });

  it('names mismatched shapes', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const h = tf.zeros([10, 4]) as tf.Tensor2D,
      w = tf.zeros([4, 3]) as tf.Tensor2D,
      bad = tf.zeros([5, 3]) as tf.Tensor2D;
    const layer = {numDst: 2, fanout: 1, neighbors: tf.tensor1d([0, 1], 'int32')};
    expect(() => wm.nn.sageLayer(h, layer, w, bad, tf.zeros([3]) as tf.Tensor1D, true)).to.throw(/needs wSelf and wNeigh \[4, out\]/);
    expect(() => wm.nn.sageLayer(h, {...layer, numDst: 11}, w, w, tf.zeros([3]) as tf.Tensor1D, true)).to.throw(
      /11 outputs but h only 10 rows/,
    );
    tf.dispose([h, w, bad, layer.neighbors]);
  });
});

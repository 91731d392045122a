// wm.nn.sageLayer (one op each way on the GPU) against the same layer from
// tfjs ops on tfjs-backend-cpu: the output and the gradients in h, both
// weights and the bias, on random data.
import '@tensorflow/tfjs-backend-cpu';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {markValid} from '../src/backend/index_validation';
import {sageLayerOverTable, sageLayerOverVertices} from '../src/nn/sage_layer';
import {GraphSageClassifier} from '../src/nn/graphsage';
import {gpuOnly, rng} from './helpers';

function expectNear(got: number[][], want: number[][]): void {
  expect(got.length).to.equal(want.length);
  got.forEach((row, i) =>
    row.forEach((v, k) => {
      if (!(Math.abs(v - want[i][k]) <= 1e-6 + 1e-6 * Math.abs(want[i][k]))) expect.fail(`[${i}][${k}]: ${v}, want ${want[i][k]}`);
    }),
  );
}

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
  const out = layerOutputAndGrads(f, [h, ws, wn, bias], upstream);
  tf.dispose([h, ws, wn, bias, neighbors, upstream]);
  return out;
}

type LayerFn = (x: tf.Tensor, a: tf.Tensor, b: tf.Tensor, d: tf.Tensor) => tf.Tensor;

// f's output at [h, wSelf, wNeigh, bias] and the gradients of sum(f * upstream) in each, read back.
function layerOutputAndGrads(f: LayerFn, inputs: [tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor], upstream: tf.Tensor): Float32Array[] {
  const y = f(...inputs);
  const grads = tf.grads((x: tf.Tensor, a: tf.Tensor, b: tf.Tensor, d: tf.Tensor) => tf.sum(tf.mul(f(x, a, b, d), upstream)))(inputs);
  const out = [y, ...grads].map((t) => t.dataSync().slice() as Float32Array);
  tf.dispose([y, ...grads]);
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

  it("h's gradient is the same to the bit on every run (each input row's adds in one fixed order)", async () => {
    const c = CASES[3];
    const first = await layerAndGrads(wm.BACKEND_NAME, c, true);
    const again = await layerAndGrads(wm.BACKEND_NAME, c, true);
    expect(Buffer.from(again[1].buffer).equals(Buffer.from(first[1].buffer))).to.equal(true);
  });

  it("the bias's gradient over 20,000 rows and 70 columns: the float64 column sums of the masked upstream gradient, the same bits every run", async () => {
    // 40 chunks of 512 rows (more than the column sum's 32 lanes), three column tiles, no 16-byte vectors; the
    // reference from the layer's own output (tfjs-cpu's gather gradient takes a pass per input row).
    const c = {inputs: 24000, numDst: 20000, fanout: 2, inDim: 8, outDim: 70, relu: true};
    const first = await layerAndGrads(wm.BACKEND_NAME, c, true);
    const again = await layerAndGrads(wm.BACKEND_NAME, c, true);
    expect(Buffer.from(again[4].buffer).equals(Buffer.from(first[4].buffer)), 'the same bits').to.equal(true);
    const r = rng(c.inputs * 7 + c.inDim);
    random(c.inputs * c.inDim + 2 * c.inDim * c.outDim + c.outDim, r); // h, the weights and the bias, as drawn
    Int32Array.from({length: c.numDst * c.fanout}, () => Math.floor(r() * c.inputs));
    const upstream = random(c.numDst * c.outDim, r);
    const y = first[0];
    const want = new Float64Array(c.outDim);
    for (let i = 0; i < c.numDst; ++i)
      for (let k = 0; k < c.outDim; ++k) if (y[i * c.outDim + k] > 0) want[k] += upstream[i * c.outDim + k];
    first[4].forEach((v, k) => {
      if (!(Math.abs(v - want[k]) <= 1e-3 + 1e-5 * Math.abs(want[k]))) expect.fail(`dbias [${k}]: ${v}, float64 ${want[k]}`);
    });
  });

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

  type WeightsFn = (a: tf.Tensor, b: tf.Tensor, d: tf.Tensor) => tf.Tensor;

  // A device table of random rows and `inputs` ids into it, marked valid as a sampler's are.
  function tableAndIds(
    c: {rows: number; inputs: number; dim: number; dtype: 'float32' | 'float16' | 'bfloat16'},
    r: () => number,
    seed: number,
  ) {
    const table = wm.nn.embedding({
      rows: c.rows,
      dim: c.dim,
      dtype: c.dtype,
      memory: wm.deviceInfo().gpu ? 'device' : 'host',
      init: {type: 'uniform', scale: 1, seed},
    });
    const ids = tf.tensor1d(
      Int32Array.from({length: c.inputs}, () => Math.floor(r() * c.rows)),
      'int32',
    );
    markValid(ids, c.rows);
    return {table, ids};
  }

  // The layer's weights, bias and an upstream gradient for its numDst rows, drawn from r in that order.
  function weightsAndUpstream(c: {dim: number; outDim: number; numDst: number}, r: () => number) {
    return {
      ws: tf.tensor2d(random(c.dim * c.outDim, r, 0.3), [c.dim, c.outDim]),
      wn: tf.tensor2d(random(c.dim * c.outDim, r, 0.3), [c.dim, c.outDim]),
      bias: tf.tensor1d(random(c.outDim, r, 0.5)),
      upstream: tf.tensor2d(random(c.numDst * c.outDim, r), [c.numDst, c.outDim]),
    };
  }

  // f's output and its gradients in the weights and bias (of the upstream-weighted sum), as host arrays.
  function outputAndGrads(f: WeightsFn, w: ReturnType<typeof weightsAndUpstream>): Float32Array[] {
    const y = f(w.ws, w.wn, w.bias);
    const g = tf.grads((a: tf.Tensor, b: tf.Tensor, d: tf.Tensor) => tf.sum(tf.mul(f(a, b, d), w.upstream)))([w.ws, w.wn, w.bias]);
    const out = [y, ...g].map((t) => t.dataSync().slice() as Float32Array);
    tf.dispose([y, ...g]);
    return out;
  }

  // The layer as a sampler leaves it drawn (InputVertices): its rows' ids (the first numDst of ids) and each entry's
  // row (ids at the position), both marked valid as a sampler's are.
  function asDrawn(ids: tf.Tensor1D, numDst: number, positions: tf.Tensor1D, rows: number, rowPtr?: tf.Tensor1D): wm.graph.InputVertices {
    const dst = tf.slice(ids, 0, numDst);
    const drawn = tf.gather(ids, positions) as tf.Tensor1D;
    markValid(dst, rows);
    markValid(drawn, rows);
    return {dst, lists: rowPtr ? {rowPtr, colIdx: drawn} : {fanout: positions.size / Math.max(numDst, 1), neighbors: drawn}};
  }

  // The same layer over the drawn vertices (sageLayerOverVertices) as over positions: the same rows read in the same
  // order; one whose entries nobody checked is declined.
  function expectDrawnSame(
    table: wm.nn.Embedding,
    drawn: wm.graph.InputVertices,
    w: ReturnType<typeof weightsAndUpstream>,
    relu: boolean,
    want: Float32Array[],
  ): void {
    const over = (a: tf.Tensor, b: tf.Tensor, d: tf.Tensor) =>
      sageLayerOverVertices(table, drawn, a as tf.Tensor2D, b as tf.Tensor2D, d as tf.Tensor1D, relu)!;
    const p = wm.profileOps(() => outputAndGrads(over, w));
    expect(p.ops.map((o) => o.name)).to.not.include('relabelVertices');
    expectOutputsNear(p.result, want, (e) => 1e-5 + 1e-5 * Math.abs(e));
    const lists = drawn.lists;
    const unchecked = tf.tensor1d(wm.graph.listEntries(lists).dataSync(), 'int32'); // not marked valid
    const bare = {
      dst: drawn.dst,
      lists: 'fanout' in lists ? {fanout: lists.fanout, neighbors: unchecked} : {rowPtr: lists.rowPtr, colIdx: unchecked},
    };
    if (wm.deviceInfo().gpu) {
      expect(sageLayerOverVertices(table, bare, w.ws, w.wn, w.bias, relu), 'entries nobody checked').to.equal(undefined);
    } else if (unchecked.size > 0) {
      // The host checks every entry itself: a row outside the table is named.
      const entries = unchecked.dataSync().slice();
      entries[entries.length - 1] = table.rows;
      const outside = tf.tensor1d(entries, 'int32');
      const bad = {
        dst: drawn.dst,
        lists: 'fanout' in lists ? {fanout: lists.fanout, neighbors: outside} : {rowPtr: lists.rowPtr, colIdx: outside},
      };
      expect(() => sageLayerOverVertices(table, bad, w.ws, w.wn, w.bias, relu)).to.throw(
        RangeError,
        new RegExp(`rows: index ${table.rows} at position ${entries.length - 1} is outside the table's ${table.rows} rows`),
      );
      outside.dispose();
    }
    unchecked.dispose();
  }

  // got against want, output and each weight gradient, within `bound(e, k)` of each expected value e of array k.
  function expectOutputsNear(got: Float32Array[], want: Float32Array[], bound: (e: number, k: number) => number): void {
    ['output', 'dwSelf', 'dwNeigh', 'dbias'].forEach((what, k) => {
      expect(got[k].length, `${what} length`).to.equal(want[k].length);
      got[k].forEach((v, i) => {
        const e = want[k][i];
        if (!(Math.abs(v - e) <= bound(e, k))) expect.fail(`${what} [${i}]: ${v}, over the gathered rows ${e}`);
      });
    });
  }

  // The first layer over a feature table read in place (no matrix of its input rows) against the same layer over the
  // rows gathered: every storage type, widths with and without whole 16-byte vectors, fan-outs below and above the
  // kernel's four loads a pass, an empty layer (declined: the caller gathers).
  const TABLE_CASES = [
    {rows: 5000, inputs: 1201, numDst: 301, fanout: 30, dim: 128, outDim: 64, dtype: 'float16', relu: true},
    {rows: 777, inputs: 300, numDst: 37, fanout: 5, dim: 12, outDim: 9, dtype: 'float16', relu: false},
    {rows: 777, inputs: 300, numDst: 41, fanout: 3, dim: 16, outDim: 7, dtype: 'bfloat16', relu: true},
    {rows: 333, inputs: 90, numDst: 90, fanout: 1, dim: 7, outDim: 5, dtype: 'float32', relu: true},
    {rows: 333, inputs: 200, numDst: 53, fanout: 6, dim: 132, outDim: 11, dtype: 'float32', relu: true},
    {rows: 50, inputs: 10, numDst: 0, fanout: 4, dim: 8, outDim: 3, dtype: 'float32', relu: true},
  ] as const;
  for (const c of TABLE_CASES) {
    it(
      `a first layer over a ${c.dtype} table read in place (${c.numDst} of ${c.inputs} inputs, fan-out ${c.fanout}, ${c.dim} wide) ` +
        'equals the layer over the gathered rows: output and weight gradients',
      async function () {
        await tf.setBackend(wm.BACKEND_NAME);
        const gpu = wm.deviceInfo().gpu;
        const r = rng(c.rows + c.dim);
        const {table, ids} = tableAndIds(c, r, 5);
        const neighbors = tf.tensor1d(
          Int32Array.from({length: c.numDst * c.fanout}, () => Math.floor(r() * c.inputs)),
          'int32',
        );
        const layer = {numDst: c.numDst, fanout: c.fanout, neighbors};
        const w = weightsAndUpstream(c, r);
        const overTable = (a: tf.Tensor, b: tf.Tensor, d: tf.Tensor) =>
          sageLayerOverTable(table, ids, layer, a as tf.Tensor2D, b as tf.Tensor2D, d as tf.Tensor1D, c.relu);
        const gathered = (a: tf.Tensor, b: tf.Tensor, d: tf.Tensor) =>
          tf.tidy(() =>
            wm.nn.sageLayer(table.read(ids) as tf.Tensor2D, layer, a as tf.Tensor2D, b as tf.Tensor2D, d as tf.Tensor1D, c.relu),
          );
        const probe = overTable(w.ws, w.wn, w.bias);
        if (c.numDst === 0) {
          expect(probe, 'an empty layer is left to the gathered path').to.equal(undefined);
        } else if (!gpu && c.dtype !== 'float32') {
          expect(probe, `a ${c.dtype} host table is left to the gathered path`).to.equal(undefined);
        } else {
          expect(probe, 'a float32 host table, or a device table and sampled ids, are read in place').to.be.instanceOf(tf.Tensor);
          const p = wm.profileOps(() => outputAndGrads(overTable as WeightsFn, w));
          const names = p.ops.map((o) => o.name);
          // On the CPU the means are a CSR product over the table's own array.
          expect(names, 'the neighbour mean is read from the table').to.include(gpu ? 'embeddingGatherMean' : 'csrSpmm');
          expect(names, 'no input matrix is gathered and read again').to.not.include('neighborMean');
          // The same sums in the same order; a product's may differ between launches.
          expectOutputsNear(p.result, outputAndGrads(gathered, w), (e) => 1e-5 + 1e-5 * Math.abs(e));
          const drawn = asDrawn(ids, c.numDst, neighbors, c.rows);
          expectDrawnSame(table, drawn, w, c.relu, p.result);
          tf.dispose([drawn.dst, (drawn.lists as {neighbors: tf.Tensor}).neighbors]);
        }
        tf.dispose([probe ?? [], ids, neighbors, ...Object.values(w)]);
        table.dispose();
      },
    );
  }

  // The same over a CSR block (a sampler without replacement: rows of 0 to `most` neighbours, empty rows' mean
  // zero), its columns kept on the GPU as the sampler keeps them or uploaded from a host block.
  const BLOCK_CASES = [
    {rows: 4000, inputs: 2500, numDst: 700, most: 30, dim: 128, outDim: 64, dtype: 'float16', onDevice: true},
    {rows: 777, inputs: 300, numDst: 45, most: 6, dim: 12, outDim: 9, dtype: 'bfloat16', onDevice: true},
    {rows: 333, inputs: 120, numDst: 61, most: 3, dim: 7, outDim: 5, dtype: 'float32', onDevice: false},
    {rows: 333, inputs: 200, numDst: 33, most: 9, dim: 132, outDim: 11, dtype: 'float32', onDevice: true},
  ] as const;
  for (const c of BLOCK_CASES) {
    it(
      `a first layer over a ${c.dtype} table read in place through a CSR block (${c.numDst} rows of 0–${c.most} of ${c.inputs} inputs, ` +
        `${c.dim} wide, columns ${c.onDevice ? 'on the GPU' : 'uploaded'}) equals the block layer over the gathered rows`,
      async function () {
        const gpu = wm.deviceInfo().gpu;
        // On the CPU: float32 tables read in place, a block's columns where the sampler leaves them (on the host).
        if (!gpu && (c.dtype !== 'float32' || c.onDevice)) this.skip();
        await tf.setBackend(wm.BACKEND_NAME);
        const r = rng(c.rows + c.dim + 7);
        const {table, ids} = tableAndIds(c, r, 6);
        const rowPtr = new Int32Array(c.numDst + 1);
        for (let i = 0; i < c.numDst; ++i) rowPtr[i + 1] = rowPtr[i] + (i % 5 === 2 ? 0 : Math.floor(r() * (c.most + 1)));
        const colIdx = Int32Array.from({length: rowPtr[c.numDst]}, () => Math.floor(r() * c.inputs));
        const block = c.onDevice
          ? wm.graph.CsrBlock.onDevice(rowPtr, tf.tensor1d(colIdx, 'int32'), c.inputs, {rowPtr: tf.tensor1d(rowPtr, 'int32')})
          : new wm.graph.CsrBlock(rowPtr, colIdx, c.inputs);
        const layer = {block};
        const w = weightsAndUpstream(c, r);
        const {ws, wn, bias} = w;
        const overTable = (a: tf.Tensor, b: tf.Tensor, d: tf.Tensor) =>
          sageLayerOverTable(table, ids, layer, a as tf.Tensor2D, b as tf.Tensor2D, d as tf.Tensor1D, true)!;
        const gathered = (a: tf.Tensor, b: tf.Tensor, d: tf.Tensor) =>
          tf.tidy(() => wm.nn.sageLayer(table.read(ids) as tf.Tensor2D, layer, a as tf.Tensor2D, b as tf.Tensor2D, d as tf.Tensor1D, true));
        const p = wm.profileOps(() => outputAndGrads(overTable, w));
        const names = p.ops.map((o) => o.name);
        if (gpu) {
          expect(names, 'the neighbour mean is read from the table').to.include('embeddingGatherMeanCsr');
          expect(names, 'no input matrix is gathered for a product').to.not.include('csrSpmm');
        }
        const want = outputAndGrads(gathered, w);
        // Sums in another order (the block product scales each entry; products differ): bounded by each array's largest.
        const scales = want.map((a) => a.reduce((m, v) => Math.max(m, Math.abs(v)), 0));
        expectOutputsNear(p.result, want, (e, k) => 1e-5 * scales[k] + 1e-4 * Math.abs(e));
        const positions = tf.tensor1d(colIdx, 'int32');
        const drawn = asDrawn(ids, c.numDst, positions, c.rows, tf.tensor1d(rowPtr, 'int32'));
        expectDrawnSame(table, drawn, w, true, p.result);
        tf.dispose([positions, drawn.dst, ...Object.values(drawn.lists)]);
        const weighted = {block: new wm.graph.CsrBlock(rowPtr, colIdx, c.inputs).withWeights(random(colIdx.length, r))};
        expect(sageLayerOverTable(table, ids, weighted, ws, wn, bias, true), 'entry weights: left to the gathered path').to.equal(
          undefined,
        );
        const short = {block: new wm.graph.CsrBlock(rowPtr, colIdx, c.inputs + 1)};
        expect(() => sageLayerOverTable(table, ids, short, ws, wn, bias, true)).to.throw(
          new RegExp(`reads ${c.inputs + 1} input rows \\(its src\\), ids has ${c.inputs}`),
        );
        for (const l of [block, weighted.block, short.block]) l.dispose();
        tf.dispose([ids, ...Object.values(w)]);
        table.dispose();
      },
    );
  }

  it('without a GPU, a float32 table is read in place with every index checked; float16 storage is left to the gathered path', async function () {
    if (wm.deviceInfo().gpu) this.skip();
    await tf.setBackend(wm.BACKEND_NAME);
    const table = wm.nn.embedding({rows: 20, dim: 4, init: {type: 'uniform', scale: 1, seed: 1}});
    const half = wm.nn.embedding({rows: 20, dim: 4, dtype: 'float16', init: {type: 'uniform', scale: 1, seed: 1}});
    const ids = tf.tensor1d([3, 1, 4, 15, 9], 'int32'); // nobody checked them: the host does
    const all = table.read(ids).arraySync() as number[][];
    const mean = (...at: number[]) => all[0].map((_, k) => at.reduce((s, a) => s + all[a][k], 0) / Math.max(at.length, 1));
    const neighbors = tf.tensor1d([0, 1, 2, 3, 4, 0], 'int32');
    const rows = table.neighborRows(ids, {neighbors, fanout: 2}, 3)!;
    expectNear(rows[0].arraySync() as number[][], all.slice(0, 3));
    expectNear(rows[1].arraySync() as number[][], [mean(0, 1), mean(2, 3), mean(4, 0)]);
    // A block: rows of 2, 0 and 1 entries (the empty row's mean zero).
    const rowPtr = tf.tensor1d([0, 2, 2, 3], 'int32'),
      colIdx = tf.tensor1d([1, 4, 0], 'int32');
    const block = table.neighborRows(ids, {rowPtr, colIdx}, 3)!;
    expectNear(block[1].arraySync() as number[][], [mean(1, 4), mean(), mean(0)]);
    expect(half.neighborRows(ids, {neighbors, fanout: 2}, 3), 'float16 storage').to.equal(undefined);
    const bad = tf.tensor1d([3, 1, 20], 'int32'),
      far = tf.tensor1d([0, 1, 2, 5, 4, 0], 'int32'),
      falling = tf.tensor1d([0, 2, 1, 3], 'int32');
    expect(() => table.neighborRows(bad, {neighbors: tf.zeros([2], 'int32') as tf.Tensor1D, fanout: 1}, 2)).to.throw(
      /ids: index 20 at position 2 is outside the table's 20 rows/,
    );
    expect(() => table.neighborRows(ids, {neighbors: far, fanout: 2}, 3)).to.throw(/position 5 at entry 3 is outside the 5 ids/);
    expect(() => table.neighborRows(ids, {rowPtr: falling, colIdx}, 3)).to.throw(/offsets must rise from 0 to their 3 entries/);
    // GraphSAGE over a host loader's batch: the first layer read in place gives the logits of its gathered rows.
    const graph = wm.graph.csbm({vertices: 300, classes: 3, degree: 6, homophily: 0.8, features: 9, signal: 1, seed: 4});
    const features = wm.nn.featureTable(graph.features!.values, 300, 9);
    const model = new GraphSageClassifier({
      numNodes: 300,
      numClasses: 3,
      embeddingDim: 0,
      features,
      hiddenDim: 8,
      numLayers: 2,
      dropout: 0,
      seed: 2,
      embeddingLearningRate: 0,
    });
    const loader = new wm.nn.NeighborLoader(
      graph.graph,
      Int32Array.from({length: 70}, (_, i) => i * 4),
      {fanouts: [5, 3], batchSize: 70},
    );
    const read = features.neighborRows.bind(features);
    let inPlace = 0;
    features.neighborRows = (...args) => {
      const r = read(...args);
      if (r) ++inPlace;
      return r;
    };
    for await (const sub of loader) {
      const x = features.read(sub.inputIds) as tf.Tensor2D;
      const logits = model.forward(sub);
      expect(inPlace, 'the first layer read the table in place').to.equal(1);
      const gathered = model.forward({...sub, x});
      expect(inPlace, 'a batch with its rows gathered reads them').to.equal(1);
      expectNear(logits.arraySync() as number[][], gathered.arraySync() as number[][]);
      tf.dispose([x, logits, gathered]);
      sub.dispose();
    }
    model.dispose();
    tf.dispose([ids, neighbors, ...rows, ...block, rowPtr, colIdx, bad, far, falling]);
    table.dispose();
    half.dispose();
  });

  it('a table read in place refuses neighbours of the wrong count; tables not on the GPU and unchecked ids are gathered instead', async function () {
    gpuOnly(this);
    await tf.setBackend(wm.BACKEND_NAME);
    const table = wm.nn.embedding({rows: 20, dim: 4, memory: 'device', init: {type: 'uniform', scale: 1, seed: 1}});
    const host = wm.nn.embedding({rows: 20, dim: 4, memory: 'host', init: {type: 'uniform', scale: 1, seed: 1}});
    const ids = tf.tensor1d([3, 1, 4, 15, 9], 'int32');
    const neighbors = tf.tensor1d([0, 1, 2, 3, 4, 0], 'int32');
    const lists = {neighbors, fanout: 2};
    expect(table.neighborRows(ids, lists, 3), 'ids nobody checked').to.equal(undefined);
    markValid(ids, 20);
    expect(host.neighborRows(ids, lists, 3), 'rows in host memory').to.equal(undefined);
    expect(() => table.neighborRows(ids, lists, 2)).to.throw(/neighbors must be 2 x 2 int32 positions in 5 ids, got 6 int32/);
    expect(() => table.neighborRows(ids, lists, 6)).to.throw(/6 rows, but only 5 ids/);
    const offsets = tf.tensor1d([0, 2, 2], 'int32');
    expect(() => table.neighborRows(ids, {rowPtr: offsets, colIdx: neighbors}, 3)).to.throw(
      /a block's rowPtr must be 4 int32 offsets and its colIdx int32, got 3 int32/,
    );
    offsets.dispose();
    const rows = table.neighborRows(ids, lists, 3)!;
    const all = table.read(ids).arraySync() as number[][];
    const mean = (a: number, b: number) => all[a].map((v, k) => (v + all[b][k]) / 2);
    expectNear(rows[0].arraySync() as number[][], all.slice(0, 3));
    expectNear(rows[1].arraySync() as number[][], [mean(0, 1), mean(2, 3), mean(4, 0)]);
    tf.dispose([ids, neighbors, ...rows]);
    table.dispose();
    host.dispose();
  });

  for (const c of [
    {dtype: 'float16', dim: 24, lists: 'fanout', cached: 'thirds'},
    {dtype: 'bfloat16', dim: 13, lists: 'fanout', cached: 'thirds'},
    {dtype: 'float32', dim: 24, lists: 'block', cached: 'thirds'},
    {dtype: 'float16', dim: 13, lists: 'block', cached: 'thirds'},
    {dtype: 'float16', dim: 24, lists: 'fanout', cached: 'allBut'},
    {dtype: 'float32', dim: 13, lists: 'block', cached: 'allBut'},
  ] as const) {
    const which = c.cached === 'thirds' ? 'every third row' : 'every row but a run (a replica of the rows other ranks hold)';
    it(`a continuous ${c.dtype} table (width ${c.dim}) with ${which} cached is read in place through the cache, ${c.lists === 'fanout' ? 'a fixed fan-out' : 'a CSR block with empty rows'}: the rows and means of the gathered path, its lookups counted`, async function () {
      gpuOnly(this);
      await tf.setBackend(wm.BACKEND_NAME);
      const r = rng(91);
      const rows = 3001,
        dim = c.dim,
        numIds = 517;
      // A batch reads some rows from the cache's slots and some from the table.
      const isCached = (v: number) => (c.cached === 'thirds' ? v % 3 === 1 : v < 1000 || v >= 1700);
      const table = wm.nn.embedding({
        rows,
        dim,
        dtype: c.dtype,
        memory: 'continuous',
        init: {type: 'uniform', scale: 1, seed: 8},
        cache: {rows: Int32Array.from({length: rows}, (_, i) => i).filter(isCached)},
      });
      const ids = tf.tensor1d(
        Int32Array.from({length: numIds}, () => Math.floor(r() * rows)),
        'int32',
      );
      markValid(ids, rows);
      const numDst = 131,
        fanout = 7;
      // A block's row i has i % 9 entries (row 0, 9, ... none); a fixed fan-out's every row `fanout`.
      const counts = Array.from({length: numDst}, (_, i) => (c.lists === 'fanout' ? fanout : i % 9));
      const rowPtr = Int32Array.from({length: numDst + 1}, () => 0);
      counts.forEach((k, i) => (rowPtr[i + 1] = rowPtr[i] + k));
      const entries = Int32Array.from({length: rowPtr[numDst]}, () => Math.floor(r() * numIds));
      const neighbors = tf.tensor1d(entries, 'int32');
      const offsets = tf.tensor1d(rowPtr, 'int32');
      const lists = c.lists === 'fanout' ? {neighbors, fanout} : {rowPtr: offsets, colIdx: neighbors};
      table.resetCacheCounts();
      const p = wm.profileOps(() => table.neighborRows(ids, lists, numDst));
      expect(p.ops.map((o) => o.name)).to.include(c.lists === 'fanout' ? 'embeddingGatherMean' : 'embeddingGatherMeanCsr');
      const [self, mean] = p.result!;
      const stats = table.cacheStats()!;
      const idList = ids.dataSync();
      expect(stats.lookups, 'every input row counted, as a gather counts it').to.equal(numIds);
      expect(stats.hits).to.equal(idList.filter(isCached).length);
      const all = table.read(ids).arraySync() as number[][];
      const want = counts.map((k, i) =>
        all[0].map((_, j) => {
          let sum = 0;
          for (let e = rowPtr[i]; e < rowPtr[i] + k; ++e) sum += all[entries[e]][j];
          return k ? sum / k : 0;
        }),
      );
      expectNear(self.arraySync() as number[][], all.slice(0, numDst));
      expectNear(mean.arraySync() as number[][], want);
      tf.dispose([ids, neighbors, offsets, self, mean]);
      table.dispose();
    });
  }

  for (const sampler of [
    {name: 'a fixed fan-out', op: 'embeddingGatherMean'},
    {name: 'sampled without replacement (CSR blocks)', op: 'embeddingGatherMeanCsr'},
  ]) {
    it(`GraphSAGE's first layer over a batch of ${sampler.name} reads a GPU feature table in place: logits and gradients equal a host table's gathered path`, async function () {
      gpuOnly(this);
      await tf.setBackend(wm.BACKEND_NAME);
      const n = 900,
        dim = 24;
      const r = rng(21);
      const src = Int32Array.from({length: 6000}, () => Math.floor(r() * n));
      const dst = Int32Array.from({length: 6000}, () => Math.floor(r() * n));
      const graph = new wm.graph.DeviceCsr(wm.graph.NativeCsr.fromEdges({numVertices: n, src, dst, directed: false}, {symmetric: true}));
      const values = random(n * dim, r);
      const runWith = (memory: 'device' | 'host') => {
        const features = wm.nn.featureTable(values, n, dim, {memory, dtype: 'float16'});
        const model = new GraphSageClassifier({
          numNodes: n,
          numClasses: 6,
          embeddingDim: 0,
          features,
          hiddenDim: 32,
          numLayers: 2,
          dropout: 0,
          seed: 4,
          embeddingLearningRate: 0,
        });
        const seeds = Int32Array.from({length: 40}, (_, i) => i * 17);
        const sub =
          sampler.op === 'embeddingGatherMean'
            ? wm.graph.sampleFixedSubgraph(graph, seeds, [7, 5], {seed: 9})
            : wm.graph.sampleSubgraphInPlace(graph, seeds, [7, 5], {seed: 9});
        const y = tf.tensor1d(
          Int32Array.from({length: 40}, (_, i) => i % 6),
          'int32',
        );
        const p = wm.profileOps(() => {
          const {value, grads} = tf.variableGrads(
            () => wm.nn.softmaxCrossEntropy(y, model.forward(sub, 1)) as tf.Scalar,
            model.denseVariables,
          );
          const out = [value, ...model.denseVariables.map((v) => grads[v.name])].map((t) => t.dataSync().slice() as Float32Array);
          tf.dispose([value, ...Object.values(grads)]);
          return out;
        });
        sub.dispose();
        y.dispose();
        model.dispose();
        features.dispose();
        return p;
      };
      const inPlace = runWith('device');
      const gathered = runWith('host');
      expect(inPlace.ops.map((o) => o.name)).to.include(sampler.op);
      expect(gathered.ops.map((o) => o.name)).to.not.include(sampler.op);
      inPlace.result.forEach((got, k) =>
        got.forEach((v, i) => {
          const e = gathered.result[k][i];
          // A block's mean scales each entry before summing where the fused read sums then scales.
          if (!(Math.abs(v - e) <= 1e-5 + 1e-4 * Math.abs(e)))
            expect.fail(`${k === 0 ? 'loss' : `gradient ${k - 1}`} [${i}]: ${v}, gathered ${e}`);
        }),
      );
      graph.dispose();
    });
  }

  for (const c of [
    {inDim: 33, outDim: 7, relu: false, hop: 0},
    {inDim: 128, outDim: 64, relu: true, hop: 1},
    {inDim: 4, outDim: 1, relu: true, hop: 0},
  ]) {
    it(`a GPU sampler's block (hop ${c.hop}, rows without entries, ${c.inDim} -> ${c.outDim}${c.relu ? ', ReLU' : ''}) runs as one op each way: output and gradients equal a float64 reference's`, async function () {
      gpuOnly(this);
      await tf.setBackend(wm.BACKEND_NAME);
      const r = rng(c.inDim * 31 + c.hop);
      // Vertices 400 .. 499 have no edges: their rows of the block are empty.
      const n = 500;
      const src = Int32Array.from({length: 1800}, () => Math.floor(r() * 400)),
        dst = Int32Array.from({length: 1800}, () => Math.floor(r() * 400));
      const graph = new wm.graph.DeviceCsr(wm.graph.NativeCsr.fromEdges({numVertices: n, src, dst, directed: false}, {symmetric: true}));
      const seeds = Int32Array.from({length: 61}, (_, i) => (i * 83) % n);
      const sub = wm.graph.sampleSubgraphInPlace(graph, seeds, [6, 5], {seed: 3});
      const layer = sub.layers[c.hop] as wm.graph.BlockLayer;
      const {rowPtr, colIdx} = layer.block.entries(false);
      const rows = layer.block.numRows,
        cols = layer.block.numCols;
      expect(
        Array.from({length: rows}, (_, i) => rowPtr[i + 1] - rowPtr[i]).some((d) => d === 0),
        'an empty row',
      ).to.equal(true);
      const hv = random(cols * c.inDim, r),
        wsv = random(c.inDim * c.outDim, r, 0.3),
        wnv = random(c.inDim * c.outDim, r, 0.3),
        bv = random(c.outDim, r, 0.5),
        uv = random(rows * c.outDim, r);
      const [h, ws, wn, bias] = [
        tf.tensor2d(hv, [cols, c.inDim]),
        tf.tensor2d(wsv, [c.inDim, c.outDim]),
        tf.tensor2d(wnv, [c.inDim, c.outDim]),
        tf.tensor1d(bv),
      ];
      const upstream = tf.tensor2d(uv, [rows, c.outDim]);
      const f = (x: tf.Tensor, a: tf.Tensor, b: tf.Tensor, d: tf.Tensor) =>
        wm.nn.sageLayer(x as tf.Tensor2D, layer, a as tf.Tensor2D, b as tf.Tensor2D, d as tf.Tensor1D, c.relu);
      const run = () => wm.profileOps(() => layerOutputAndGrads(f, [h, ws, wn, bias], upstream));
      const p = run();
      const again = run().result[1];
      expect(Buffer.from(again.buffer).equals(Buffer.from(p.result[1].buffer)), "h's gradient, the same bits every run").to.equal(true);
      const names = p.ops.map((o) => o.name);
      // tfjs ops would add the bias and apply the ReLU apart (binary and unary ops), never biasActivation.
      expect(names, 'the fused path').to.include.members(['csrSpmm', 'csrSpmmScatter', 'biasActivation', 'biasActivationGrad']);
      // float64: z = h[:rows] ws + mean wn + bias, y = act(z); the gradients of sum(y * upstream).
      const I = c.inDim,
        O = c.outDim;
      const mean = new Float64Array(rows * I);
      for (let i = 0; i < rows; ++i) {
        const deg = rowPtr[i + 1] - rowPtr[i];
        for (let e = rowPtr[i]; e < rowPtr[i + 1]; ++e) for (let k = 0; k < I; ++k) mean[i * I + k] += hv[colIdx[e] * I + k] / deg;
      }
      const y = new Float64Array(rows * O),
        dz = new Float64Array(rows * O);
      for (let i = 0; i < rows; ++i)
        for (let j = 0; j < O; ++j) {
          let z = bv[j];
          for (let k = 0; k < I; ++k) z += hv[i * I + k] * wsv[k * O + j] + mean[i * I + k] * wnv[k * O + j];
          y[i * O + j] = c.relu ? Math.max(z, 0) : z;
          dz[i * O + j] = !c.relu || z > 0 ? uv[i * O + j] : 0;
        }
      const dh = new Float64Array(cols * I),
        dws = new Float64Array(I * O),
        dwn = new Float64Array(I * O),
        db = new Float64Array(O);
      for (let i = 0; i < rows; ++i) {
        const deg = rowPtr[i + 1] - rowPtr[i];
        for (let j = 0; j < O; ++j) {
          const g = dz[i * O + j];
          db[j] += g;
          for (let k = 0; k < I; ++k) {
            dws[k * O + j] += hv[i * I + k] * g;
            dwn[k * O + j] += mean[i * I + k] * g;
            dh[i * I + k] += g * wsv[k * O + j];
            for (let e = rowPtr[i]; e < rowPtr[i + 1]; ++e) dh[colIdx[e] * I + k] += (g * wnv[k * O + j]) / deg;
          }
        }
      }
      [y, dh, dws, dwn, db].forEach((want, q) => {
        const got = p.result[q];
        expect(got.length).to.equal(want.length);
        got.forEach((v, i) => {
          if (!(Math.abs(v - want[i]) <= 1e-4 + 1e-4 * Math.abs(want[i])))
            expect.fail(`${['output', 'dh', 'dwSelf', 'dwNeigh', 'dbias'][q]} [${i}]: ${v}, float64 ${want[i]}`);
        });
      });
      expect(
        p.result[1].some((v, i) => i >= rows * I && v !== 0),
        "dh beyond the block's own rows",
      ).to.equal(true);
      tf.dispose([h, ws, wn, bias, upstream]);
      sub.dispose();
      graph.dispose();
    });
  }

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

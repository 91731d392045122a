// The graph layers (wm.nn.gcnConv, sageConv, ginConv, gatConv): outputs and gradients against the same
// layer written with dense tfjs ops from the adjacency, on random graphs with isolated vertices and a hub,
// over CSR blocks and fixed fan-out layers; a tf.sequential of them saved and loaded; errors by name.
import {execFileSync} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';
import * as tfl from '@tensorflow/tfjs-layers';
import {expect} from 'chai';

import * as wm from '../src/index';
import {CsrBlock} from '../src/graph/aggregate';
import {CsrGraph} from '../src/graph/csr';
import {rng} from './helpers';
import {tempDir} from './temp_dirs';

function closeTo(got: ArrayLike<number>, want: ArrayLike<number>, tol: number, what: string): void {
  expect(got.length, `${what}: length`).to.equal(want.length);
  for (let i = 0; i < want.length; ++i) {
    const t = tol * Math.max(1, Math.abs(want[i]));
    if (!(Math.abs(got[i] - want[i]) <= t)) expect.fail(`${what}: [${i}] = ${got[i]}, the dense reference gives ${want[i]} (±${t})`);
  }
}

/** A symmetric random graph: vertex 0 a hub, the last two isolated. */
function randomGraph(n: number, m: number, seed: number): CsrGraph {
  const r = rng(seed);
  const src = Int32Array.from({length: m}, (_, e) => (e % 4 === 0 ? 0 : Math.floor(r() * (n - 2))));
  const dst = Int32Array.from({length: m}, () => Math.floor(r() * (n - 2)));
  return CsrGraph.fromEdges({numVertices: n, src, dst, directed: false}, {symmetric: true});
}

/** The dense adjacency [rows, cols] of a block (entry counts: a repeated column counts twice). */
function dense(block: {rowPtr: Int32Array; colIdx: Int32Array}, rows: number, cols: number): Float32Array {
  const a = new Float32Array(rows * cols);
  for (let r = 0; r < rows; ++r) for (let e = block.rowPtr[r]; e < block.rowPtr[r + 1]; ++e) a[r * cols + block.colIdx[e]] += 1;
  return a;
}

/** Each row's reduction of its neighbours' rows, with tfjs ops per row (the reference of sageConv). */
function reduceRef(x: tf.Tensor2D, rows: number[][], how: 'mean' | 'sum' | 'max' | 'min'): tf.Tensor2D {
  const d = x.shape[1];
  return tf.stack(
    rows.map((nb) => {
      if (nb.length === 0) return tf.zeros([d]);
      const g = tf.gather(x, tf.tensor1d(nb, 'int32'));
      return how === 'mean' ? tf.mean(g, 0) : how === 'sum' ? tf.sum(g, 0) : how === 'max' ? tf.max(g, 0) : tf.min(g, 0);
    }),
  ) as tf.Tensor2D;
}

function rowsOf(g: CsrGraph): number[][] {
  return Array.from({length: g.numVertices}, (_, v) => Array.from(g.colIdx.subarray(g.rowPtr[v], g.rowPtr[v + 1])));
}

/** Output and the gradients of sum(out * probe) in x and every weight. */
function withGrads(layer: tfl.layers.Layer, x: tf.Tensor2D, f: (x: tf.Tensor2D) => tf.Tensor2D): {y: Float32Array; g: Float32Array[]} {
  const y = f(x);
  const probe = tf.randomNormal(y.shape, 0, 1, 'float32', 4);
  const names = layer.trainableWeights.map((w) => w.name);
  const {grads} = tf.variableGrads(() => tf.sum(tf.mul(f(x), probe)) as tf.Scalar);
  const gx = tf.grad((xx: tf.Tensor) => tf.sum(tf.mul(f(xx as tf.Tensor2D), probe)))(x);
  const out = {
    y: y.dataSync() as Float32Array,
    g: [gx.dataSync() as Float32Array, ...names.map((k) => grads[k].dataSync() as Float32Array)],
  };
  tf.dispose([y, probe, gx, ...Object.values(grads)]);
  return out;
}

describe('graph layers (gcnConv, sageConv, ginConv, gatConv)', function () {
  this.timeout(120000);
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  const n = 61,
    inDim = 7;
  const graph = randomGraph(n, 180, 3);
  const r = rng(5);
  const xValues = Float32Array.from({length: n * inDim}, () => r() * 2 - 1);

  it('a seed of 0 is a seed: layers, Glorot weights and the features baseline of the typed trainer draw the same values every time', async () => {
    // tfjs' seeded ops take 0 for no seed (Math.random); ours map it to a fixed seed of its own.
    const weightsOf = () => {
      const layer = wm.nn.sageConv({units: 3, seed: 0});
      const x = tf.ones([4, 2]);
      const block = new CsrBlock(Int32Array.of(0, 1, 2, 3, 4), Int32Array.of(1, 2, 3, 0), 4);
      tf.dispose(layer.apply(x, {graph: block}) as tf.Tensor);
      const w = layer.getWeights().map((t) => Array.from(t.dataSync()));
      layer.dispose();
      tf.dispose(x);
      block.dispose();
      return w;
    };
    expect(weightsOf()).to.deep.equal(weightsOf());
    const g = wm.graph.heteroCsbm({papers: 200, authors: 50, seed: 2});
    try {
      const run = () => wm.train.trainTypedNodeClassification(g, {model: 'features', epochs: 2, seed: 0});
      const [a, b] = [await run(), await run()];
      expect([a.valAcc, a.testAcc]).to.deep.equal([b.valAcc, b.testAcc]);
    } finally {
      g.free();
    }
  });

  it('gcnConv: act(Â x W + b) with self loops and symmetric normalisation, or the plain sum; gradients in x and the weights', () => {
    const block = CsrBlock.fromGraph(graph);
    const x = tf.tensor2d(xValues, [n, inDim]);
    for (const [units, normalize, activation] of [
      [4, true, 'relu'],
      [11, false, 'linear'],
    ] as const) {
      const layer = wm.nn.gcnConv({units, normalize, activation, seed: 1});
      const got = withGrads(layer, x, (xx) => layer.apply(xx, {graph: block}) as tf.Tensor2D);
      const [w, b] = layer.getWeights();
      // Â from the dense adjacency: (A + I) scaled by 1/sqrt(deg_r deg_c), degrees counting the self loop.
      const a = dense(graph, n, n);
      if (normalize) {
        const deg = new Float32Array(n);
        for (let i = 0; i < n; ++i) {
          a[i * n + i] += 1;
          for (let j = 0; j < n; ++j) deg[i] += a[i * n + j];
        }
        for (let i = 0; i < n; ++i) for (let j = 0; j < n; ++j) a[i * n + j] /= Math.sqrt(deg[i] * deg[j]);
      }
      const A = tf.tensor2d(a, [n, n]);
      const ref = (xx: tf.Tensor2D) => {
        const y = tf.add(tf.matMul(A, tf.matMul(xx, w)), b);
        return (activation === 'relu' ? tf.relu(y) : y) as tf.Tensor2D;
      };
      const want = withGrads(layer, x, ref);
      closeTo(got.y, want.y, 1e-4, `gcnConv units ${units}: output`);
      got.g.forEach((g, i) => closeTo(g, want.g[i], 1e-4, `gcnConv units ${units}: gradient ${i}`));
      A.dispose();
      layer.dispose();
    }
    x.dispose();
    block.dispose();
  });

  for (const aggregator of ['mean', 'sum', 'max', 'min'] as const) {
    it(`sageConv (${aggregator}): over a full-graph block, with and without a root weight, normalised or not`, () => {
      const block = CsrBlock.fromGraph(graph);
      const x = tf.tensor2d(xValues, [n, inDim]);
      for (const [rootWeight, normalize, activation] of [
        [true, false, 'relu'],
        [false, true, 'tanh'],
      ] as const) {
        const layer = wm.nn.sageConv({units: 5, aggregator, rootWeight, normalize, activation, seed: 2});
        const got = withGrads(layer, x, (xx) => layer.apply(xx, {graph: block}) as tf.Tensor2D);
        const ws = layer.getWeights();
        const ref = (xx: tf.Tensor2D) => {
          let y = tf.matMul(reduceRef(xx, rowsOf(graph), aggregator), ws[0]);
          if (rootWeight) y = tf.add(y, tf.matMul(xx, ws[1]));
          y = tf.add(y, ws[ws.length - 1]);
          y = activation === 'relu' ? tf.relu(y) : tf.tanh(y);
          return (normalize ? tf.div(y, tf.sqrt(tf.maximum(tf.sum(tf.square(y), 1, true), 1e-24))) : y) as tf.Tensor2D;
        };
        const want = withGrads(layer, x, ref);
        closeTo(got.y, want.y, 1e-4, `sageConv ${aggregator} root ${rootWeight}: output`);
        got.g.forEach((g, i) => closeTo(g, want.g[i], 1e-4, `sageConv ${aggregator} root ${rootWeight}: gradient ${i}`));
        layer.dispose();
      }
      x.dispose();
      block.dispose();
    });
  }

  it('sageConv over fixed fan-out layers (the fused layer for mean): equal to the same reduction of the sampled rows', () => {
    const numDst = 13,
      fanout = 4;
    const nb = Int32Array.from({length: numDst * fanout}, () => Math.floor(r() * n));
    const neighbors = tf.tensor1d(nb, 'int32');
    const layerIn = {numDst, fanout, neighbors: neighbors as tf.Tensor1D};
    const x = tf.tensor2d(xValues, [n, inDim]);
    const rows = Array.from({length: numDst}, (_, i) => Array.from(nb.subarray(i * fanout, (i + 1) * fanout)));
    for (const aggregator of ['mean', 'sum', 'max', 'min'] as const) {
      const layer = wm.nn.sageConv({units: 6, aggregator, activation: 'relu', seed: 3});
      const got = withGrads(layer, x, (xx) => layer.apply(xx, {graph: layerIn}) as tf.Tensor2D);
      const [wn, wr, b] = layer.getWeights();
      const ref = (xx: tf.Tensor2D) =>
        tf.relu(
          tf.add(tf.add(tf.matMul(reduceRef(xx, rows, aggregator), wn), tf.matMul(tf.slice(xx, [0, 0], [numDst, inDim]), wr)), b),
        ) as tf.Tensor2D;
      const want = withGrads(layer, x, ref);
      closeTo(got.y, want.y, 1e-4, `fixed ${aggregator}: output`);
      got.g.forEach((g, i) => closeTo(g, want.g[i], 1e-4, `fixed ${aggregator}: gradient ${i}`));
      layer.dispose();
    }
    tf.dispose([x, neighbors]);
  });

  it('ginConv: MLP((1 + eps) x + sum of neighbours), eps fixed or learned, with and without biases, every output activation path', () => {
    const block = CsrBlock.fromGraph(graph);
    const x = tf.tensor2d(xValues, [n, inDim]);
    // relu and linear go through ginMlp (its backward written out), elu through the composed ops.
    for (const [trainEps, activation, eps0, useBias] of [
      [false, 'linear', 0.25, true],
      [true, 'linear', 0.25, true],
      [false, 'relu', 0, true],
      [true, 'relu', -0.5, false],
      [false, 'relu', 0.75, false],
      [false, 'elu', 0.25, true],
    ] as [boolean, 'linear' | 'relu' | 'elu', number, boolean][]) {
      const what = `ginConv trainEps ${trainEps} ${activation} eps ${eps0} bias ${useBias}`;
      const layer = wm.nn.ginConv({units: 3, hiddenUnits: 8, eps: eps0, trainEps, activation, useBias, seed: 4});
      const got = withGrads(layer, x, (xx) => layer.apply(xx, {graph: block}) as tf.Tensor2D);
      const weights = layer.getWeights();
      const [w1, b1, w2, b2] = useBias ? weights : [weights[0], undefined, weights[1], undefined];
      const eps = trainEps ? weights[weights.length - 1] : undefined;
      const ref = (xx: tf.Tensor2D) => {
        const scale = eps ? tf.add(1, eps) : tf.scalar(1 + eps0);
        const h = tf.add(tf.mul(xx, scale), reduceRef(xx, rowsOf(graph), 'sum'));
        const hidden = tf.relu(b1 ? tf.add(tf.matMul(h, w1), b1) : tf.matMul(h, w1));
        const out = b2 ? tf.add(tf.matMul(hidden, w2), b2) : tf.matMul(hidden, w2);
        return (activation === 'relu' ? tf.relu(out) : activation === 'elu' ? tf.elu(out) : out) as tf.Tensor2D;
      };
      const want = withGrads(layer, x, ref);
      closeTo(got.y, want.y, 1e-4, `${what}: output`);
      got.g.forEach((g, i) => closeTo(g, want.g[i], 1e-4, `${what}: gradient ${i}`));
      expect(layer.trainableWeights.length).to.equal((useBias ? 4 : 2) + (trainEps ? 1 : 0));
      layer.dispose();
    }
    x.dispose();
    block.dispose();
  });

  it('gatConv: heads concatenated or averaged, with or without a residual weight and self loops, against a dense masked softmax', () => {
    const block = CsrBlock.fromGraph(graph);
    const x = tf.tensor2d(xValues, [n, inDim]);
    for (const [heads, concat, residual, addSelfLoops] of [
      [3, true, false, false],
      [2, false, false, false],
      [2, true, true, false],
      [3, false, true, false],
      [3, true, false, true],
      [2, false, true, true],
    ] as const) {
      // Self loops (the default, as PyG's GATConv): each row attends over its own input too.
      const a = Float32Array.from(dense(graph, n, n));
      if (addSelfLoops) for (let i = 0; i < n; ++i) a[i * n + i] = 1;
      const units = 4;
      const layer = wm.nn.gatConv({units, heads, concat, residual, addSelfLoops, activation: 'elu', seed: 5});
      const got = withGrads(layer, x, (xx) => layer.apply(xx, {graph: block}) as tf.Tensor2D);
      const weights = layer.getWeights();
      const [w, as, ad] = weights;
      const res = residual ? weights[3] : undefined;
      const b = weights[weights.length - 1];
      const mask = tf.tensor2d(a, [n, n]);
      const ref = (xx: tf.Tensor2D) => {
        const feat = tf.reshape(tf.matMul(xx, w), [n, heads, units]);
        const outs: tf.Tensor[] = [];
        for (let h = 0; h < heads; ++h) {
          const fh = tf.squeeze(tf.slice(feat, [0, h, 0], [n, 1, units]), [1]) as tf.Tensor2D;
          const s = tf.matMul(fh, tf.reshape(tf.slice(as, [h, 0], [1, units]), [units, 1]));
          const d = tf.matMul(fh, tf.reshape(tf.slice(ad, [h, 0], [1, units]), [units, 1]));
          const logits = tf.leakyRelu(tf.add(d, tf.transpose(s)), 0.2);
          // A softmax over each row's entries (the graph has no repeated entries); rows without entries give zeros.
          const z = tf.where(tf.cast(mask, 'bool'), logits, tf.fill(logits.shape, -1e30));
          const e = tf.mul(tf.exp(tf.sub(z, tf.max(z, 1, true))), mask);
          const alpha = tf.div(e, tf.maximum(tf.sum(e, 1, true), 1e-12));
          outs.push(tf.matMul(alpha, fh));
        }
        const y = concat ? tf.concat(outs, 1) : tf.div(tf.addN(outs), heads);
        return tf.elu(tf.add(res ? tf.add(y, tf.matMul(xx, res)) : y, b)) as tf.Tensor2D;
      };
      const want = withGrads(layer, x, ref);
      closeTo(got.y, want.y, 1e-4, `gatConv ${heads} heads, residual ${residual}, loops ${addSelfLoops}: output`);
      got.g.forEach((g, i) =>
        closeTo(g, want.g[i], 2e-4, `gatConv ${heads} heads, residual ${residual}, loops ${addSelfLoops}: gradient ${i}`),
      );
      expect(layer.computeOutputShape([null, inDim] as unknown as number[])).to.deep.equal([null, concat ? heads * units : units]);
      mask.dispose();
      layer.dispose();
    }
    x.dispose();
    block.dispose();
  });

  it("kernelRegularizer's weightDecay is PyTorch's weight_decay: half tfjs' l2 penalty, the same gradient as PyTorch's", () => {
    const x = tf.tensor2d(xValues, [n, inDim]);
    const block = CsrBlock.fromGraph(graph);
    const penalty = (reg: {l2?: number; weightDecay?: number}) => {
      const layer = wm.nn.gcnConv({units: 3, seed: 2, kernelRegularizer: reg});
      tf.dispose(layer.apply(x, {graph: block}) as tf.Tensor);
      const w = layer.getWeights()[0];
      const [loss] = layer.losses.map((f) => (f as () => tf.Scalar)().dataSync()[0]);
      const sq = tf.sum(tf.square(w)).dataSync()[0];
      layer.dispose();
      return {loss, sq};
    };
    const wd = penalty({weightDecay: 4e-3});
    expect(wd.loss).to.be.closeTo((4e-3 / 2) * wd.sq, 1e-6); // d/dw = 4e-3 * w, as torch's weight_decay
    const l2 = penalty({l2: 4e-3});
    expect(l2.loss).to.be.closeTo(4e-3 * l2.sq, 1e-6);
    expect(() => wm.nn.gcnConv({units: 2, kernelRegularizer: {weightDecay: -1}})).to.throw(
      /kernelRegularizer\.weightDecay must be a non-negative number/,
    );
    x.dispose();
    block.dispose();
  });

  it('gatConv adds self loops by default; a config saved before the option existed loads without them', () => {
    const GatConv = wm.nn.gatConv({units: 2}).constructor as typeof import('../src/nn/conv/gat_conv').GatConv;
    expect(wm.nn.gatConv({units: 2}).addSelfLoops).to.equal(true);
    expect(wm.nn.gatConv({units: 2}).getConfig().addSelfLoops).to.equal(true);
    const old = GatConv.fromConfig(GatConv, {units: 2, heads: 1}) as unknown as {addSelfLoops: boolean};
    expect(old.addSelfLoops).to.equal(false);
    const block = CsrBlock.fromGraph(graph);
    const looped = block.withSelfLoops();
    expect(looped).to.equal(block.withSelfLoops()); // made once
    for (let r = 0; r < looped.numRows; ++r) {
      const own = [] as number[];
      for (let e = graph.rowPtr[r]; e < graph.rowPtr[r + 1]; ++e) if (graph.colIdx[e] !== r) own.push(graph.colIdx[e]);
      const rp = (looped as unknown as {csr: {rowPtr: Int32Array; colIdx: Int32Array}}).csr;
      expect(Array.from(rp.colIdx.subarray(rp.rowPtr[r], rp.rowPtr[r + 1]))).to.deep.equal([...own, r]);
    }
    block.dispose();
  });

  it('gatConv: attention dropout while training (a mask per call, the same for the same seed), none at inference', () => {
    const block = CsrBlock.fromGraph(graph);
    const x = tf.tensor2d(xValues, [n, inDim]);
    const make = () => wm.nn.gatConv({units: 4, heads: 2, dropout: 0.5, seed: 11});
    const a = make(),
      b = make(),
      plain = wm.nn.gatConv({units: 4, heads: 2, seed: 11});
    try {
      const infer = a.apply(x, {graph: block}) as tf.Tensor;
      const ref = plain.apply(x, {graph: block}) as tf.Tensor;
      closeTo(infer.dataSync(), ref.dataSync(), 0, 'inference ignores the dropout');
      const t1 = a.apply(x, {graph: block, training: true}) as tf.Tensor;
      const t2 = a.apply(x, {graph: block, training: true}) as tf.Tensor;
      const u1 = b.apply(x, {graph: block, training: true}) as tf.Tensor;
      // The same mask (GPU sums with atomics may round differently; another mask differs by far more).
      closeTo(u1.dataSync(), t1.dataSync(), 1e-5, 'the same seed, the same first mask');
      const differ = (p: tf.Tensor, q: tf.Tensor) => p.dataSync().some((v, i) => Math.abs(v - q.dataSync()[i]) > 1e-6);
      expect(differ(t1, ref), 'a training call drops coefficients').to.equal(true);
      expect(differ(t1, t2), 'each training call draws its own mask').to.equal(true);
      const {value, grads} = tf.variableGrads(() => tf.sum(a.apply(x, {graph: block, training: true}) as tf.Tensor) as tf.Scalar);
      for (const w of a.trainableWeights) expect(Array.from(grads[w.name].dataSync()).every(Number.isFinite), w.name).to.equal(true);
      expect(a.getConfig().dropout).to.equal(0.5);
      expect(() => wm.nn.gatConv({units: 2, dropout: 1})).to.throw(/gatConv: dropout must be in \[0, 1\), got 1/);
      tf.dispose([infer, ref, t1, t2, u1, value, ...Object.values(grads)]);
    } finally {
      [a, b, plain].forEach((l) => l.dispose());
      x.dispose();
      block.dispose();
    }
  });

  it('model.fit trains a model of graph layers full-batch inside an awaited withGraph; nested scopes read their own graph', async () => {
    const data = wm.graph.csbm({vertices: 300, classes: 3, features: 12, degree: 6, homophily: 0.9, signal: 2, seed: 4});
    const block = CsrBlock.fromGraph(data.graph);
    const x = tf.tensor2d(data.features!.values, [300, 12]);
    const y = tf.oneHot(tf.tensor1d(data.labels, 'int32'), 3);
    const model = tfl.sequential({
      layers: [wm.nn.gcnConv({units: 16, activation: 'relu', inputShape: [12], seed: 1}), wm.nn.gcnConv({units: 3, seed: 2})],
    });
    model.compile({optimizer: tf.train.adam(0.05), loss: (t: tf.Tensor, p: tf.Tensor) => tf.losses.softmaxCrossEntropy(t, p)});
    const h = await wm.nn.withGraph(block, () => model.fit(x, y, {batchSize: 300, epochs: 30, shuffle: false, verbose: 0}));
    const losses = h.history.loss as number[];
    expect(losses[losses.length - 1]).to.be.below(losses[0] * 0.5);
    // Outside any scope the layers say so; an inner scope's graph is the one read inside it.
    expect(() => model.apply(x)).to.throw(/no graph/);
    const other = CsrBlock.fromGraph(
      wm.graph.CsrGraph.fromEdges({numVertices: 300, src: new Int32Array(0), dst: new Int32Array(0), directed: true}, {symmetric: false}),
    );
    const outer = wm.nn.withGraph(block, () => tf.tidy(() => Array.from((model.apply(x) as tf.Tensor).dataSync())));
    const inner = wm.nn.withGraph(block, () =>
      wm.nn.withGraph(other, () => tf.tidy(() => Array.from((model.apply(x) as tf.Tensor).dataSync()))),
    );
    expect(inner).to.not.deep.equal(outer);
    tf.dispose([x, y]);
    model.dispose();
    block.dispose();
    other.dispose();
  });

  it('a tf.sequential of graph layers runs inside withGraph (one block for all, or one per layer), saves and loads', async () => {
    const dir = tempDir('wm-graph-layers-');
    const block = CsrBlock.fromGraph(graph);
    const x = tf.tensor2d(xValues, [n, inDim]);
    try {
      const model = tfl.sequential({
        layers: [
          wm.nn.gcnConv({units: 8, activation: 'relu', inputShape: [inDim], seed: 1, kernelRegularizer: {l2: 5e-4}}),
          wm.nn.sageConv({units: 6, aggregator: 'max', activation: 'relu', seed: 2}),
          wm.nn.gatConv({units: 3, heads: 2, concat: false, seed: 3}),
        ],
      });
      const want = wm.nn.withGraph(block, () => model.apply(x) as tf.Tensor);
      // One graph per layer, in call order: the same block three times gives the same outputs.
      const listed = wm.nn.withGraph([block, block, block], () => model.apply(x) as tf.Tensor);
      closeTo(listed.dataSync(), want.dataSync(), 0, 'a list of blocks');
      expect(() => wm.nn.withGraph([block, block], () => model.apply(x))).to.throw(
        /the graph given to withGraph has 2 layers, and this is graph layer 3/,
      );
      const penalties = model.calculateLosses(); // the L2 penalty of the first layer's kernel
      expect(penalties.length).to.equal(1);
      tf.dispose(penalties);
      await model.save(`file://${dir}`);
      const loaded = await tfl.loadLayersModel(`file://${dir}/model.json`);
      expect(loaded.layers.map((l) => l.getClassName())).to.deep.equal(['WmGcnConv', 'WmSageConv', 'WmGatConv']);
      expect((loaded.layers[1] as wm.nn.SageConv).aggregator).to.equal('max');
      const again = wm.nn.withGraph(block, () => loaded.apply(x) as tf.Tensor);
      closeTo(again.dataSync(), want.dataSync(), 0, 'the loaded model');
      tf.dispose([want, listed, again]);
      model.layers.forEach((l) => l.dispose());
      loaded.layers.forEach((l) => l.dispose());
    } finally {
      x.dispose();
      block.dispose();
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('edge weights: sum, mean and gcn over a weighted block, the layers over it, and max / min of weighted messages', () => {
    const base = CsrBlock.fromGraph(graph);
    const m = graph.colIdx.length;
    const w = Float32Array.from({length: m}, () => 0.1 + 2 * r());
    const block = base.withWeights(w);
    expect(base.weights).to.equal(undefined);
    const x = tf.tensor2d(xValues, [n, inDim]);
    // The dense weighted adjacency, and each row's entry count.
    const aw = new Float32Array(n * n),
      count = new Float32Array(n);
    for (let v = 0; v < n; ++v)
      for (let e = graph.rowPtr[v]; e < graph.rowPtr[v + 1]; ++e) {
        aw[v * n + graph.colIdx[e]] += w[e];
        ++count[v];
      }
    const gcnDense = Float32Array.from(aw);
    for (let v = 0; v < n; ++v) gcnDense[v * n + v] += 1; // the graph has no self loops: each gains one of weight 1
    const rowSum = new Float32Array(n),
      colSum = new Float32Array(n);
    for (let i = 0; i < n; ++i)
      for (let j = 0; j < n; ++j) {
        rowSum[i] += gcnDense[i * n + j];
        colSum[j] += gcnDense[i * n + j];
      }
    for (let i = 0; i < n; ++i) for (let j = 0; j < n; ++j) gcnDense[i * n + j] /= Math.sqrt(rowSum[i] * colSum[j]);
    const A = tf.tensor2d(aw, [n, n]),
      G = tf.tensor2d(gcnDense, [n, n]),
      inv = tf.tensor2d(
        Float32Array.from(count, (c) => (c > 0 ? 1 / c : 0)),
        [n, 1],
      );
    const refs: {[k in 'sum' | 'mean' | 'gcn']: (xx: tf.Tensor2D) => tf.Tensor2D} = {
      sum: (xx) => tf.matMul(A, xx),
      mean: (xx) => tf.mul(tf.matMul(A, xx), inv) as tf.Tensor2D,
      gcn: (xx) => tf.matMul(G, xx),
    };
    const probe = tf.randomNormal([n, inDim], 0, 1, 'float32', 9);
    for (const reduce of ['sum', 'mean', 'gcn'] as const) {
      const got = wm.graph.aggregate(x, block, reduce),
        want = refs[reduce](x);
      closeTo(got.dataSync(), want.dataSync(), 1e-4, `weighted ${reduce}`);
      const g1 = tf.grad((xx: tf.Tensor) => tf.sum(tf.mul(wm.graph.aggregate(xx as tf.Tensor2D, block, reduce), probe)))(x);
      const g2 = tf.grad((xx: tf.Tensor) => tf.sum(tf.mul(refs[reduce](xx as tf.Tensor2D), probe)))(x);
      closeTo(g1.dataSync(), g2.dataSync(), 1e-4, `weighted ${reduce}: gradient`);
      tf.dispose([got, want, g1, g2]);
    }
    // The layers read the block's weights: gcnConv's output is act(G x W + b).
    const layer = wm.nn.gcnConv({units: 4, seed: 8});
    const y = layer.apply(x, {graph: block}) as tf.Tensor;
    const [k, b] = layer.getWeights();
    closeTo(y.dataSync(), tf.add(tf.matMul(G, tf.matMul(x, k)), b).dataSync(), 1e-4, 'gcnConv over a weighted block');
    // Max and min take the weighted messages w_e x_c.
    const rows = rowsOf(graph);
    for (const how of ['max', 'min'] as const) {
      const sage = wm.nn.sageConv({units: 3, aggregator: how, rootWeight: false, useBias: false, seed: 9});
      const got = sage.apply(x, {graph: block}) as tf.Tensor;
      const [wn] = sage.getWeights();
      const want = tf.tidy(() =>
        tf.matMul(
          tf.stack(
            rows.map((nb, v) => {
              if (nb.length === 0) return tf.zeros([inDim]);
              const ws = tf.tensor2d(w.subarray(graph.rowPtr[v], graph.rowPtr[v + 1]), [nb.length, 1]);
              const msgs = tf.mul(tf.gather(x, tf.tensor1d(nb, 'int32')), ws);
              return how === 'max' ? tf.max(msgs, 0) : tf.min(msgs, 0);
            }),
          ) as tf.Tensor2D,
          wn,
        ),
      );
      closeTo(got.dataSync(), want.dataSync(), 1e-4, `sageConv ${how} over weighted messages`);
      tf.dispose([got, want]);
      sage.dispose();
    }
    expect(() => wm.nn.gatConv({units: 2}).apply(x, {graph: block})).to.throw(
      /gatConv: the block has edge weights, which attention does not read/,
    );
    expect(() => base.withWeights(new Float32Array(3))).to.throw(
      new RegExp(`withWeights: weights must hold one number per entry \\(${m}\\), got 3`),
    );
    const bad = Float32Array.from(w);
    bad[5] = NaN;
    expect(() => base.withWeights(bad)).to.throw(/withWeights: weights\[5\] = NaN is not a finite number/);
    tf.dispose([x, A, G, inv, probe, y]);
    layer.dispose();
    block.dispose();
    base.dispose();
  });

  it('layer-wise inference of a model of graph layers equals its full-graph apply, over CSR arrays and native graphs', () => {
    const x = tf.tensor2d(xValues, [n, inDim]);
    const features = wm.nn.featureTable(xValues, n, inDim);
    const block = CsrBlock.fromGraph(graph);
    const native = wm.graph.NativeCsr.fromCsr(graph.rowPtr, graph.colIdx);
    const model = tfl.sequential({
      layers: [
        tfl.layers.dense({units: 9, inputShape: [inDim], activation: 'tanh'}), // before the first graph layer: the inputs' shaping
        wm.nn.gcnConv({units: 8, activation: 'relu', seed: 1}),
        tfl.layers.dropout({rate: 0.5}), // a follower: identity at inference
        wm.nn.sageConv({units: 6, aggregator: 'max', activation: 'relu', seed: 2}),
        wm.nn.ginConv({units: 5, seed: 3}),
        wm.nn.gatConv({units: 3, heads: 2, seed: 4}),
      ],
    });
    try {
      const want = wm.nn.withGraph(block, () => model.apply(x) as tf.Tensor);
      const wantData = want.dataSync();
      for (const g of [graph, native])
        for (const batchSize of [7, n]) {
          const table = wm.nn.inferLayerwise(model, g, features, {batchSize});
          const got = table.read(Int32Array.from({length: n}, (_, i) => i));
          closeTo(got.dataSync(), wantData, 1e-4, `${g === graph ? 'arrays' : 'native'}, batches of ${batchSize}`);
          tf.dispose(got);
          table.dispose();
        }
      const classes = wm.nn.predictLayerwise(model, native, features, {batchSize: 10});
      expect(Array.from(classes)).to.deep.equal(Array.from(tf.argMax(want, 1).dataSync()));
      want.dispose();
      expect(() =>
        wm.nn.inferLayerwise(tfl.sequential({layers: [tfl.layers.dense({units: 2, inputShape: [inDim]})]}), graph, features),
      ).to.throw(/the model has no graph layer/);
    } finally {
      x.dispose();
      features.dispose();
      block.dispose();
      native.free();
      model.layers.forEach((l) => l.dispose());
    }
  });

  it("the guide's models (examples/gnn-layers) learn a CSBM graph: GCN and GAT full-batch, GraphSAGE from a NeighborLoader", () => {
    const script = path.join(__dirname, '..', 'examples', 'gnn-layers.js');
    const out = execFileSync(process.execPath, [script, '--epochs', '60', '--vertices', '2000'], {encoding: 'utf8'});
    const acc = (name: string) => Number(new RegExp(`${name}: test accuracy ([0-9.]+) %`).exec(out)?.[1]);
    // Six classes: chance is 16.7 %.
    expect(acc('GCN'), out).to.be.above(80);
    expect(acc('GAT'), out).to.be.above(70);
    expect(acc('GraphSAGE'), out).to.be.above(50);
  });

  it('refuses what it cannot do, by name', () => {
    const x = tf.tensor2d(xValues, [n, inDim]);
    const fixed = {numDst: 3, fanout: 2, neighbors: tf.tensor1d([0, 1, 2, 3, 4, 5], 'int32') as tf.Tensor1D};
    const block = CsrBlock.fromGraph(graph);
    try {
      expect(() => wm.nn.gcnConv({units: 0})).to.throw(/gcnConv: units must be a positive integer, got 0/);
      expect(() => wm.nn.sageConv({units: 2, aggregator: 'median' as 'mean'})).to.throw(
        /sageConv: aggregator must be one of mean, sum, max, min/,
      );
      expect(() => wm.nn.gatConv({units: 2, activation: 'swish' as 'relu'})).to.throw(/gatConv: activation must be one of/);
      expect(() => wm.nn.gcnConv({units: 2}).apply(x)).to.throw(/gcnConv: no graph: pass \{graph\}/);
      expect(() => wm.nn.gcnConv({units: 2}).apply(x, {graph: fixed})).to.throw(/gcnConv: needs a CSR block .* got a fixed fan-out layer/);
      expect(() => wm.nn.gcnConv({units: 2}).apply(x, {graph: graph as unknown as CsrBlock})).to.throw(
        /gcnConv: graph must be a layer's edges, got a graph \(CsrGraph\): make its block with wm\.graph\.CsrBlock\.fromGraph\(graph\)/,
      );
      const small = tf.slice(x, [0, 0], [10, inDim]);
      expect(() => wm.nn.sageConv({units: 2, aggregator: 'sum'}).apply(small, {graph: block})).to.throw(
        /sageConv: the graph computes 61 rows, the input has only 10/,
      );
      small.dispose();
    } finally {
      tf.dispose([x, fixed.neighbors]);
      block.dispose();
    }
  });
});

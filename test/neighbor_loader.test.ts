// The neighbour loader: every seed once per epoch in batches of the asked size, layers that fit the
// layers (the seeds last, the features' rows first), the same batches for the same seed, a prepared
// batch freed when a loop stops early, and a model trained from it learning a CSBM's classes.
import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {NativeCsr} from '../src/graph/native_csr';
import {NeighborBatch, NeighborLoader} from '../src/nn/neighbor_loader';

async function collect(loader: AsyncIterable<NeighborBatch>, keep = false): Promise<NeighborBatch[]> {
  const out: NeighborBatch[] = [];
  for await (const b of loader) {
    out.push(b);
    if (!keep) b.dispose();
  }
  return out;
}

describe('wm.nn.NeighborLoader', function () {
  this.timeout(120000);
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  const data = wm.graph.csbm({vertices: 600, classes: 4, features: 8, degree: 8, homophily: 0.9, signal: 2, seed: 3});
  const seeds = Array.from({length: 250}, (_, i) => (i * 7) % 600);

  it('every seed once per epoch, in batches of batchSize (the last smaller, or dropped)', async () => {
    const loader = new NeighborLoader(data.graph, seeds, {fanouts: [5, 3], batchSize: 64, seed: 1});
    expect(loader.length).to.equal(4);
    for (let e = 0; e < 2; ++e) {
      const batches = await collect(loader);
      expect(batches.map((b) => b.seeds.length)).to.deep.equal([64, 64, 64, 58]);
      expect(batches.map((b) => [b.epoch, b.index])).to.deep.equal([0, 1, 2, 3].map((i) => [e, i]));
      const all = batches.flatMap((b) => Array.from(b.seeds)).sort((a, b) => a - b);
      expect(all).to.deep.equal([...seeds].sort((a, b) => a - b));
    }
    const dropped = new NeighborLoader(data.graph, seeds, {fanouts: [2], batchSize: 64, dropLast: true});
    expect(dropped.length).to.equal(3);
    expect((await collect(dropped)).map((b) => b.seeds.length)).to.deep.equal([64, 64, 64]);
    const ordered = new NeighborLoader(data.graph, seeds, {fanouts: [2], batchSize: 100, shuffle: false});
    expect(Array.from((await collect(ordered))[1].seeds)).to.deep.equal(seeds.slice(100, 200));
  });

  it("layers that fit the layers: the seeds last, the features of the first inputs, the seeds' labels", async () => {
    const features = wm.nn.featureTable(data.features!.values, 600, 8);
    const loader = new NeighborLoader(data.graph, Int32Array.from(seeds), {
      fanouts: [4, 3],
      batchSize: 50,
      features,
      labels: Array.from(data.labels),
      seed: 2,
    });
    const [b] = await collect(loader, true);
    expect(b.layers.length).to.equal(2);
    expect(Array.from(b.layers[1].dst)).to.deep.equal(Array.from(b.seeds));
    expect(Array.from(b.layers[1].src.subarray(0, b.seeds.length))).to.deep.equal(Array.from(b.seeds));
    expect(Array.from(b.layers[0].dst)).to.deep.equal(Array.from(b.layers[1].src));
    expect(b.x!.shape).to.deep.equal([b.layers[0].src.length, 8]);
    const want = Array.from(b.layers[0].src).flatMap((v) => Array.from(data.features!.values.subarray(v * 8, v * 8 + 8)));
    expect(Array.from(b.x!.dataSync())).to.deep.equal(want);
    expect(Array.from(b.y!.dataSync())).to.deep.equal(Array.from(b.seeds, (v) => data.labels[v]));
    // Each sampled neighbour is a neighbour of its row's vertex.
    const entries = b.layers[1].block.entries(false);
    for (let r = 0; r < b.seeds.length; ++r) {
      const nb = new Set(data.graph.neighbors(b.seeds[r]));
      expect(entries.rowPtr[r + 1] - entries.rowPtr[r]).to.equal(Math.min(4, nb.size));
      for (let e = entries.rowPtr[r]; e < entries.rowPtr[r + 1]; ++e) expect(nb.has(b.layers[1].src[entries.colIdx[e]])).to.equal(true);
    }
    b.dispose();
    features.dispose();
  });

  it('the same seed gives the same batches, epochs differ; a NativeCsr gives what the CsrGraph gives', async () => {
    const a = new NeighborLoader(data.graph, seeds, {fanouts: [3, 2], batchSize: 40, seed: 9});
    const native = NativeCsr.fromEdges(
      {numVertices: 600, src: edgesOf(data.graph).src, dst: edgesOf(data.graph).dst, directed: true},
      {symmetric: false},
    );
    const b = new NeighborLoader(native, seeds, {fanouts: [3, 2], batchSize: 40, seed: 9});
    const [ea, eb] = [await collect(a), await collect(b)];
    ea.forEach((x, i) => {
      expect(Array.from(x.seeds)).to.deep.equal(Array.from(eb[i].seeds));
      expect(Array.from(x.layers[0].src)).to.deep.equal(Array.from(eb[i].layers[0].src));
    });
    const second = await collect(a);
    expect(Array.from(second[0].seeds)).to.not.deep.equal(Array.from(ea[0].seeds));
    const again = await collect(new NeighborLoader(data.graph, seeds, {fanouts: [3, 2], batchSize: 40, seed: 9}).epoch(1));
    expect(Array.from(again[2].layers[0].src)).to.deep.equal(Array.from(second[2].layers[0].src));
    native.free();
  });

  it('a loop that stops early leaves nothing behind; bad options are named', async () => {
    const features = wm.nn.featureTable(data.features!.values, 600, 8);
    const before = tf.memory().numTensors;
    const loader = new NeighborLoader(data.graph, seeds, {fanouts: [3], batchSize: 30, features, labels: data.labels});
    for await (const b of loader) {
      await b.x!.data(); // the next batch is sampled meanwhile
      b.dispose();
      if (b.index === 2) break;
    }
    await new Promise((r) => setImmediate(r));
    expect(tf.memory().numTensors).to.equal(before);
    features.dispose();
    const g = data.graph;
    expect(() => new NeighborLoader(g, [1, 1], {fanouts: [2], batchSize: 2})).to.throw(/seeds must be distinct/);
    expect(() => new NeighborLoader(g, [600], {fanouts: [2], batchSize: 2})).to.throw(
      /seeds\[0\] = 600 is not a vertex of the graph \(it has 600\)/,
    );
    expect(() => new NeighborLoader(g, [1], {fanouts: [], batchSize: 2})).to.throw(/fanouts must be a non-empty array/);
    expect(() => new NeighborLoader(g, [1], {fanouts: [2], batchSize: 0})).to.throw(/batchSize must be a positive integer, got 0/);
    expect(() => new NeighborLoader(g, [1], {fanouts: [2], batchSize: 2, labels: [1, 2]})).to.throw(
      /labels has 2 entries, the graph 600 vertices/,
    );
  });

  it('a two-layer GraphSAGE trained from the loader learns the classes (sageLayer over its layers)', async () => {
    const features = wm.nn.featureTable(data.features!.values, 600, 8);
    const train = Array.from({length: 300}, (_, i) => i * 2);
    const test = Array.from({length: 300}, (_, i) => i * 2 + 1);
    const w = [
      [tf.variable(wm.nn.glorot([8, 16], 8, 16, 1)), tf.variable(wm.nn.glorot([8, 16], 8, 16, 2)), tf.variable(tf.zeros([16]))],
      [tf.variable(wm.nn.glorot([16, 4], 16, 4, 3)), tf.variable(wm.nn.glorot([16, 4], 16, 4, 4)), tf.variable(tf.zeros([4]))],
    ] as [tf.Variable<tf.Rank.R2>, tf.Variable<tf.Rank.R2>, tf.Variable<tf.Rank.R1>][];
    const forward = (b: NeighborBatch) =>
      b.layers.reduce((h, layer, l) => wm.nn.sageLayer(h, layer, w[l][0], w[l][1], w[l][2], l === 0), b.x!);
    const opt = tf.train.adam(0.02);
    const loader = new NeighborLoader(data.graph, train, {fanouts: [5, 5], batchSize: 64, features, labels: data.labels, seed: 4});
    for (let e = 0; e < 15; ++e)
      for await (const b of loader) {
        opt.minimize(() => tf.losses.softmaxCrossEntropy(tf.oneHot(b.y!, 4), forward(b)) as tf.Scalar);
        b.dispose();
      }
    let right = 0;
    for await (const b of new NeighborLoader(data.graph, test, {
      fanouts: [10, 10],
      batchSize: 100,
      features,
      labels: data.labels,
      shuffle: false,
    })) {
      const pred = tf.tidy(() => tf.argMax(forward(b), 1));
      const p = pred.dataSync(),
        y = b.y!.dataSync();
      p.forEach((c, i) => (right += c === y[i] ? 1 : 0));
      pred.dispose();
      b.dispose();
    }
    expect(right / test.length, 'test accuracy').to.be.above(0.8);
    tf.dispose(w.flat());
    opt.dispose();
    features.dispose();
  });
});

function edgesOf(g: wm.graph.CsrGraph): {src: Int32Array; dst: Int32Array} {
  const src = new Int32Array(g.numEdges),
    dst = new Int32Array(g.numEdges);
  for (let v = 0; v < g.numVertices; ++v)
    for (let e = g.rowPtr[v]; e < g.rowPtr[v + 1]; ++e) {
      src[e] = v;
      dst[e] = g.colIdx[e];
    }
  return {src, dst};
}

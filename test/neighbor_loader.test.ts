// The neighbour loaders: every seed (or edge) once per epoch in batches of the asked size, layers that fit the
// layers (the seeds last, the features' rows first), the same batches for the same seed, a prepared
// batch freed when a loop stops early, and a model trained from it learning a CSBM's classes.
import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {NativeCsr} from '../src/graph/native_csr';
import {soloCommunicator} from '../src/memory/communicator';
import {LinkNeighborLoader, NeighborBatch, NeighborLoader} from '../src/nn/neighbor_loader';
import {gpuOnly} from './helpers';

async function collect<B extends {dispose(): void}>(loader: AsyncIterable<B>, keep = false): Promise<B[]> {
  const out: B[] = [];
  for await (const b of loader) {
    out.push(b);
    if (!keep) b.dispose();
  }
  return out;
}

// A host graph's compact subgraphs: layers with their vertices' global ids.
const hostLayers = (b: {layers: unknown[]}) => b.layers as wm.graph.SubgraphLayer[];
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
    expect(Array.from(hostLayers(b)[1].dst)).to.deep.equal(Array.from(b.seeds));
    expect(Array.from(hostLayers(b)[1].src.subarray(0, b.seeds.length))).to.deep.equal(Array.from(b.seeds));
    expect(Array.from(hostLayers(b)[0].dst)).to.deep.equal(Array.from(hostLayers(b)[1].src));
    expect(b.x!.shape).to.deep.equal([hostLayers(b)[0].src.length, 8]);
    const want = Array.from(hostLayers(b)[0].src).flatMap((v) => Array.from(data.features!.values.subarray(v * 8, v * 8 + 8)));
    expect(Array.from(b.x!.dataSync())).to.deep.equal(want);
    expect(Array.from(b.y!.dataSync())).to.deep.equal(Array.from(b.seeds, (v) => data.labels[v]));
    // Each sampled neighbour is a neighbour of its row's vertex.
    const entries = hostLayers(b)[1].block.entries(false);
    for (let r = 0; r < b.seeds.length; ++r) {
      const nb = new Set(data.graph.neighbors(b.seeds[r]));
      expect(entries.rowPtr[r + 1] - entries.rowPtr[r]).to.equal(Math.min(4, nb.size));
      for (let e = entries.rowPtr[r]; e < entries.rowPtr[r + 1]; ++e)
        expect(nb.has(hostLayers(b)[1].src[entries.colIdx[e]])).to.equal(true);
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
      expect(Array.from(hostLayers(x)[0].src)).to.deep.equal(Array.from(hostLayers(eb[i])[0].src));
    });
    const second = await collect(a);
    expect(Array.from(second[0].seeds)).to.not.deep.equal(Array.from(ea[0].seeds));
    const again = await collect(new NeighborLoader(data.graph, seeds, {fanouts: [3, 2], batchSize: 40, seed: 9}).epoch(1));
    expect(Array.from(hostLayers(again[2])[0].src)).to.deep.equal(Array.from(hostLayers(second[2])[0].src));
    native.free();
  });

  it("the next batch is ready while the loop awaits the current one (prefetch), and never sampled twice; a batch's x read once asked for", async () => {
    const read: number[] = []; // the batch whose features were read, in order
    let current = -1;
    const features = {
      read: (ids: Int32Array) => {
        read.push(current);
        return tf.zeros([ids.length, 1]);
      },
    };
    const loader = new NeighborLoader(data.graph, seeds, {fanouts: [2], batchSize: 50, features, shuffle: false});
    const seen: number[] = [];
    for await (const b of loader) {
      current = b.index;
      expect(b.x!.shape).to.deep.equal([(b.inputIds as Int32Array).length, 1]); // the first batch's read here, the rest made ahead
      const readsBefore = read.length;
      await new Promise((r) => setTimeout(r, 5)); // the step awaiting the GPU
      // During the await the loader read batch b + 1's features (none after the last batch).
      seen.push(read.length - readsBefore);
      b.dispose();
    }
    expect(seen).to.deep.equal([1, 1, 1, 1, 0]);
    expect(read).to.deep.equal([0, 0, 1, 2, 3]); // batch 0 when asked; batch b + 1 while batch b trained
    // A loop that never asks for x (a model reading the table in place) reads no rows; one that starts asking at
    // batch 2 gets that batch's rows when it asks, and the later batches' ahead.
    read.length = 0;
    const late = new NeighborLoader(data.graph, seeds, {fanouts: [2], batchSize: 50, features, shuffle: false});
    for await (const b of late) {
      current = b.index;
      if (b.index >= 2) expect(b.x!.shape[1]).to.equal(1);
      await new Promise((r) => setTimeout(r, 5));
      b.dispose();
      expect(() => b.x).to.throw(/batch.x: the batch is disposed/);
    }
    expect(read).to.deep.equal([2, 2, 3]);
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
    // A batch that fails while the previous one trains surfaces at the loop, naming the cause.
    let reads = 0;
    const failing = {
      read: (ids: Int32Array) => {
        if (++reads === 2) throw new Error('feature store offline');
        return tf.zeros([ids.length, 2]);
      },
    };
    let caught = '';
    try {
      for await (const b of new NeighborLoader(data.graph, seeds, {fanouts: [2], batchSize: 50, features: failing})) {
        expect(b.x!.shape[1]).to.equal(2); // asked for: the next batch's rows are read ahead
        await new Promise((r) => setTimeout(r, 20)); // the next batch fails meanwhile
        b.dispose();
      }
    } catch (e) {
      caught = (e as Error).message;
    }
    expect(caught).to.equal('feature store offline');
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

  it("picks the graph's sampler: a GPU graph's fixed fan-outs (CSR blocks with replace: false, the host sampler's subgraph), trees on either, and batch(seeds) draws an epoch's batch", async () => {
    const g = data.graph;
    const features = wm.nn.featureTable(data.features!.values, 600, 8);
    // A graph sampled as tensors: on the GPU a DeviceCsr, elsewhere WholeMemory in host memory (the same sampler).
    const comm = soloCommunicator();
    const held = wm.deviceInfo().gpu ? new wm.graph.DeviceCsr(g) : wm.graph.WholeMemoryCsr.create(comm, g, {location: 'host'});
    const onGpu = new NeighborLoader(held, seeds, {fanouts: [4, 3], batchSize: 64, seed: 5, features, labels: data.labels});
    for await (const b of onGpu) {
      const want = wm.graph.sampleFixedSubgraph(held, b.seeds, [4, 3], {seed: b.seed});
      const got = b.inputIds as tf.Tensor1D;
      expect(Array.from(got.dataSync())).to.deep.equal(Array.from(want.inputIds.dataSync()));
      b.layers.forEach((l, i) => {
        const w = want.layers[i];
        if (!wm.graph.isFixedLayer(l)) throw new Error('a GPU graph gives fixed fan-out layers');
        expect([l.numDst, l.fanout]).to.deep.equal([w.numDst, w.fanout]);
        expect(Array.from(l.neighbors.dataSync())).to.deep.equal(Array.from(w.neighbors.dataSync()));
      });
      // The features of the input rows, gathered where the ids are.
      const rows = Array.from(got.dataSync()).flatMap((v) => Array.from(data.features!.values.subarray(v * 8, v * 8 + 8)));
      expect(Array.from(b.x!.dataSync())).to.deep.equal(rows);
      want.dispose();
      b.dispose();
    }
    // replace: false: compact subgraphs of CSR blocks sampled where the graph is, the host sampler's for the batch's
    // seed; a GraphSAGE layer over them gives the host subgraph's values and weight gradients.
    const distinct = new NeighborLoader(held, seeds, {fanouts: [4, 3], batchSize: 64, seed: 5, features, replace: false});
    const w = [
      [
        tf.variable(wm.nn.glorot([8, 5], 8, 5, 7)),
        tf.variable(wm.nn.glorot([8, 5], 8, 5, 8)),
        tf.variable(tf.randomNormal([5], 0, 1, 'float32', 9)),
      ],
      [
        tf.variable(wm.nn.glorot([5, 3], 5, 3, 10)),
        tf.variable(wm.nn.glorot([5, 3], 5, 3, 11)),
        tf.variable(tf.randomNormal([3], 0, 1, 'float32', 12)),
      ],
    ] as [tf.Variable<tf.Rank.R2>, tf.Variable<tf.Rank.R2>, tf.Variable<tf.Rank.R1>][];
    const sage = (layers: wm.graph.SampledLayer[], x: tf.Tensor2D) =>
      tf.variableGrads(
        () => tf.sum(tf.square(layers.reduce((h, l, i) => wm.nn.sageLayer(h, l, w[i][0], w[i][1], w[i][2], i === 0), x))) as tf.Scalar,
        w.flat(),
      );
    const near = (got: ArrayLike<number>, want: ArrayLike<number>, what: string) => {
      expect(got.length, what).to.equal(want.length);
      for (let i = 0; i < want.length; ++i)
        if (!(Math.abs(got[i] - want[i]) <= 1e-4 * (1 + Math.abs(want[i])))) expect.fail(`${what}[${i}]: ${got[i]} vs ${want[i]}`);
    };
    let made = 0;
    for await (const b of distinct) {
      const want = wm.graph.sampleSubgraph(g, b.seeds, [4, 3], {seed: b.seed, replace: false});
      expect(Array.from((b.inputIds as tf.Tensor1D).dataSync())).to.deep.equal(Array.from(want.inputIds));
      b.layers.forEach((l, i) => {
        if (wm.graph.isFixedLayer(l)) throw new Error('replace: false gives CSR blocks');
        const [got, host] = [l.block.arrays, want.layers[i].block.arrays];
        expect(Array.from(got.rowPtr), `layer ${i} offsets`).to.deep.equal(Array.from(host.rowPtr));
        expect(Array.from(got.colIdx), `layer ${i} positions`).to.deep.equal(Array.from(host.colIdx));
      });
      const hostX = tf.tensor2d(
        Array.from(want.inputIds).flatMap((v) => Array.from(data.features!.values.subarray(v * 8, v * 8 + 8))),
        [want.inputIds.length, 8],
      );
      const [a, c] = [sage(b.layers, b.x!), sage(want.layers, hostX)];
      near(a.value.dataSync(), c.value.dataSync(), 'loss');
      for (const k of Object.keys(c.grads)) near(a.grads[k].dataSync(), c.grads[k].dataSync(), `gradient ${k}`);
      tf.dispose([a.value, c.value, ...Object.values(a.grads), ...Object.values(c.grads), hostX]);
      want.dispose();
      b.dispose();
      ++made;
    }
    expect(made).to.equal(distinct.length);
    tf.dispose(w.flat());
    // Vertices without neighbours: rows with no entries, and a hop that draws nothing at all.
    const sparse = wm.graph.CsrGraph.fromEdges(
      {numVertices: 6, src: Int32Array.from([0, 1]), dst: Int32Array.from([1, 2]), directed: false},
      {symmetric: true},
    );
    const sparseHeld = wm.deviceInfo().gpu
      ? new wm.graph.DeviceCsr(sparse)
      : wm.graph.WholeMemoryCsr.create(comm, sparse, {location: 'host'});
    for (const start of [Int32Array.from([4, 0, 5]), Int32Array.from([3, 5])]) {
      const got = wm.graph.sampleSubgraphInPlace(sparseHeld, start, [2, 2], {seed: 3});
      const want = wm.graph.sampleSubgraph(sparse, start, [2, 2], {seed: 3, replace: false});
      expect(Array.from(got.inputIds.dataSync())).to.deep.equal(Array.from(want.inputIds));
      got.layers.forEach((l, i) => {
        expect(Array.from(l.block.arrays.rowPtr)).to.deep.equal(Array.from(want.layers[i].block.arrays.rowPtr));
        expect(Array.from(l.block.arrays.colIdx)).to.deep.equal(Array.from(want.layers[i].block.arrays.colIdx));
      });
      got.dispose();
      want.dispose();
    }
    expect(() => wm.graph.sampleSubgraphInPlace(sparseHeld, [1, 1], [2])).to.throw(
      /sampleSubgraphInPlace: seeds must be distinct \(2 seeds, 1 distinct\)/,
    );
    expect(() => wm.graph.sampleSubgraphInPlace(sparseHeld, [7], [2])).to.throw(/sampleSubgraphInPlace/);
    if (sparseHeld instanceof wm.graph.DeviceCsr) sparseHeld.dispose();
    else sparseHeld.free();
    expect(() => new NeighborLoader(held, seeds, {fanouts: [2], batchSize: 8, sampler: 'tree', replace: false})).to.throw(
      /NeighborLoader: sampler 'tree' samples a fixed fan-out with replacement: leave replace unset or true/,
    );
    expect(() => new NeighborLoader(held, seeds, {fanouts: [2, 0], batchSize: 8})).to.throw(
      /fanouts must be a non-empty array of positive integers, got \[2,0\]/,
    );
    // Trees, on the host graph and the GPU graph alike: what sampleTree draws with the batch's seed.
    for (const graph of [g, held]) {
      const trees = new NeighborLoader(graph, seeds, {fanouts: [3, 2], batchSize: 100, sampler: 'tree', seed: 6});
      for await (const b of trees) {
        const want = wm.graph.sampleTree(g, b.seeds, [3, 2], {seed: b.seed});
        const ids = b.inputIds instanceof Int32Array ? b.inputIds : (b.inputIds as tf.Tensor1D).dataSync();
        expect(Array.from(ids)).to.deep.equal(Array.from(want.inputIds as Int32Array));
        expect(ids.length).to.equal(b.seeds.length * (1 + 3 + 6));
        want.dispose();
        b.dispose();
      }
    }
    // batch(seeds, seed): the epoch's batch for the same seeds and stream.
    const host = new NeighborLoader(g, seeds, {fanouts: [4, 3], batchSize: 50, seed: 8, labels: data.labels});
    for await (const b of host) {
      const again = host.batch(b.seeds, b.seed);
      expect([again.epoch, again.index]).to.deep.equal([-1, -1]);
      expect(Array.from(again.inputIds as Int32Array)).to.deep.equal(Array.from(b.inputIds as Int32Array));
      expect(Array.from(again.y!.dataSync())).to.deep.equal(Array.from(b.y!.dataSync()));
      again.dispose();
      b.dispose();
    }
    expect(() => host.batch([3, 600], 1)).to.throw(/NeighborLoader.batch: seeds\[1\] = 600 is not a vertex of the graph/);
    expect(() => new NeighborLoader(g, seeds, {fanouts: [2], batchSize: 8, sampler: 'walk' as never})).to.throw(
      /sampler must be 'subgraph' or 'tree', got 'walk'/,
    );
    features.dispose();
    if (held instanceof wm.graph.DeviceCsr) held.dispose();
    else held.free();
  });

  for (const replace of [true, false])
    it(`a loader leaves the last hop as drawn until asked (${replace ? 'fixed fan-outs' : 'without replacement'}): its vertices, then the sampler's inputIds and layers; later batches relabelled as sampled`, async () => {
      const comm = soloCommunicator();
      const held = wm.deviceInfo().gpu
        ? new wm.graph.DeviceCsr(data.graph)
        : wm.graph.WholeMemoryCsr.create(comm, data.graph, {location: 'host'});
      const before = tf.memory().numTensors;
      const sample = (s: Int32Array, seed: number): wm.graph.SampledSubgraph & {inputIds: tf.Tensor1D} =>
        replace ? wm.graph.sampleFixedSubgraph(held, s, [4, 3], {seed}) : wm.graph.sampleSubgraphInPlace(held, s, [4, 3], {seed});
      const positions = (l: wm.graph.SampledLayer) => Array.from(wm.graph.isFixedLayer(l) ? l.neighbors.dataSync() : l.block.arrays.colIdx);
      const loader = new NeighborLoader(held, seeds, {fanouts: [4, 3], batchSize: 40, seed: 2, replace});
      const deferred: boolean[] = [];
      for await (const b of loader) {
        deferred.push(b.inputVertices !== undefined);
        const want = sample(b.seeds, b.seed);
        if (b.inputVertices) {
          // The input layer as drawn: the previous hop's vertices (the first of inputIds) and their neighbours'
          // vertices, which the relabelled positions point at.
          const {dst, lists} = b.inputVertices;
          const ids = Array.from(want.inputIds.dataSync());
          expect(Array.from(dst.dataSync())).to.deep.equal(ids.slice(0, dst.size));
          const drawn = Array.from(('fanout' in lists ? lists.neighbors : lists.colIdx).dataSync());
          expect(drawn).to.deep.equal(positions(want.layers[0]).map((p) => ids[p]));
          if (!('fanout' in lists)) {
            const w = want.layers[0] as wm.graph.BlockLayer;
            expect(Array.from(lists.rowPtr.dataSync())).to.deep.equal(Array.from(w.block.arrays.rowPtr));
          }
        }
        // Asked for (first inside a tidy scope, as a model's forward asks), the same subgraph the sampler makes
        // without deferring, owned by the batch.
        tf.tidy(() => void b.layers.map(positions));
        expect(Array.from((b.inputIds as tf.Tensor1D).dataSync())).to.deep.equal(Array.from(want.inputIds.dataSync()));
        b.layers.forEach((l, i) => expect(positions(l), `layer ${i}`).to.deep.equal(positions(want.layers[i])));
        want.dispose();
        b.dispose();
        if (b.inputVertices) expect(() => b.inputIds).to.throw(/sampled subgraph: inputIds read after the subgraph was disposed/);
      }
      // The first batch (and the one made ahead beside it) deferred; once asked, the loader relabels as it samples.
      expect(deferred[0]).to.equal(true);
      expect(deferred.slice(2)).to.deep.equal(deferred.slice(2).map(() => false));
      // A batch disposed before anything asked leaves nothing behind.
      const fresh = new NeighborLoader(held, seeds, {fanouts: [4, 3], batchSize: 40, seed: 2, replace});
      for await (const b of fresh) {
        expect(b.inputVertices).to.not.equal(undefined);
        b.dispose();
        expect(() => b.layers[0]).to.not.throw();
        expect(() => b.inputIds).to.throw(/sampled subgraph: inputIds read after the subgraph was disposed/);
      }
      expect(tf.memory().numTensors).to.equal(before);
      if (held instanceof wm.graph.DeviceCsr) held.dispose();
      else held.free();
    });

  it("a model's forward reads a batch's x (the loader's features, read ahead beside training on a GPU graph) in place of its table: the same logits", async () => {
    const comm = soloCommunicator();
    const held = wm.deviceInfo().gpu
      ? new wm.graph.DeviceCsr(data.graph)
      : wm.graph.WholeMemoryCsr.create(comm, data.graph, {location: 'host'});
    const table = wm.nn.embedding({rows: 600, dim: 8, dtype: 'float16', init: {type: 'uniform', scale: 1, seed: 4}});
    expect(table.readsAhead).to.equal(true);
    const model = new wm.nn.GraphSageClassifier({
      numNodes: 600,
      numClasses: 4,
      embeddingDim: 0,
      features: table,
      hiddenDim: 16,
      numLayers: 2,
      dropout: 0,
      seed: 3,
      embeddingLearningRate: 0,
    });
    const before = tf.memory().numTensors;
    const loader = new NeighborLoader(held, seeds, {fanouts: [4, 3], batchSize: 64, seed: 2, features: table});
    let batches = 0;
    for (let e = 0; e < 2; ++e)
      for await (const b of loader) {
        const want = table.read(b.inputIds);
        expect(b.x!.shape).to.deep.equal(want.shape);
        expect(Array.from(b.x!.dataSync())).to.deep.equal(Array.from(want.dataSync()));
        // The model's own read: the first layer over the table in place (on the GPU), or the rows gathered.
        const g = tf.tidy(() => model.forward(b).dataSync());
        const o = tf.tidy(() => model.forward({inputIds: b.inputIds, layers: b.layers, dispose: () => undefined}).dataSync());
        for (let i = 0; i < g.length; ++i) expect(g[i]).to.be.closeTo(o[i], 1e-4 * (1 + Math.abs(o[i])));
        tf.tidy(() => {
          expect(() => model.forward({...b, x: tf.zeros([3, 8])})).to.throw(
            /forward: the batch's x must be \[\d+, 8\] \(a row per input id/,
          );
        });
        want.dispose();
        b.dispose();
        ++batches;
      }
    expect(batches).to.equal(2 * loader.length);
    expect(tf.memory().numTensors).to.equal(before);
    model.dispose();
    table.dispose();
    if (held instanceof wm.graph.DeviceCsr) held.dispose();
    else held.free();
  });

  for (const replace of [true, false])
    it(`GraphSAGE over a loader's batches (${replace ? 'fixed fan-outs' : 'sampled without replacement'}) reads the loader's GPU table in place: x never gathered, the logits of the gathered rows`, async function () {
      gpuOnly(this);
      const held = new wm.graph.DeviceCsr(data.graph);
      const table = wm.nn.embedding({rows: 600, dim: 8, dtype: 'float16', memory: 'device', init: {type: 'uniform', scale: 1, seed: 4}});
      const own = wm.nn.embedding({rows: 600, dim: 8, memory: 'device', init: {type: 'uniform', scale: 1, seed: 9}});
      // The model's own table differs: a batch's source is what its first layer reads.
      const model = new wm.nn.GraphSageClassifier({
        numNodes: 600,
        numClasses: 4,
        embeddingDim: 0,
        features: own,
        hiddenDim: 16,
        numLayers: 2,
        dropout: 0,
        seed: 3,
        embeddingLearningRate: 0,
      });
      let reads = 0;
      const read = table.read.bind(table);
      table.read = (ids) => (++reads, read(ids));
      const loader = new NeighborLoader(held, seeds, {fanouts: [4, 3], batchSize: 64, seed: 2, features: table, replace});
      for await (const b of loader) {
        const p = wm.profileOps(() => tf.tidy(() => model.forward(b).dataSync()));
        expect(p.ops.map((o) => o.name)).to.include(replace ? 'embeddingGatherMean' : 'embeddingGatherMeanCsr');
        expect(reads, "the batch's x is not read").to.equal(0);
        if (b.index === 0) {
          // Nothing has asked for the first batch's input ids: its last hop is read as drawn, never relabelled.
          expect(b.inputVertices, 'the last hop as drawn').to.not.equal(undefined);
          expect(p.ops.map((o) => o.name)).to.not.include('relabelVertices');
        }
        const x = read(b.inputIds) as tf.Tensor2D;
        const want = tf.tidy(() => model.forward({inputIds: b.inputIds, layers: b.layers, x, dispose: () => undefined}).dataSync());
        p.result.forEach((v, i) => expect(v).to.be.closeTo(want[i], 1e-4 * (1 + Math.abs(want[i]))));
        x.dispose();
        b.dispose();
      }
      model.dispose();
      table.dispose();
      own.dispose();
      held.dispose();
    });

  it('a {rank, size} share: each rank its part of every batch of one order, the same number of batches', async () => {
    const whole = await collect(new NeighborLoader(data.graph, seeds, {fanouts: [3], batchSize: 60, seed: 2}));
    const parts = await Promise.all(
      [0, 1, 2].map((rank) =>
        collect(new NeighborLoader(data.graph, seeds, {fanouts: [3], batchSize: 60, seed: 2, share: {rank, size: 3}, keyBy: 'vertex'})),
      ),
    );
    parts.forEach((p) => expect(p.length).to.equal(whole.length));
    whole.forEach((b, i) => {
      const joined = parts.flatMap((p) => Array.from(p[i].seeds));
      expect(joined).to.deep.equal(Array.from(b.seeds));
    });
    // 250 seeds in batches of 60: the last batch's 10 seeds go to rank 0 (4), rank 1 (4), rank 2 (2).
    expect(parts.map((p) => p[p.length - 1].seeds.length)).to.deep.equal([4, 4, 2]);
    // Keyed by vertex, a vertex's neighbours are the same whichever rank draws them.
    const one = await collect(new NeighborLoader(data.graph, seeds, {fanouts: [3], batchSize: 60, seed: 2, keyBy: 'vertex'}), true);
    const split = await collect(
      new NeighborLoader(data.graph, seeds, {fanouts: [3], batchSize: 60, seed: 2, keyBy: 'vertex', share: {rank: 1, size: 3}}),
      true,
    );
    const neighbours = (b: NeighborBatch) => {
      const l = hostLayers(b)[0];
      const e = l.block.entries(false);
      return new Map(Array.from(l.dst, (v, r) => [v, Array.from(e.colIdx.subarray(e.rowPtr[r], e.rowPtr[r + 1]), (c) => l.src[c]).sort()]));
    };
    const all = neighbours(one[0]);
    for (const [v, nb] of neighbours(split[0])) expect(nb, `vertex ${v}`).to.deep.equal(all.get(v));
    [...one, ...split].forEach((b) => b.dispose());
    expect(() => new NeighborLoader(data.graph, seeds, {fanouts: [3], batchSize: 8, share: {rank: 3, size: 3}})).to.throw(
      /share must be \{rank, size\} with 0 <= rank < size, got \{"rank":3,"size":3\}/,
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
      hostLayers(b).reduce((h, layer, l) => wm.nn.sageLayer(h, layer, w[l][0], w[l][1], w[l][2], l === 0), b.x!);
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

describe('wm.nn.LinkNeighborLoader', function () {
  this.timeout(120000);
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  const data = wm.graph.csbm({vertices: 500, classes: 5, features: 8, degree: 8, homophily: 0.95, signal: 1, seed: 5});
  const all = edgesOf(data.graph);
  // One direction of each undirected edge.
  const keep = Array.from(all.src.keys()).filter((e) => all.src[e] < all.dst[e]);
  const src = Int32Array.from(keep, (e) => all.src[e]),
    dst = Int32Array.from(keep, (e) => all.dst[e]);

  it('every edge once per epoch with its negative pairs; rows that find the endpoints among the outputs', async () => {
    const features = wm.nn.featureTable(data.features!.values, 500, 8);
    const loader = new LinkNeighborLoader(data.graph, {src, dst}, {fanouts: [4, 2], batchSize: 100, negatives: 2, features, seed: 3});
    expect(loader.length).to.equal(Math.ceil(src.length / 100));
    const seen: string[] = [];
    for await (const b of loader) {
      const m = b.index + 1 < loader.length ? 100 : src.length - 100 * b.index;
      expect(b.src.length).to.equal(3 * m);
      for (let i = 0; i < m; ++i) seen.push(`${b.src[i]},${b.dst[i]}`);
      const label = b.label.dataSync();
      const out = hostLayers(b)[b.layers.length - 1].dst;
      const sr = b.srcRow.dataSync(),
        dr = b.dstRow.dataSync();
      for (let i = 0; i < b.src.length; ++i) {
        expect(label[i]).to.equal(i < m ? 1 : 0);
        expect([out[sr[i]], out[dr[i]]]).to.deep.equal([b.src[i], b.dst[i]]);
        if (i >= m) {
          expect(b.src[i]).to.not.equal(b.dst[i]);
          expect(Array.from(data.graph.neighbors(b.src[i]))).to.not.include(b.dst[i]);
        }
      }
      expect(b.x!.shape).to.deep.equal([hostLayers(b)[0].src.length, 8]);
      b.dispose();
    }
    expect(seen.sort()).to.deep.equal(Array.from(src, (u, i) => `${u},${dst[i]}`).sort());
    features.dispose();
  });

  it('the same seed, the same batches; bad options named', async () => {
    const a = await collect(new LinkNeighborLoader(data.graph, {src, dst}, {fanouts: [3], batchSize: 64, seed: 8}).epoch(2));
    const b = await collect(
      new LinkNeighborLoader(data.graph, {src: Array.from(src), dst: Array.from(dst)}, {fanouts: [3], batchSize: 64, seed: 8}).epoch(2),
    );
    a.forEach((x, i) =>
      expect(Array.from((x as never as {src: Int32Array}).src)).to.deep.equal(Array.from((b[i] as never as {src: Int32Array}).src)),
    );
    const g = data.graph;
    expect(() => new LinkNeighborLoader(g, {src: [1, 2], dst: [3]}, {fanouts: [2], batchSize: 2})).to.throw(
      /src and dst differ in length \(2 and 1\)/,
    );
    expect(() => new LinkNeighborLoader(g, {src: [1], dst: [500]}, {fanouts: [2], batchSize: 2})).to.throw(
      /dst\[0\] = 500 is not a vertex/,
    );
    expect(() => new LinkNeighborLoader(g, {src: [1], dst: [2]}, {fanouts: [2], batchSize: 2, negatives: -1})).to.throw(
      /negatives must be a non-negative integer, got -1/,
    );
    const unsorted = new wm.graph.CsrGraph(Int32Array.of(0, 2, 3, 4), Int32Array.of(2, 1, 0, 0));
    expect(() => new LinkNeighborLoader(unsorted, {src: [0], dst: [1]}, {fanouts: [1], batchSize: 1})).to.throw(
      /the neighbours of vertex 0 are not in ascending order/,
    );
  });

  it('a GraphSAGE encoder with a dot decoder trained from it ranks held-out edges above non-edges', async () => {
    const features = wm.nn.featureTable(data.features!.values, 500, 8);
    const cut = Math.floor(src.length * 0.8);
    const w = [
      [tf.variable(wm.nn.glorot([8, 16], 8, 16, 1)), tf.variable(wm.nn.glorot([8, 16], 8, 16, 2)), tf.variable(tf.zeros([16]))],
      [tf.variable(wm.nn.glorot([16, 16], 16, 16, 3)), tf.variable(wm.nn.glorot([16, 16], 16, 16, 4)), tf.variable(tf.zeros([16]))],
    ] as [tf.Variable<tf.Rank.R2>, tf.Variable<tf.Rank.R2>, tf.Variable<tf.Rank.R1>][];
    const score = (b: wm.nn.LinkBatch) =>
      tf.tidy(() => {
        const h = b.layers.reduce((x, layer, l) => wm.nn.sageLayer(x, layer, w[l][0], w[l][1], w[l][2], l === 0), b.x!);
        return tf.sum(tf.mul(tf.gather(h, b.srcRow), tf.gather(h, b.dstRow)), 1);
      });
    const opt = tf.train.adam(0.01);
    const train = new LinkNeighborLoader(
      data.graph,
      {src: src.subarray(0, cut), dst: dst.subarray(0, cut)},
      {fanouts: [5, 5], batchSize: 128, features, seed: 1},
    );
    for (let e = 0; e < 10; ++e)
      for await (const b of train) {
        opt.minimize(() => tf.losses.sigmoidCrossEntropy(b.label, score(b)) as tf.Scalar);
        b.dispose();
      }
    const test = new LinkNeighborLoader(
      data.graph,
      {src: src.subarray(cut), dst: dst.subarray(cut)},
      {fanouts: [5, 5], batchSize: 1000, features, shuffle: false, seed: 9},
    );
    const pos: number[] = [],
      neg: number[] = [];
    for await (const b of test) {
      const s = score(b);
      const v = s.dataSync(),
        l = b.label.dataSync();
      v.forEach((x, i) => (l[i] ? pos : neg).push(x));
      s.dispose();
      b.dispose();
    }
    let wins = 0;
    for (const p of pos) for (const q of neg) wins += p > q ? 1 : p === q ? 0.5 : 0;
    expect(wins / (pos.length * neg.length), 'AUC').to.be.above(0.75);
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

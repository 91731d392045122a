// Layer-wise inference: every vertex's outputs computed a layer at a time over full neighbourhoods
// equal the full-graph forward, for any batch size, over JavaScript CSR arrays and native graphs
// alike, with intermediate outputs in host memory (float32, or float16 within its rounding).
import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import type {HostGraph} from '../src/graph/graph_store';
import {CsrGraph} from '../src/graph/csr';
import {DeviceCsr} from '../src/graph/device_csr';
import {NativeCsr} from '../src/graph/native_csr';
import type {LayerwiseGraph} from '../src/nn/layerwise';
import {GraphSageClassifier} from '../src/nn/graphsage';
import type {LayerwiseProgress} from '../src/nn/layerwise';
import {rng} from './helpers';

function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, tol: number, what: string): void {
  expect(got.length, `${what}: length`).to.equal(want.length);
  for (let i = 0; i < want.length; ++i) {
    const t = tol * Math.max(1, Math.abs(want[i]));
    if (!(Math.abs(got[i] - want[i]) <= t)) expect.fail(`${what}: [${i}] = ${got[i]}, the full forward gives ${want[i]} (±${t})`);
  }
}

/** A random graph with isolated vertices and a high-degree hub, symmetric. */
function randomGraph(n: number, m: number, seed: number): {csr: CsrGraph; src: Int32Array; dst: Int32Array} {
  const r = rng(seed);
  const src = new Int32Array(m),
    dst = new Int32Array(m);
  for (let e = 0; e < m; ++e) {
    src[e] = e % 5 === 0 ? 0 : Math.floor(r() * (n - 3)); // vertex 0 a hub; the last three isolated
    dst[e] = Math.floor(r() * (n - 3));
  }
  return {csr: CsrGraph.fromEdges({numVertices: n, src, dst, directed: false}, {symmetric: true}), src, dst};
}

/** The graph as arrays and natively, and with a GPU both copied there (blocks then built on the GPU). */
function graphsOf(csr: CsrGraph, native: NativeCsr): LayerwiseGraph[] {
  return wm.deviceInfo().gpu ? [csr, native, new DeviceCsr(csr), new DeviceCsr(native)] : [csr, native];
}

function nameOf(g: LayerwiseGraph): string {
  const base = (x: HostGraph) => (x.place === 'script' ? 'arrays' : 'native');
  return g.place === 'device' ? `${base(g.graph)} on the GPU` : base(g);
}

function disposeGraphs(gs: LayerwiseGraph[]): void {
  for (const g of gs) if (g instanceof DeviceCsr) g.dispose();
}

describe('layer-wise inference', function () {
  this.timeout(120000);
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  it('GraphSAGE: every vertex equals the full-graph forward, for every batch size, CSR arrays and native graphs', () => {
    const n = 301;
    const {csr, src, dst} = randomGraph(n, 1500, 4);
    const native = NativeCsr.fromEdges({numVertices: n, src, dst, directed: false}, {symmetric: true});
    const r = rng(8);
    const features = wm.nn.featureTable(
      Float32Array.from({length: n * 12}, () => r() * 2 - 1),
      n,
      12,
    );
    const model = new GraphSageClassifier({
      numNodes: n,
      numClasses: 5,
      embeddingDim: 6,
      features,
      hiddenDim: 16,
      numLayers: 3,
      dropout: 0.5, // not applied at inference
      seed: 2,
      embeddingLearningRate: 0.01,
    });
    const full = wm.nn.fullGraph(csr);
    const graphs = graphsOf(csr, native);
    try {
      const want = tf.tidy(() => model.forwardFull(full)).dataSync() as Float32Array;
      const wantClasses = model.predict(full);
      for (const graph of graphs) {
        for (const batchSize of [1, 7, 64, n, n + 50]) {
          const seen: LayerwiseProgress[] = [];
          // Batches of 7 build their blocks on the host even with a GPU (blocksOnGpu: false).
          const logits = model.inferLayerwise(graph, {batchSize, blocksOnGpu: batchSize !== 7, onProgress: (p) => seen.push(p)});
          const all = logits.read(Int32Array.from({length: n}, (_, i) => i));
          expectClose(all.dataSync(), want, 1e-5, `${nameOf(graph)}, batch ${batchSize}`);
          all.dispose();
          logits.dispose();
          const last = seen[seen.length - 1];
          expect([last.layer, last.layers, last.rows, last.totalRows, last.etaSeconds]).to.deep.equal([3, 3, n, n, 0]);
          expect(seen.length).to.equal(3 * Math.ceil(n / batchSize));
        }
        expect(Array.from(model.predictLayerwise(graph, {batchSize: 50}))).to.deep.equal(Array.from(wantClasses));
      }
      // npm run predict's path: the same classes, the same probabilities within float32 rounding.
      const byLayer = wm.nn.predictNodes(model, csr, undefined, {batchSize: 33});
      const byBlock = wm.nn.predictNodes(model, full);
      expect(Array.from(byLayer.classes)).to.deep.equal(Array.from(byBlock.classes));
      expectClose(byLayer.probabilities, byBlock.probabilities, 1e-5, 'predictNodes probabilities');
      // Intermediate outputs stored as float16: within its rounding.
      const half = model.inferLayerwise(csr, {batchSize: 40, dtype: 'float16'});
      const h = half.read(Int32Array.from({length: n}, (_, i) => i));
      expectClose(h.dataSync(), want, 2e-2, 'float16 intermediates');
      tf.dispose(h);
      half.dispose();
      // Each layer's table where it is asked for (a list, one place a layer), or chosen by size ('auto').
      const places: wm.nn.LayerwiseMemory[] = wm.deviceInfo().gpu ? ['device', 'host', 'auto'] : ['host', 'auto', 'host'];
      const placed = model.inferLayerwise(native, {batchSize: 64, memory: places});
      expect(placed.memory).to.equal(wm.deviceInfo().gpu ? 'device' : 'host');
      const p = placed.read(Int32Array.from({length: n}, (_, i) => i));
      expectClose(p.dataSync(), want, 1e-5, `memory ${places.join(', ')}`);
      tf.dispose(p);
      placed.dispose();
      expect(Array.from(model.predictLayerwise(native, {batchSize: 64, memory: places}))).to.deep.equal(Array.from(wantClasses));
      // The vertex embeddings before the output layer.
      const emb = model.inferLayerwise(native, {layers: 2, batchSize: 100});
      expect([emb.rows, emb.dim]).to.deep.equal([n, 16]);
      emb.dispose();
    } finally {
      disposeGraphs(graphs);
      full.dispose();
      model.dispose();
      features.dispose();
      native.free();
    }
  });

  for (const kind of ['gcn', 'gat', 'mlp'] as const) {
    it(`${kind.toUpperCase()}: every vertex equals the full-graph forward, over CSR arrays and native graphs`, () => {
      const n = 157;
      const {csr, src, dst} = randomGraph(n, 700, 6);
      const native = NativeCsr.fromEdges({numVertices: n, src, dst, directed: false}, {symmetric: true});
      const config = {
        numNodes: n,
        numClasses: 4,
        embeddingDim: 8,
        hiddenDim: 12,
        numLayers: 3,
        dropout: 0.3,
        seed: 5,
        embeddingLearningRate: 0.01,
      };
      const model =
        kind === 'gcn'
          ? new wm.nn.GcnClassifier(config)
          : kind === 'gat'
            ? new wm.nn.GatClassifier({...config, heads: 3})
            : new wm.nn.MlpClassifier(config);
      const full = wm.nn.fullGraph(csr);
      const graphs = graphsOf(csr, native);
      try {
        const want = tf.tidy(() => model.forwardFull(full)).dataSync() as Float32Array;
        for (const graph of graphs) {
          for (const batchSize of [5, 64, n]) {
            const logits = model.inferLayerwise(graph, {batchSize, blocksOnGpu: batchSize !== 5});
            const all = logits.read(Int32Array.from({length: n}, (_, i) => i));
            expectClose(all.dataSync(), want, 1e-5, `${kind}, ${nameOf(graph)}, batch ${batchSize}`);
            all.dispose();
            logits.dispose();
          }
        }
        expect(Array.from(model.predictLayerwise(native, {batchSize: 20}))).to.deep.equal(Array.from(model.predict(full)));
      } finally {
        disposeGraphs(graphs);
        full.dispose();
        model.dispose();
        native.free();
      }
    });
  }

  it('refuses what it cannot do, by name', () => {
    const {csr} = randomGraph(50, 100, 1);
    const model = new GraphSageClassifier({
      numNodes: 50,
      numClasses: 3,
      embeddingDim: 4,
      hiddenDim: 8,
      numLayers: 2,
      dropout: 0,
      seed: 1,
      embeddingLearningRate: 0.01,
    });
    try {
      expect(() => model.inferLayerwise(csr, {batchSize: 0})).to.throw(/batchSize must be a positive integer, got 0/);
      expect(() => model.inferLayerwise(csr, {layers: 3})).to.throw(/layers must be an integer in \[1, 2\], got 3/);
      const other = randomGraph(60, 100, 2).csr;
      expect(() => model.inferLayerwise(other)).to.throw(/the graph has 60 vertices, the model's inputs 50/);
      expect(() => model.predictLayerwise(other)).to.throw(/predictLayerwise: the graph has 60 vertices, the model's inputs 50/);
      expect(() => model.inferLayerwise(csr, {memory: ['host']})).to.throw(/memory lists 1 places for 2 layers/);
      const native = NativeCsr.fromEdges(
        {numVertices: 5, src: Int32Array.of(0, 1), dst: Int32Array.of(1, 2), directed: false},
        {symmetric: true},
      );
      expect(() => native.rows(3, 3)).to.throw(/NativeGraph.rows: argument 1 \(count\) reaches row 6, past the graph's 5/);
      expect(() => native.rows(-1, 1)).to.throw(/NativeCsr.rows: first must be a non-negative integer/);
      expect(Array.from(native.rows(1, 2).offsets)).to.deep.equal([0, 2, 3]);
      expect(Array.from(native.rows(1, 2).columns)).to.deep.equal([0, 2, 1]);
      native.free();
    } finally {
      model.dispose();
    }
  });
});

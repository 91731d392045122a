// Batches of small graphs (wm.graph.batchGraphs) and the global poolings over them, against per-graph
// references on random graphs of varied sizes (one without vertices, one without edges), gradients included;
// TU-format folders the tests write, read and refused.
import * as fs from 'fs';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {seededRng} from '../src/util/random';
import {expectReject} from './helpers';
import {tempDir} from './temp_dirs';

describe('batches of small graphs and their global poolings', () => {
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  const sizes = [3, 1, 7, 0, 5, 9, 2],
    dim = 4;
  const rng = seededRng(5);
  const graphs: wm.graph.SmallGraph[] = sizes.map((n, i) => {
    const m = n > 1 ? 2 * n : 0;
    return {
      numVertices: n,
      src: Int32Array.from({length: m}, () => Math.floor(rng() * n)),
      dst: Int32Array.from({length: m}, () => Math.floor(rng() * n)),
      features: Float32Array.from({length: n * dim}, () => rng() * 2 - 1),
      label: i % 3,
    };
  });

  it('numbers the vertices graph after graph, keeps every edge within its graph, and names each vertex its graph', () => {
    // Also with edge features (the layers then read a block of their own; the graph is made when read) and as a loader's batch.
    const withEdgeFeatures = graphs.map((g) => ({...g, edgeFeatures: Float32Array.from({length: g.src.length * 2}, () => rng())}));
    for (const b of [wm.graph.batchGraphs(graphs), wm.graph.batchGraphs(withEdgeFeatures)]) checkBatch(b);
  });

  it('a loader batch with edge features: the same block-diagonal graph', async () => {
    const withEdgeFeatures = graphs.map((g) => ({...g, edgeFeatures: Float32Array.from({length: g.src.length * 3}, () => rng())}));
    for await (const b of new wm.graph.GraphLoader(withEdgeFeatures, {batchSize: sizes.length})) {
      expect(b.edgeDim).to.equal(3);
      checkBatch(b);
      b.dispose();
    }
  });

  it('makes the same batches in its worker thread as in place (prefetch), across passes, and stops cleanly part way', async () => {
    const withEdgeFeatures = graphs.map((g) => ({...g, edgeFeatures: Float32Array.from({length: g.src.length * 2}, () => rng())}));
    for (const set of [graphs, withEdgeFeatures]) {
      const arraysOf = (b: wm.graph.GraphBatch & {indices: Int32Array}) => {
        const {rowPtr, colIdx} = b.edges.arrays;
        return [b.indices, b.ptr, b.batch, b.features, b.labels, b.edgeAttr, rowPtr, colIdx, b.graph.rowPtr, b.graph.colIdx].map((x) =>
          x ? Array.from(x) : x,
        );
      };
      const passes = async (prefetch: boolean) => {
        const loader = new wm.graph.GraphLoader(set, {batchSize: 2, shuffle: true, seed: 3, prefetch});
        const seen: unknown[] = [];
        for (let pass = 0; pass < 2; ++pass)
          for await (const b of loader) {
            seen.push(arraysOf(b));
            b.dispose();
          }
        expect(loader.threaded).to.equal(prefetch);
        loader.dispose();
        expect(loader.threaded).to.equal(false);
        return seen;
      };
      const inPlace = await passes(false);
      expect(inPlace).to.have.length(8);
      expect(await passes(true)).to.deep.equal(inPlace);
    }
    // A thread stopped part way through a pass: that pass fails by name, the next starts a new thread, same batches.
    const again = new wm.graph.GraphLoader(graphs, {batchSize: 2, shuffle: true, seed: 3});
    const firstPass: unknown[] = [];
    let stopped: unknown;
    try {
      for await (const b of again) {
        firstPass.push(Array.from(b.indices));
        b.dispose();
        if (firstPass.length === 1) again.dispose();
      }
    } catch (e) {
      stopped = e;
    }
    expect(String(stopped)).to.match(/GraphLoader: disposed/);
    const inOrder: number[][] = [];
    for await (const b of again) {
      inOrder.push(Array.from(b.indices));
      b.dispose();
    }
    expect(again.threaded).to.equal(true);
    expect(inOrder).to.have.length(4);
    again.dispose();
    // A loop that stops after one batch, then the loader disposed: nothing left waiting.
    const loader = new wm.graph.GraphLoader(graphs, {batchSize: 1});
    for await (const b of loader) {
      b.dispose();
      break;
    }
    loader.dispose();
    expect(() => new wm.graph.GraphLoader(graphs, {batchSize: 2, prefetch: 1 as unknown as boolean})).to.throw(
      /GraphLoader: prefetch must be true or false, got 1/,
    );
  });

  function checkBatch(b: wm.graph.GraphBatch): void {
    expect(b.numGraphs).to.equal(sizes.length);
    expect(b.numVertices).to.equal(27);
    expect(Array.from(b.ptr)).to.deep.equal([0, 3, 4, 11, 11, 16, 25, 27]);
    expect(Array.from(b.batch.subarray(0, 5))).to.deep.equal([0, 0, 0, 1, 2]);
    expect(Array.from(b.labels!)).to.deep.equal([0, 1, 2, 0, 1, 2, 0]);
    expect(b.dim).to.equal(dim);
    // Each graph's edges, both ways, self loops and duplicates dropped, shifted by its first vertex.
    const want = new Set<string>();
    graphs.forEach((g, i) => {
      for (let e = 0; e < g.src.length; ++e) {
        const [s, d] = [b.ptr[i] + g.src[e], b.ptr[i] + g.dst[e]];
        if (s !== d) want.add(`${s}-${d}`).add(`${d}-${s}`);
      }
    });
    const got = new Set<string>();
    for (let v = 0; v < b.numVertices; ++v) for (const u of b.graph.neighbors(v)) got.add(`${u}-${v}`);
    expect([...got].sort()).to.deep.equal([...want].sort());
    for (let v = 0; v < b.numVertices; ++v) for (const u of b.graph.neighbors(v)) expect(b.batch[u]).to.equal(b.batch[v]);
    expect(Array.from(b.features!.subarray(3 * dim, 4 * dim))).to.deep.equal(Array.from(graphs[1].features!));
  }

  it('pools each graph (add, mean, max) as a per-graph reference does, and passes gradients back to the right rows', () => {
    const before = tf.memory().numTensors;
    const b = wm.graph.batchGraphs(graphs);
    const x = tf.tensor2d(b.features!, [b.numVertices, dim]);
    const w = tf.tensor2d(
      Float32Array.from({length: sizes.length * dim}, () => rng() * 2 - 1),
      [sizes.length, dim],
    );
    const wv = w.arraySync();
    const rows = (g: number) =>
      Array.from({length: b.ptr[g + 1] - b.ptr[g]}, (_, k) =>
        Array.from(b.features!.subarray((b.ptr[g] + k) * dim, (b.ptr[g] + k + 1) * dim)),
      );
    for (const how of ['add', 'mean', 'max'] as const) {
      const got = wm.nn.globalPool(x, b, how);
      expect(got.shape).to.deep.equal([sizes.length, dim]);
      const gv = got.arraySync();
      got.dispose();
      const grad = tf.grad((t: tf.Tensor) => tf.sum(tf.mul(wm.nn.globalPool(t as tf.Tensor2D, b, how), w)))(x);
      const dx = grad.arraySync() as number[][];
      grad.dispose();
      const wantDx = Array.from({length: b.numVertices}, () => new Array(dim).fill(0));
      for (let g = 0; g < sizes.length; ++g) {
        const r = rows(g);
        for (let j = 0; j < dim; ++j) {
          const col = r.map((row) => row[j]);
          const sum = col.reduce((a, v) => a + v, 0);
          const want = r.length === 0 ? 0 : how === 'add' ? sum : how === 'mean' ? sum / r.length : Math.max(...col);
          expect(Math.abs(gv[g][j] - want), `${how} graph ${g} [${j}]`).to.be.below(1e-5);
          if (how === 'max') {
            if (r.length) wantDx[b.ptr[g] + col.indexOf(Math.max(...col))][j] = wv[g][j];
          } else for (let k = 0; k < r.length; ++k) wantDx[b.ptr[g] + k][j] = how === 'add' ? wv[g][j] : wv[g][j] / r.length;
        }
      }
      for (let v = 0; v < b.numVertices; ++v)
        for (let j = 0; j < dim; ++j) expect(Math.abs(dx[v][j] - wantDx[v][j]), `${how} d x[${v}][${j}]`).to.be.below(1e-5);
    }
    tf.dispose([x, w]);
    b.dispose();
    expect(tf.memory().numTensors).to.equal(before);
  });

  it('refuses graphs that do not fit together, naming the graph and the rule', () => {
    const g = (o: Partial<wm.graph.SmallGraph>): wm.graph.SmallGraph => ({numVertices: 2, src: [0], dst: [1], ...o});
    expect(() => wm.graph.batchGraphs([])).to.throw(/graphs must be a non-empty array/);
    expect(() => wm.graph.batchGraphs([g({}), g({dst: [2]})])).to.throw(/graphs\[1\]\.dst\[0\] = 2 is not a vertex of its 2/);
    expect(() => wm.graph.batchGraphs([g({numVertices: -1})])).to.throw(/graphs\[0\]\.numVertices must be a non-negative integer/);
    expect(() => wm.graph.batchGraphs([g({src: [0, 1]})])).to.throw(/src and dst must be equally long, got 2 and 1/);
    expect(() => wm.graph.batchGraphs([g({features: new Float32Array(4)}), g({})])).to.throw(
      /graphs\[1\] lacks features, graphs\[0\] has them/,
    );
    expect(() => wm.graph.batchGraphs([g({features: new Float32Array(4)}), g({features: new Float32Array(6)})])).to.throw(
      /graphs\[1\]'s features are 3 wide, the batch's 2/,
    );
    expect(() => wm.graph.batchGraphs([g({label: 1}), g({})])).to.throw(/graphs\[1\] lacks a label, graphs\[0\] has one/);
    const b = wm.graph.batchGraphs([g({})]);
    expect(() => wm.nn.globalAddPool(tf.zeros([3, 2]) as tf.Tensor2D, b)).to.throw(/globalAddPool: x has 3 rows, the batch 2 vertices/);
  });
});

describe('TU-format graph classification folders (wm.graph.readTuDataset)', () => {
  const write = (dir: string, files: Record<string, string>) => {
    fs.mkdirSync(dir, {recursive: true});
    for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), text);
  };
  // Three graphs: a triangle (vertices 1-3), an edge (4-5), a path (6-8); labels -1 / 1 as MUTAG writes them.
  const tu = {
    'TOY_A.txt': '1, 2\n2, 1\n2, 3\n3, 2\n3, 1\n1, 3\n4, 5\n5, 4\n6, 7\n7, 6\n7, 8\n8, 7\n',
    'TOY_graph_indicator.txt': '1\n1\n1\n2\n2\n3\n3\n3\n',
    'TOY_graph_labels.txt': '1\n-1\n1\n',
    'TOY_node_labels.txt': '0\n2\n0\n1\n1\n2\n0\n0\n',
    'TOY_node_attributes.txt': '0.5, 1\n1.5, 2\n2.5, 3\n3.5, 4\n4.5, 5\n5.5, 6\n6.5, 7\n7.5, 8\n',
  };
  let dir = '';
  beforeEach(() => (dir = tempDir('wm-tu-')));
  afterEach(() => fs.rmSync(dir, {recursive: true, force: true}));

  it('reads each graph with its vertices from 0, attributes then one-hot vertex labels as features, classes in sorted order', async () => {
    write(path.join(dir, 'TOY'), tu);
    const d = await wm.graph.readTuDataset(path.join(dir, 'TOY'));
    expect(d.name).to.equal('TOY');
    expect(d.numClasses).to.equal(2);
    expect(d.classLabels).to.deep.equal([-1, 1]);
    expect(d.dim).to.equal(2 + 3);
    expect(d.graphs.map((g) => [g.numVertices, g.label])).to.deep.equal([
      [3, 1],
      [2, 0],
      [3, 1],
    ]);
    expect(Array.from(d.graphs[1].src)).to.deep.equal([0, 1]);
    expect(Array.from(d.graphs[2].dst)).to.deep.equal([1, 0, 2, 1]);
    // Vertex 7 (graph 3's second): attributes 6.5, 7; vertex label 0 -> one-hot [1, 0, 0].
    expect(Array.from(d.graphs[2].features!.subarray(5, 10))).to.deep.equal([6.5, 7, 1, 0, 0]);
    // Through the binary cache: written, read back equal, the class labels kept.
    const said: string[] = [];
    const cached = () => wm.graph.readTuDataset(path.join(dir, 'TOY'), undefined, {cache: true, onProgress: (l) => said.push(l)});
    const written = await cached();
    const back = await cached();
    expect(said.map((l) => l.split(' ').slice(0, 3).join(' '))).to.deep.equal(['cache not used:', 'wrote the cache', 'read the cache']);
    expect(back).to.deep.equal(written);
    expect(back).to.deep.equal(d);
    const b = wm.graph.batchGraphs(d.graphs);
    expect(b.numVertices).to.equal(8);
    expect(Array.from(b.labels!)).to.deep.equal([1, 0, 1]);
    b.dispose();
  });

  it('refuses graphs out of order, edges between graphs and counts that disagree, naming file and line', async () => {
    const bad = async (name: string, changes: Record<string, string>, rule: RegExp) => {
      const at = path.join(dir, name);
      write(at, Object.fromEntries(Object.entries({...tu, ...changes}).map(([f, t]) => [f.replace('TOY', name), t])));
      await expectReject(wm.graph.readTuDataset(at), rule);
    };
    await bad('A', {'TOY_graph_indicator.txt': '1\n1\n2\n1\n2\n3\n3\n3\n'}, /A_graph_indicator\.txt:4: graphs must come in order/);
    await bad('B', {'TOY_A.txt': '1, 2\n3, 4\n'}, /B_A\.txt: edge 2 \(3, 4\) joins graph 1 to graph 2/);
    await bad('C', {'TOY_graph_labels.txt': '1\n-1\n'}, /C_graph_labels\.txt: 2 labels for the 3 graphs/);
    await bad('D', {'TOY_A.txt': '1, 9\n'}, /D_A\.txt: edge 1: vertex 9 is not one of the 8 vertices/);
    await bad('E', {'TOY_node_labels.txt': '0\n'}, /E_node_labels\.txt: 1 lines for 8 vertices/);
    await bad('F', {'TOY_A.txt': '1; 2\n'}, /F_A\.txt:1: an edge must be numbers separated by commas/);
  });
});

describe('GraphLoader: small graphs in shuffled batches', () => {
  const graphs: wm.graph.SmallGraph[] = Array.from({length: 10}, (_, i) => ({
    numVertices: 1 + (i % 4),
    src: [0],
    dst: [i % 4],
    features: new Float32Array((1 + (i % 4)) * 2).fill(i),
    label: i,
  }));

  it('covers every graph once a pass in batches of batchSize (the last shorter), a new seeded order each pass', async () => {
    const orders = async (seed: number) => {
      const loader = new wm.graph.GraphLoader(graphs, {batchSize: 4, shuffle: true, seed});
      expect(loader.length).to.equal(3);
      const passes: number[][] = [];
      for (let pass = 0; pass < 2; ++pass) {
        const seen: number[] = [];
        const sizes: number[] = [];
        for await (const b of loader) {
          sizes.push(b.numGraphs);
          // Each batch's labels and features are its graphs'.
          expect(Array.from(b.labels!)).to.deep.equal(Array.from(b.indices));
          b.indices.forEach((g, k) => expect(b.features![b.ptr[k] * 2]).to.equal(g));
          seen.push(...b.indices);
          b.dispose();
        }
        expect(sizes).to.deep.equal([4, 4, 2]);
        expect([...seen].sort((a, b) => a - b)).to.deep.equal(Array.from({length: 10}, (_, i) => i));
        passes.push(seen);
      }
      return passes;
    };
    const a = await orders(3),
      b = await orders(3);
    expect(a).to.deep.equal(b);
    expect(a[0]).to.not.deep.equal(a[1]);
    const kept = new wm.graph.GraphLoader(graphs, {batchSize: 10});
    for await (const batch of kept) {
      expect(Array.from(batch.indices)).to.deep.equal(Array.from({length: 10}, (_, i) => i));
      batch.dispose();
    }
  });

  it('refuses a bad batch size and a bad graph when it is made', () => {
    expect(() => new wm.graph.GraphLoader(graphs, {batchSize: 0})).to.throw(/GraphLoader: batchSize must be a positive integer, got 0/);
    expect(() => new wm.graph.GraphLoader([...graphs, {numVertices: 1, src: [0], dst: [3]}], {batchSize: 2})).to.throw(
      /graphs\[10\]\.dst\[0\] = 3 is not a vertex of its 1/,
    );
  });
});

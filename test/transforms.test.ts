import {expect} from 'chai';

import {CsrGraph} from '../src/graph/csr';
import type {NodeClassificationData} from '../src/graph/node_data';
import * as T from '../src/graph/transforms';

// A directed path 0 -> 1 -> 2 -> 3 plus 3 -> 0, a loop at 2 and a duplicate 0 -> 1; two classes, vertex 4 unlabelled.
function data(): NodeClassificationData {
  const src = Int32Array.from([0, 0, 1, 2, 3, 2]),
    dst = Int32Array.from([1, 1, 2, 3, 0, 2]);
  const rowPtr = new Int32Array(6),
    order = [...src.keys()].sort((a, b) => src[a] - src[b] || dst[a] - dst[b]);
  for (const e of order) ++rowPtr[src[e] + 1];
  for (let v = 0; v < 5; ++v) rowPtr[v + 1] += rowPtr[v];
  const graph = new CsrGraph(
    rowPtr,
    Int32Array.from(order, (e) => dst[e]),
  );
  return {
    name: 't',
    graph,
    labels: Int32Array.from([0, 1, 0, 1, -1]),
    numClasses: 2,
    classNames: ['a', 'b'],
    originalIds: Int32Array.from([0, 1, 2, 3, 4]),
    features: {values: Float32Array.from([1, 3, 0, 0, 2, 2, -1, 1, 5, 5]), dim: 2, source: 'x', stored: 'float32'},
  };
}

const rows = (g: CsrGraph) => Array.from({length: g.numVertices}, (_, v) => Array.from(g.neighbors(v)));

describe('dataset transforms (wm.graph.transforms)', () => {
  it('toUndirected: both ways, duplicates and loops dropped; addSelfLoops: one loop per vertex, rows sorted; inputs untouched', () => {
    const d = data();
    const before = rows(d.graph);
    const u = T.toUndirected()(d);
    expect(rows(u.graph)).to.deep.equal([[1, 3], [0, 2], [1, 3], [0, 2], []]);
    expect(rows(d.graph)).to.deep.equal(before);
    const l = T.addSelfLoops()(d);
    expect(rows(l.graph)).to.deep.equal([[0, 1, 1], [1, 2], [2, 3], [0, 3], [4]]);
    expect(rows(T.addSelfLoops()(l).graph)).to.deep.equal(rows(l.graph));
    const both = T.compose(T.toUndirected(), T.addSelfLoops())(d);
    expect(rows(both.graph)).to.deep.equal([[0, 1, 3], [0, 1, 2], [1, 2, 3], [0, 2, 3], [4]]);
    expect(() => T.compose(T.toUndirected(), 3 as unknown as T.Transform)).to.throw(/argument 1 is not a transform/);
  });

  it('edge weights: addSelfLoops keeps them in entry order (a new loop weighs 1); toUndirected and randomLinkSplit drop them, saying so', () => {
    const d = {...data(), edgeWeights: Float32Array.from([1, 2, 3, 4, 5, 6])};
    expect(Array.from(T.addSelfLoops()(d).edgeWeights!)).to.deep.equal([1, 1, 2, 1, 3, 4, 5, 6, 1, 1]);
    const said: string[] = [];
    const emit = process.emitWarning;
    process.emitWarning = ((m: string) => void said.push(m)) as typeof process.emitWarning;
    try {
      expect(T.toUndirected()(d).edgeWeights).to.equal(undefined);
      const undirected = {...T.toUndirected()(data()), edgeWeights: new Float32Array(8).fill(2)};
      expect(T.randomLinkSplit({val: 0.2, test: 0.2, seed: 1})(undirected).train.edgeWeights).to.equal(undefined);
      expect(T.toUndirected()(data()).edgeWeights).to.equal(undefined);
    } finally {
      process.emitWarning = emit;
    }
    expect(said).to.deep.equal([
      "toUndirected: t's edge weights are not carried to the new graph; it is unweighted",
      "randomLinkSplit: t's edge weights are not carried to the new graph; it is unweighted",
    ]);
    expect(d.edgeWeights.length).to.equal(6);
  });

  it('normalizeFeatures: rows sum to 1 (rows with a negative value or summing to 0 kept), a copy', () => {
    const d = data();
    const n = T.normalizeFeatures()(d);
    expect(Array.from(n.features!.values)).to.deep.equal([0.25, 0.75, 0, 0, 0.5, 0.5, -1, 1, 0.5, 0.5]);
    expect(d.features!.values[0]).to.equal(1);
    expect(() => T.normalizeFeatures()({...d, features: undefined})).to.throw(/t has no node features/);
  });

  it('randomNodeSplit: per-class training vertices, then validation and test from the labelled rest; seeded', () => {
    const d = data();
    const s = T.randomNodeSplit({trainPerClass: 1, val: 1, test: 1, seed: 4})(d).split!;
    const all = [...s.train, ...s.val, ...s.test].sort();
    expect(all).to.deep.equal([0, 1, 2, 3]);
    expect(new Set(Array.from(s.train, (v) => d.labels[v])).size).to.equal(2);
    expect(T.randomNodeSplit({trainPerClass: 1, val: 1, test: 1, seed: 4})(d).split).to.deep.equal(s);
    expect(() => T.randomNodeSplit({trainPerClass: 3})(d)).to.throw(/class \d has 2 labelled vertices, fewer than 3/);
    expect(() => T.randomNodeSplit({val: -1})).to.throw(/val must be a count or a share/);
  });

  it('randomLinkSplit: the training graph lacks the held-out edges; negatives are non-edges', () => {
    const n = 60;
    const src: number[] = [],
      dst: number[] = [];
    for (let v = 0; v < n; ++v) (src.push(v, v), dst.push((v + 1) % n, (v + 7) % n));
    const g = CsrGraph.fromEdges(
      {numVertices: n, src: Int32Array.from(src), dst: Int32Array.from(dst), directed: false},
      {symmetric: true},
    );
    const d = {...data(), graph: g, labels: new Int32Array(n), originalIds: new Int32Array(n), features: undefined};
    const {train, edges} = T.randomLinkSplit({val: 0.1, test: 0.2, seed: 2})(d);
    expect(edges.valEdges.src.length).to.equal(12);
    expect(edges.testEdges.src.length).to.equal(24);
    expect(train.graph.numEdges).to.equal(2 * (120 - 36));
    for (const e of [edges.valEdges, edges.testEdges])
      e.src.forEach((u, i) => expect(Array.from(train.graph.neighbors(u))).to.not.include(e.dst[i]));
    for (const e of [edges.valNegatives, edges.testNegatives])
      e.src.forEach((u, i) => expect(Array.from(g.neighbors(u))).to.not.include(e.dst[i]));
    expect(() => T.randomLinkSplit({val: 0.6, test: 0.5})).to.throw(/must be shares summing below 1/);
  });
});

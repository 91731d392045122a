// Typed graphs: built from edges (each relation's rows against a reference), the reverse relations of
// toUndirected, the homogeneous graph with type offsets and relation ids, OGB's heterogeneous layout read
// from a folder the test writes (ogbn-mag's shape in miniature), and bad input named by file, line and rule.
import {spawnSync} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';

import {expect} from 'chai';

import {edgeTypeKey, featureValues, HeteroGraph} from '../src/graph/hetero_graph';
import {NativeCsr} from '../src/graph/native_csr';
import {readOgbHetero} from '../src/graph/ogb_hetero';
import {sampleTypedSubgraph, TypedLayer} from '../src/graph/typed_sampling';
import type {TypedLayerFn} from '../src/nn/typed_layerwise';
import * as tf from '@tensorflow/tfjs-core';
import * as wm from '../src/index';
import {rgcnConv} from '../src/nn/hetero/rgcn_conv';
import {rgatConv} from '../src/nn/hetero/rgat_conv';
import {planOf} from '../src/nn/hetero/rgat_pass';
import {layerRelations} from '../src/nn/hetero/typed_inputs';
import {heteroCsbm} from '../src/graph/hetero_csbm';
import {readMetrics} from '../src/train/metrics_log';
import {flattened, trainTypedNodeClassification} from '../src/train/typed_node_classification';
import {TypedFeatureStorage, TypedNeighborLoader} from '../src/nn/typed_neighbor_loader';
import {roundToWire} from './wire_rounding';
import {TypedLinkLoader} from '../src/nn/typed_link_loader';
import {trainTypedLinkPrediction} from '../src/train/typed_link_prediction';
import {seededRng} from '../src/util/random';
import {graphNative} from '../src/native/domains';
import {expectReject, gpuOnly} from './helpers';
import {CsrBlock} from '../src/graph/aggregate';
import {typedGraphFor} from '../src/graph/device_hetero_graph';
import type {TypedFanouts} from '../src/graph/typed_sampling';
import {tempDir} from './temp_dirs';

const gz = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), {recursive: true});
  fs.writeFileSync(file, zlib.gzipSync(Buffer.from(text)));
};

/**
 * The gradient of sum(w * aggregate(x, block, reduce)) in float64 from the forward product's own entries
 * (dx[c] = sum over entries e of row r into column c of rowScale[r] weight[e] w[r]), and the sum of the
 * terms' magnitudes: float32 sums in any order (atomics, a transpose's chunks) lie within a small multiple of it.
 */
function scatterReference(block: CsrBlock, reduce: 'mean' | 'sum' | 'gcn', w: Float32Array, dim: number) {
  const c = block.product(reduce, false);
  const ref = new Float64Array(c.numCols * dim),
    mag = new Float64Array(c.numCols * dim);
  for (let r = 0; r < c.numRows; ++r)
    for (let e = c.rowPtr[r]; e < c.rowPtr[r + 1]; ++e) {
      const a = (c.rowScale ? c.rowScale[r] : 1) * (c.weight ? c.weight[e] : 1);
      for (let j = 0; j < dim; ++j) {
        const t = a * w[r * dim + j];
        ref[c.colIdx[e] * dim + j] += t;
        mag[c.colIdx[e] * dim + j] += Math.abs(t);
      }
    }
  return {ref, mag};
}

/** Within float32 summation-order error of a float64 reference: 4e-6 of the terms' magnitudes, plus 1e-6. */
function near(got: ArrayLike<number>, want: {ref: Float64Array; mag: Float64Array} | ArrayLike<number>, what: string): void {
  const ref = 'ref' in want ? want.ref : want,
    mag = 'mag' in want ? want.mag : undefined;
  expect(got.length, `${what}: length`).to.equal(ref.length);
  for (let i = 0; i < ref.length; ++i)
    if (!(Math.abs(got[i] - ref[i]) <= 1e-6 + 4e-6 * (mag ? mag[i] : 4 * Math.abs(ref[i]))))
      expect.fail(`${what}: [${i}] is ${got[i]}, expected ${ref[i]}`);
}

/** The random blocks' [rows, columns, most entries a row]: none, one column, a few hundred rows, more columns than rows. */
const BLOCK_SHAPES = [
  [0, 5, 0],
  [7, 1, 3],
  [300, 90, 40],
  [1000, 4000, 25],
];

/** A random block of `rows` rows over `cols` columns, up to `most` entries a row, every ninth row empty, every third entry on column 0 (a hub many rows add into at once). */
function randomBlock(rng: () => number, rows: number, cols: number, most: number): {rowPtr: Int32Array; cols32: Int32Array} {
  const rowPtr = new Int32Array(rows + 1);
  const colIdx: number[] = [];
  for (let r = 0; r < rows; ++r) {
    const k = r % 9 === 4 ? 0 : Math.floor(rng() * (most + 1));
    for (let e = 0; e < k; ++e) colIdx.push(e % 3 === 0 ? 0 : Math.floor(rng() * cols));
    rowPtr[r + 1] = colIdx.length;
  }
  return {rowPtr, cols32: Int32Array.from(colIdx)};
}

/** Each destination's sources, sorted, from (src, dst) pairs. */
function incoming(src: Int32Array, dst: Int32Array, n: number): number[][] {
  const rows: number[][] = Array.from({length: n}, () => []);
  src.forEach((s, i) => rows[dst[i]].push(s));
  return rows.map((r) => r.sort((a, b) => a - b));
}

function randomEdges(rng: () => number, m: number, ns: number, nd: number) {
  return {src: Int32Array.from({length: m}, () => Math.floor(rng() * ns)), dst: Int32Array.from({length: m}, () => Math.floor(rng() * nd))};
}

/** Papers, authors and fields: writes (and its reverse, drawn apart), cites, has_topic, with `edges` [writes, cites, has_topic] random edges. */
function papersAuthorsFields(rng: () => number, n: {paper: number; author: number; field: number}, edges: [number, number, number]) {
  return HeteroGraph.fromEdges(n, [
    {type: ['author', 'writes', 'paper'], edges: randomEdges(rng, edges[0], n.author, n.paper)},
    {type: ['paper', 'cites', 'paper'], edges: randomEdges(rng, edges[1], n.paper, n.paper)},
    {type: ['paper', 'has_topic', 'field'], edges: randomEdges(rng, edges[2], n.paper, n.field)},
    {type: ['paper', 'rev_writes', 'author'], edges: randomEdges(rng, edges[0], n.paper, n.author)},
  ]);
}

/** A folder in OGB's heterogeneous layout (ogbn-mag's shape in miniature); returns what it holds. */
function writeOgbHetero(dir: string, rng: () => number) {
  const raw = path.join(dir, 'raw');
  gz(path.join(raw, 'num-node-dict.csv.gz'), 'author,field_of_study,institution,paper\n6,4,2,8\n');
  gz(
    path.join(raw, 'triplet-type-list.csv.gz'),
    'author,affiliated_with,institution\nauthor,writes,paper\npaper,cites,paper\npaper,has_topic,field_of_study\n',
  );
  const rel = (key: string, ns: number, nd: number, m: number) => {
    const e = randomEdges(rng, m, ns, nd);
    gz(path.join(raw, 'relations', key, 'edge.csv.gz'), Array.from(e.src, (s, i) => `${s},${e.dst[i]}\n`).join(''));
    gz(path.join(raw, 'relations', key, 'num-edge-list.csv.gz'), `${m}\n`);
    return e;
  };
  const edges = {
    author___affiliated_with___institution: rel('author___affiliated_with___institution', 6, 2, 5),
    author___writes___paper: rel('author___writes___paper', 6, 8, 12),
    paper___cites___paper: rel('paper___cites___paper', 8, 8, 10),
    paper___has_topic___field_of_study: rel('paper___has_topic___field_of_study', 8, 4, 9),
  };
  const feats = Float32Array.from({length: 8 * 3}, () => Math.round(rng() * 100) / 10);
  gz(
    path.join(raw, 'node-feat', 'paper', 'node-feat.csv.gz'),
    Array.from({length: 8}, (_, v) => Array.from(feats.subarray(3 * v, 3 * v + 3)).join(',') + '\n').join(''),
  );
  gz(path.join(raw, 'node-label', 'paper', 'node-label.csv.gz'), '3\n0\n1\n2\n3\n1\n0\n2\n');
  for (const [name, ids] of [
    ['train', '0\n1\n2\n3\n'],
    ['valid', '4\n5\n'],
    ['test', '6\n7\n'],
  ])
    gz(path.join(dir, 'split', 'time', 'paper', `${name}.csv.gz`), ids);
  return {edges, feats};
}

/** A small typed graph: papers citing papers, authors writing papers, and the reverse. */
function papersAndAuthors(rng: () => number): HeteroGraph {
  return HeteroGraph.fromEdges({paper: 30, author: 20}, [
    {type: ['author', 'writes', 'paper'], edges: randomEdges(rng, 80, 20, 30)},
    {type: ['paper', 'cites', 'paper'], edges: randomEdges(rng, 90, 30, 30)},
    {type: ['paper', 'rev_writes', 'author'], edges: randomEdges(rng, 80, 30, 20)},
  ]);
}

/** The error function (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7). */
function erf(x: number): number {
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return x >= 0 ? y : -y;
}

/** Every array of `ours` within 1e-4 of the largest magnitude of the matching reference array. */
function expectAllNear(ours: Float64Array[], ref: Float64Array[], what: string): void {
  expect(ours.length).to.equal(ref.length);
  ours.forEach((a, i) => {
    const scale = Math.max(1e-3, ...Array.from(ref[i], Math.abs));
    for (let j = 0; j < a.length; ++j)
      expect(Math.abs(a[j] - ref[i][j]), `${what} output ${i} [${j}]: ${a[j]} vs ${ref[i][j]}`).to.be.at.most(1e-4 * scale);
  });
}

/**
 * A typed layer's value under a fixed weighting of its outputs and its gradients (the inputs', then each variable's
 * that gets one), on the wholememory backend and then on tfjs-backend-cpu: [ours, reference].
 */
function gradsOnBothBackends(
  conv: {apply(x: Record<string, tf.Tensor2D>, layer: TypedLayer): Record<string, tf.Tensor2D>; variables: tf.Variable[]},
  layer: TypedLayer,
  inputs: () => Record<string, tf.Tensor2D>,
): [Float64Array[], Float64Array[]] {
  const run = () => {
    const x = inputs();
    const types = Object.keys(x);
    const f = (...a: tf.Tensor[]) => {
      const out = conv.apply(Object.fromEntries(types.map((t, i) => [t, a[i] as tf.Tensor2D])), layer);
      return tf.addN(Object.values(out).map((o) => tf.sum(tf.mul(o, tf.sin(tf.range(0, o.size).reshape(o.shape)))))) as tf.Scalar;
    };
    const xs = types.map((t) => x[t]);
    const all = tf.tidy(() => {
      const {value, grads} = tf.valueAndGrads(f)(xs);
      const wg = tf.variableGrads(() => f(...xs), conv.variables).grads;
      return [value, ...grads, ...conv.variables.filter((v) => wg[v.name]).map((v) => wg[v.name])];
    });
    const values = all.map((t) => Float64Array.from(t.dataSync()));
    tf.dispose([...all, ...xs]);
    return values;
  };
  const ours = run();
  tf.setBackend('cpu');
  const ref = run();
  tf.setBackend(wm.BACKEND_NAME);
  return [ours, ref];
}

describe('typed graphs (HeteroGraph, OGB heterogeneous folders)', () => {
  it('each relation holds its edges as rows of destinations (duplicates kept, ids of different types never mixed); reverse relations; one homogeneous graph with relation ids', () => {
    const rng = seededRng(5);
    const numNodes = {paper: 7, author: 11, institution: 3};
    const writes = randomEdges(rng, 30, 11, 7),
      cites = randomEdges(rng, 20, 7, 7),
      affiliated = randomEdges(rng, 9, 11, 3);
    writes.src[0] = 4; // an author and a paper with the same id: not a self loop
    writes.dst[0] = 4;
    writes.src[1] = 4;
    writes.dst[1] = 4; // the same edge twice: kept
    const g = HeteroGraph.fromEdges(numNodes, [
      {type: ['author', 'writes', 'paper'], edges: writes},
      {type: ['paper', 'cites', 'paper'], edges: cites},
      {type: ['author', 'affiliated_with', 'institution'], edges: affiliated},
    ]);
    try {
      for (const [key, e, n] of [
        ['author___writes___paper', writes, 7],
        ['paper___cites___paper', cites, 7],
        ['author___affiliated_with___institution', affiliated, 3],
      ] as const) {
        const back = g.edgesOf(key);
        expect(incoming(back.src, back.dst, n)).to.deep.equal(incoming(e.src, e.dst, n));
        expect(g.relation(key).numEdges).to.equal(e.src.length);
      }
      const u = g.toUndirected();
      try {
        expect(u.edgeTypes.map(edgeTypeKey)).to.deep.equal([
          'author___writes___paper',
          'paper___rev_writes___author',
          'paper___cites___paper',
          'author___affiliated_with___institution',
          'institution___rev_affiliated_with___author',
        ]);
        const rev = u.edgesOf('paper___rev_writes___author');
        expect(incoming(rev.src, rev.dst, 11)).to.deep.equal(incoming(writes.dst, writes.src, 11));
        const both = u.edgesOf('paper___cites___paper');
        expect(both.src.length).to.equal(40);
      } finally {
        u.free();
      }
      const h = g.toHomogeneous();
      try {
        expect(h.offsets).to.deep.equal({paper: 0, author: 7, institution: 18});
        expect(h.numVertices).to.equal(21);
        // Every entry back to its relation: the relation's edges, shifted by the type offsets.
        const got = new Map<number, [number, number][]>();
        const offsets = h.graph.offsets(0, 22);
        for (let v = 0; v < 21; ++v) {
          const cols = h.graph.neighbors(v);
          for (let k = 0; k < cols.length; ++k) {
            const r = h.edgeType[Number(offsets[v]) + k];
            if (!got.has(r)) got.set(r, []);
            got.get(r)!.push([cols[k], v]);
          }
        }
        h.edgeTypes.forEach((t, r) => {
          const e = g.edgesOf(t);
          const want = Array.from(e.src, (s, i) => [s + h.offsets[t[0]], e.dst[i] + h.offsets[t[2]]]).sort();
          expect((got.get(r) ?? []).sort(), edgeTypeKey(t)).to.deep.equal(want);
        });
      } finally {
        h.graph.free();
      }
    } finally {
      g.free();
    }
    expect(() =>
      HeteroGraph.fromEdges({paper: 3}, [{type: ['paper', 'cites', 'venue'], edges: {src: new Int32Array(0), dst: new Int32Array(0)}}]),
    ).to.throw(/names vertex type 'venue', which has no count/);
    expect(() =>
      HeteroGraph.fromEdges({paper: 3}, [{type: ['paper', 'cites', 'paper'], edges: {src: Int32Array.of(1), dst: Int32Array.of(3)}}]),
    ).to.throw(/paper___cites___paper edge 0: destination 3 is not an id in \[0, 3\)/);
    expect(() => HeteroGraph.fromEdges({'pa per': 3}, [])).to.throw(/vertex type 'pa per' must be letters/);
    // A caller's graphs: every source checked against its type's count (natively, any size), no entry past the destinations.
    const relationOf = (rowPtr: number[], cols: number[]) => NativeCsr.fromCsr(Int32Array.from(rowPtr), Int32Array.from(cols));
    const fine = relationOf([0, 2, 3, 3, 3, 3], [2, 0, 1]);
    const far = relationOf([0, 2, 3, 3, 3, 3], [2, 0, 4]);
    const past = relationOf([0, 1, 1, 1, 2, 2], [1, 0]);
    try {
      const writes = (graph: NativeCsr, numEdges: number, counts = {author: 3, paper: 5}) =>
        HeteroGraph.fromRelations(counts, [{type: ['author', 'writes', 'paper'], graph, numEdges}]);
      expect(writes(fine, 3).edgesOf('author___writes___paper')).to.deep.equal({src: Int32Array.of(2, 0, 1), dst: Int32Array.of(0, 0, 1)});
      expect(() => writes(far, 3)).to.throw(/entry 2 of author___writes___paper is source 4, not an id in \[0, 3\)/);
      expect(() => writes(past, 2, {author: 5, paper: 2})).to.throw(/has entries in rows past its 2 destinations/);
      expect(() => writes(fine, 4)).to.throw(/has 5 rows and 3 entries; its types need 5 and it says 4/);
    } finally {
      for (const x of [fine, far, past]) x.free();
    }
  });

  it("reads OGB's heterogeneous layout (ogbn-mag's files): counts, relations, features, labels, the split; bad files named by file, line and rule", async () => {
    const dir = tempDir('wm-ogb-hetero-');
    const raw = path.join(dir, 'raw');
    const rng = seededRng(9);
    try {
      const {edges, feats} = writeOgbHetero(dir, rng);
      const g = await readOgbHetero(dir);
      try {
        expect(g.numNodes).to.deep.equal({author: 6, field_of_study: 4, institution: 2, paper: 8});
        for (const [key, e] of Object.entries(edges)) {
          const back = g.edgesOf(key);
          const n = g.numNodes[key.split('___')[2]];
          expect(incoming(back.src, back.dst, n), key).to.deep.equal(incoming(e.src, e.dst, n));
        }
        expect(g.features.paper.dim).to.equal(3);
        expect(Array.from(featureValues(g.features.paper))).to.deep.equal(Array.from(feats));
        expect(g.labels!.type).to.equal('paper');
        expect(g.labels!.numClasses).to.equal(4);
        expect(Array.from(g.labels!.split!.val)).to.deep.equal([4, 5]);
      } finally {
        g.free();
      }
      // An id past its type's count, named by file and line.
      gz(path.join(raw, 'relations', 'author___affiliated_with___institution', 'edge.csv.gz'), '0,1\n5,2\n');
      await expectReject(
        readOgbHetero(dir),
        /author___affiliated_with___institution\/edge\.csv\.gz:2: institution id 2 is past the 2 vertices of type 'institution'/,
      );
      gz(path.join(raw, 'relations', 'author___affiliated_with___institution', 'edge.csv.gz'), '0,1\n5,1\n');
      await expectReject(readOgbHetero(dir), /edge\.csv\.gz: 2 edges, num-edge-list\.csv\.gz says 5/);
      gz(path.join(raw, 'relations', 'author___affiliated_with___institution', 'num-edge-list.csv.gz'), '2\n');
      // A relation folder the triplet list does not name; a type the dictionary does not have; labels of the wrong length.
      fs.mkdirSync(path.join(raw, 'relations', 'paper___in___venue'));
      await expectReject(readOgbHetero(dir), /paper___in___venue: a relation folder triplet-type-list\.csv\.gz does not list/);
      fs.rmdirSync(path.join(raw, 'relations', 'paper___in___venue'));
      gz(path.join(raw, 'triplet-type-list.csv.gz'), 'author,affiliated_with,institution\nauthor,writes,venue\n');
      await expectReject(readOgbHetero(dir), /triplet-type-list\.csv\.gz:2: vertex type 'venue' is not in num-node-dict\.csv\.gz/);
      gz(
        path.join(raw, 'triplet-type-list.csv.gz'),
        'author,affiliated_with,institution\nauthor,writes,paper\npaper,cites,paper\npaper,has_topic,field_of_study\n',
      );
      gz(path.join(raw, 'node-label', 'paper', 'node-label.csv.gz'), '3\n0\n1\n');
      await expectReject(readOgbHetero(dir), /node-label\.csv\.gz: 3 labels for 8 vertices of 'paper'/);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('keeps what it read in the binary cache: mapped back while the sources stand, parsed again when one changes or a cached file is damaged', async () => {
    const dir = tempDir('wm-ogb-hetero-cache-');
    const said: string[] = [];
    const read = () => readOgbHetero(dir, {cache: true, onProgress: (l) => said.push(l)});
    const same = (a: HeteroGraph, b: HeteroGraph) => {
      expect(b.numNodes).to.deep.equal(a.numNodes);
      for (const t of a.edgeTypes) {
        const [x, y] = [a.edgesOf(t), b.edgesOf(t)];
        expect([Array.from(y.src), Array.from(y.dst)], t.join(' ')).to.deep.equal([Array.from(x.src), Array.from(x.dst)]);
      }
      expect(Array.from(featureValues(b.features.paper))).to.deep.equal(Array.from(featureValues(a.features.paper)));
      expect(Array.from(b.labels!.labels)).to.deep.equal(Array.from(a.labels!.labels));
      expect(Array.from(b.labels!.split!.test)).to.deep.equal(Array.from(a.labels!.split!.test));
    };
    try {
      writeOgbHetero(dir, seededRng(4));
      const first = await read();
      expect(said.pop()).to.match(/^wrote the cache in .*\.wmcache/);
      const second = await read();
      expect(said.pop()).to.match(/^read the cache in /);
      same(first, second);
      second.free();
      // A source written again (its change time moves, whatever its bytes): parsed again and rewritten.
      const labelsFile = path.join(dir, 'raw', 'node-label', 'paper', 'node-label.csv.gz');
      fs.writeFileSync(labelsFile, fs.readFileSync(labelsFile));
      const third = await read();
      expect(said.slice(-2)[0]).to.match(/cache not used: raw\/node-label\/paper\/node-label\.csv\.gz changed since the cache was written/);
      same(first, third);
      third.free();
      // A cached array damaged: its digest fails, the folder is parsed again.
      const cached = path.join(dir, '.wmcache', 'hetero', 'features-0.f32');
      const bytes = fs.readFileSync(cached);
      bytes[5] ^= 0xff;
      fs.writeFileSync(cached, bytes);
      const fourth = await read();
      expect(said.slice(-2)[0]).to.match(/cache not used: .*features-0\.f32: fails its digest/);
      same(first, fourth);
      fourth.free();
      first.free();
      // cache: false reads the text every time and writes nothing new.
      said.length = 0;
      (await readOgbHetero(dir, {cache: false, onProgress: (l) => said.push(l)})).free();
      expect(said).to.deep.equal([]);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('typed sampling: every drawn edge is an edge of its relation, up to the fan-out per row (all of them below it), each type relabelled on its own with the frontier first; per-relation fan-outs; seeded', () => {
    const numNodes = {paper: 40, author: 25, field: 6};
    const g = papersAuthorsFields(seededRng(13), numNodes, [120, 150, 60]);
    try {
      const rows = new Map(
        g.edgeTypes.map((t) => [
          edgeTypeKey(t),
          (() => {
            const e = g.edgesOf(t);
            return incoming(e.src, e.dst, numNodes[t[2] as keyof typeof numNodes]);
          })(),
        ]),
      );
      const seeds = Int32Array.of(3, 17, 0, 39, 22);
      for (const replace of [false, true]) {
        const sub = sampleTypedSubgraph(g, 'paper', seeds, [4, 3], {seed: 7, replace});
        try {
          expect(sub.layers.length).to.equal(2);
          expect(Array.from(sub.layers[1].dst.paper)).to.deep.equal(Array.from(seeds));
          expect(sub.layers[1].dst.author.length).to.equal(0);
          sub.layers.forEach((layer, li) => {
            const fanout = [3, 4][li];
            for (const t of Object.keys(numNodes))
              expect(Array.from(layer.src[t].subarray(0, layer.dst[t].length)), `layer ${li} ${t}: frontier first`).to.deep.equal(
                Array.from(layer.dst[t]),
              );
            for (const [key, block] of Object.entries(layer.blocks)) {
              const [s, , d] = key.split('___');
              const {rowPtr, colIdx} = block.arrays;
              expect(rowPtr.length - 1).to.equal(layer.dst[d].length);
              for (let i = 0; i < layer.dst[d].length; ++i) {
                const inRows = rows.get(key)![layer.dst[d][i]];
                const got = Array.from(colIdx.subarray(rowPtr[i], rowPtr[i + 1]), (c) => layer.src[s][c]);
                for (const x of got) expect(inRows, `${key}: ${x} -> ${layer.dst[d][i]}`).to.include(x);
                if (!replace) expect(got.length).to.equal(Math.min(fanout, inRows.length));
                else expect(got.length).to.equal(inRows.length === 0 ? 0 : fanout);
              }
            }
          });
          const again = sampleTypedSubgraph(g, 'paper', seeds, [4, 3], {seed: 7, replace});
          expect(Array.from(again.layers[0].src.author)).to.deep.equal(Array.from(sub.layers[0].src.author));
          again.dispose();
        } finally {
          sub.dispose();
        }
      }
      const only = sampleTypedSubgraph(g, 'paper', seeds, {paper___cites___paper: [2, 2]}, {seed: 1});
      expect(only.layers[0].src.author.length).to.equal(0);
      expect(only.layers[1].blocks.author___writes___paper.arrays.colIdx.length).to.equal(0);
      only.dispose();
      expect(() => sampleTypedSubgraph(g, 'venue', seeds, [2])).to.throw(/seed type 'venue' is not a vertex type/);
      expect(() => sampleTypedSubgraph(g, 'paper', Int32Array.of(40), [2])).to.throw(/seeds\[0\] = 40 is not a 'paper' id in \[0, 40\)/);
      expect(() => sampleTypedSubgraph(g, 'paper', seeds, {paper___in___venue: [2]})).to.throw(/no edge type paper___in___venue/);
    } finally {
      g.free();
    }
  });

  it("typed sampling on the GPU (a DeviceHeteroGraph) makes the host sampler's subgraph: the same ids, blocks and draws, with and without replacement; its blocks' products and scattered gradients equal the host's", function () {
    gpuOnly(this);
    // Sparse relations, so that some frontier rows have no neighbours (with replacement they sample nothing).
    const numNodes = {paper: 300, author: 170, field: 9};
    const g = papersAuthorsFields(seededRng(29), numNodes, [260, 900, 400]);
    const dg = new wm.graph.DeviceHeteroGraph(g);
    const live = tf.memory().numTensors;
    try {
      const seeds = Int32Array.from({length: 61}, (_, i) => (i * 37) % 300);
      const cases: [TypedFanouts, boolean][] = [
        [[5, 3], false],
        [[5, 3], true],
        [{paper___cites___paper: [4, 2], author___writes___paper: [3, 0]}, false],
        [[40, 40], false],
      ];
      for (const [fanouts, replace] of cases) {
        for (const seed of [0, 11]) {
          const host = sampleTypedSubgraph(g, 'paper', seeds, fanouts, {seed, replace});
          const dev = sampleTypedSubgraph(dg, 'paper', seeds, fanouts, {seed, replace});
          const what = `${JSON.stringify(fanouts)} replace ${replace} seed ${seed}`;
          try {
            expect(dev.layers.length).to.equal(host.layers.length);
            host.layers.forEach((hl, li) => {
              const dl = dev.layers[li];
              for (const t of Object.keys(numNodes)) {
                expect(Array.from(dl.src[t]), `${what}: layer ${li} ${t} inputs`).to.deep.equal(Array.from(hl.src[t]));
                expect(Array.from(dl.dst[t]), `${what}: layer ${li} ${t} outputs`).to.deep.equal(Array.from(hl.dst[t]));
              }
              expect(Object.keys(dl.blocks).sort()).to.deep.equal(Object.keys(hl.blocks).sort());
              for (const [key, hb] of Object.entries(hl.blocks)) {
                const db = dl.blocks[key];
                expect(Array.from(db.arrays.rowPtr), `${what}: ${key} offsets`).to.deep.equal(Array.from(hb.arrays.rowPtr));
                expect(Array.from(db.arrays.colIdx), `${what}: ${key} positions`).to.deep.equal(Array.from(hb.arrays.colIdx));
                expect(db.numCols).to.equal(hb.numCols);
                expect(db.scatters, 'a GPU-sampled block is differentiated by scattering').to.equal(true);
                for (const reduce of ['mean', 'sum'] as const) {
                  const dim = 1 + ((li * 31 + key.length) % 70);
                  const x = tf.randomNormal([hb.numCols, dim], 0, 1, 'float32', seed + li) as tf.Tensor2D;
                  const w = tf.randomNormal([hb.numRows, dim], 0, 1, 'float32', seed + 7) as tf.Tensor2D;
                  const run = (b: typeof hb) => {
                    const y = wm.graph.aggregate(x, b, reduce);
                    const dx = tf.grad((xx: tf.Tensor) => tf.sum(tf.mul(wm.graph.aggregate(xx as tf.Tensor2D, b, reduce), w)))(x);
                    const out = [y.dataSync().slice(), dx.dataSync().slice()];
                    tf.dispose([y, dx]);
                    return out;
                  };
                  const [hy] = run(hb),
                    [dy, ddx] = run(db);
                  near(dy, hy, `${what}: ${key} ${reduce} product`);
                  near(
                    ddx,
                    scatterReference(hb, reduce, w.dataSync() as Float32Array, dim),
                    `${what}: ${key} ${reduce} gradient (scattered)`,
                  );
                  tf.dispose([x, w]);
                }
              }
            });
          } finally {
            host.dispose();
            dev.dispose();
          }
        }
      }
      expect(tf.memory().numTensors, 'tensors left behind').to.equal(live);
      // The loader over the device graph gives the host loader's batches.
      const a = new TypedNeighborLoader(g, {seedType: 'paper', seeds, fanouts: [4, 4], batchSize: 25, shuffle: true, seed: 3});
      const b = new TypedNeighborLoader(dg, {seedType: 'paper', seeds, fanouts: [4, 4], batchSize: 25, shuffle: true, seed: 3});
      const ha = a.batch(seeds.subarray(0, 25), 5),
        hb = b.batch(seeds.subarray(0, 25), 5);
      expect(Array.from(hb.sub.layers[0].src.author)).to.deep.equal(Array.from(ha.sub.layers[0].src.author));
      expect(Array.from(hb.x.paper.dataSync())).to.deep.equal(Array.from(ha.x.paper.dataSync()));
      [ha, hb].forEach((x) => x.dispose());
      [a, b].forEach((x) => x.dispose());
      expect(() => sampleTypedSubgraph(dg, 'paper', Int32Array.of(300), [2])).to.throw(
        /seeds\[0\] = 300 is not a 'paper' id in \[0, 300\)/,
      );
    } finally {
      dg.dispose();
      g.free();
    }
    expect(() => sampleTypedSubgraph(dg, 'paper', Int32Array.of(1), [2])).to.throw(/DeviceHeteroGraph.relation: the graph was disposed/);
  });

  it('where typed batches are sampled: the host graph without a GPU or when asked, the GPU when asked or by default there; a bad place named', async () => {
    const rng = seededRng(5);
    const g = HeteroGraph.fromEdges({a: 10, b: 6}, [{type: ['a', 'to', 'b'], edges: randomEdges(rng, 30, 10, 6)}]);
    try {
      const host = typedGraphFor(g, 'host');
      expect(host.graph).to.equal(g);
      host.release();
      expect(() => typedGraphFor(g, 'gpu' as 'host')).to.throw(/sampleOn must be 'auto', 'host' or 'device', got 'gpu'/);
      const auto = typedGraphFor(g);
      expect(auto.graph === g, 'auto samples on the GPU exactly when there is one').to.equal(!wm.deviceInfo().gpu);
      auto.release();
      if (!wm.deviceInfo().gpu) {
        expect(() => new wm.graph.DeviceHeteroGraph(g)).to.throw(/DeviceHeteroGraph needs the wholememory backend on a GPU/);
        expect(() => typedGraphFor(g, 'device')).to.throw(/DeviceHeteroGraph needs the wholememory backend on a GPU/);
      }
    } finally {
      g.free();
    }
  });

  it('the scattered gradient of a block product (csrSpmmScatter on the GPU; the transposed product elsewhere) and the transposed product equal a float64 reference on random blocks with hub columns, weights, empty rows and odd widths', () => {
    const rng = seededRng(41);
    for (const [rows, cols, most] of BLOCK_SHAPES) {
      const {rowPtr, cols32} = randomBlock(rng, rows, cols, most);
      const weights = Float32Array.from(cols32, () => 0.1 + rng() * 2); // positive: GCN normalises by weighted degrees
      for (const dim of [1, 33, 128]) {
        for (const reduce of ['mean', 'sum', 'gcn'] as const) {
          if (reduce === 'gcn' && rows > cols) continue;
          for (const weighted of [false, true]) {
            const plain = new wm.graph.CsrBlock(rowPtr, cols32, cols);
            const scattered = CsrBlock.trusted(rowPtr.slice(), cols32.slice(), cols, undefined, undefined, true);
            const [p, sc] = weighted ? [plain.withWeights(weights), scattered.withWeights(weights)] : [plain, scattered];
            expect(sc.scatters).to.equal(true);
            const x = tf.randomNormal([cols, dim], 0, 1, 'float32', dim) as tf.Tensor2D;
            const w = tf.randomNormal([rows, dim], 0, 1, 'float32', dim + 1) as tf.Tensor2D;
            const grad = (b: CsrBlock) => {
              const dx = tf.grad((xx: tf.Tensor) => tf.sum(tf.mul(wm.graph.aggregate(xx as tf.Tensor2D, b, reduce), w)))(x);
              const v = dx.dataSync().slice();
              dx.dispose();
              return v;
            };
            const want = scatterReference(p, reduce, w.dataSync() as Float32Array, dim);
            const what = `${rows}x${cols} dim ${dim} ${reduce}${weighted ? ' weighted' : ''}`;
            near(grad(sc), want, `${what}, scattered`);
            near(grad(p), want, `${what}, transposed`);
            tf.dispose([x, w]);
            [plain, scattered, p, sc].forEach((b) => b.dispose());
          }
        }
      }
    }
  });

  it("graph attention's gradients on a block sampled for one step (gatBackwardScatter on the GPU; the transposed block elsewhere) equal those through the transposed block, on random blocks with hub columns, empty rows, odd widths and several heads", () => {
    const rng = seededRng(43);
    for (const [rows, cols, most] of BLOCK_SHAPES) {
      const {rowPtr, cols32} = randomBlock(rng, rows, cols, most);
      for (const [heads, dim] of [
        [1, 1],
        [3, 33],
        [4, 64],
      ]) {
        const plain = new wm.graph.CsrBlock(rowPtr, cols32, cols);
        const scattered = CsrBlock.trusted(rowPtr.slice(), cols32.slice(), cols, undefined, undefined, true);
        const feat = tf.randomNormal([cols, heads, dim], 0, 1, 'float32', dim) as tf.Tensor3D;
        const src = tf.randomNormal([cols, heads], 0, 1, 'float32', dim + 1) as tf.Tensor2D;
        const dst = tf.randomNormal([rows, heads], 0, 1, 'float32', dim + 2) as tf.Tensor2D;
        const w = tf.randomNormal([rows, heads, dim], 0, 1, 'float32', dim + 3);
        const grads = (b: CsrBlock) => {
          const g = tf.grads((f: tf.Tensor, s: tf.Tensor, d: tf.Tensor) =>
            tf.sum(tf.mul(wm.nn.gatAggregate(b, f as tf.Tensor3D, s as tf.Tensor2D, d as tf.Tensor2D), w)),
          )([feat, src, dst]);
          const v = g.map((t) => Float32Array.from(t.dataSync()));
          tf.dispose(g);
          return v;
        };
        const [got, want] = [grads(scattered), grads(plain)];
        ['feat', 'src', 'dst'].forEach((name, i) => {
          const scale = want[i].reduce((m, x) => Math.max(m, Math.abs(x)), 0);
          expect(got[i].length).to.equal(want[i].length);
          // The scatter adds a hub column's terms in whatever order its atomics land: float32 sums of hundreds of
          // terms in two orders differ by some 1e-5 of the largest gradient; a lost or doubled term by far more.
          for (let k = 0; k < want[i].length; ++k)
            if (!(Math.abs(got[i][k] - want[i][k]) <= 1e-6 + 1e-4 * scale))
              expect.fail(`${rows}x${cols}, ${heads} heads of ${dim}: d${name}[${k}] is ${got[i][k]} scattered, ${want[i][k]} transposed`);
        });
        tf.dispose([feat, src, dst, w]);
        [plain, scattered].forEach((b) => b.dispose());
      }
    }
  });

  it('relabels ids by marks natively as the pass in order does: first appearances in order, every position numbered, the marks cleared; ids out of range named', () => {
    const rng = seededRng(53);
    for (const [n, space] of [
      [0, 5],
      [7, 3],
      [40000, 100],
      [300000, 1000000],
      [300000, 20],
    ]) {
      const all = Int32Array.from({length: n}, () => Math.floor(rng() * space));
      const marks = new Int32Array(space).fill(-1);
      const unique = new Int32Array(n),
        inverse = new Int32Array(n);
      const count = graphNative().relabelByMarks(all, n, marks, space, unique, inverse);
      const first = new Map<number, number>();
      const want: number[] = [];
      all.forEach((v) => {
        if (!first.has(v)) {
          first.set(v, want.length);
          want.push(v);
        }
      });
      expect(count, `n ${n}`).to.equal(want.length);
      for (let j = 0; j < count; ++j) if (unique[j] !== want[j]) expect(unique[j], `n ${n} unique[${j}]`).to.equal(want[j]);
      for (let i = 0; i < n; ++i)
        if (inverse[i] !== first.get(all[i])) expect(inverse[i], `n ${n} inverse[${i}]`).to.equal(first.get(all[i]));
      expect(
        marks.every((m) => m === -1),
        `n ${n}: marks cleared`,
      ).to.equal(true);
    }
    expect(() =>
      graphNative().relabelByMarks(Int32Array.of(1, 4), 2, new Int32Array(4).fill(-1), 4, new Int32Array(2), new Int32Array(2)),
    ).to.throw(/all.*entry 1 = 4 is outside \[0, 4\)/);
  });

  it('rgcnConv (own matrices, bases, blocks; mean and sum) against dense tfjs ops on tfjs-backend-cpu: outputs, input and weight gradients', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const rng = seededRng(17);
    const g = papersAndAuthors(rng);
    const before = tf.memory().numTensors;
    try {
      const sub = sampleTypedSubgraph(g, 'paper', Int32Array.of(1, 5, 9, 12, 28, 3), [3, 4], {seed: 2});
      const layer = sub.layers[0];
      const keys = g.edgeTypes.map(edgeTypeKey);
      const inDim = 6,
        units = 4;
      const xv: Record<string, Float32Array> = {};
      for (const t of Object.keys(layer.src)) xv[t] = Float32Array.from({length: layer.src[t].length * inDim}, () => rng() * 2 - 1);
      const wv: Record<string, Float32Array> = {};
      for (const t of Object.keys(layer.dst)) wv[t] = Float32Array.from({length: layer.dst[t].length * units}, () => rng() * 2 - 1);
      for (const extra of [{}, {numBases: 2}, {numBlocks: 2}, {aggr: 'sum' as const}]) {
        const conv = rgcnConv({inDim, units, relations: keys, seed: 3, ...extra});
        const loss = (out: Record<string, tf.Tensor2D>) =>
          tf.addN(Object.entries(out).map(([t, o]) => tf.sum(tf.mul(o, tf.tensor2d(wv[t], o.shape))))) as tf.Scalar;
        // Ours, on this backend: the loss's gradients by every input and every weight.
        const xs = Object.fromEntries(Object.entries(xv).map(([t, v]) => [t, tf.tensor2d(v, [v.length / inDim, inDim])]));
        const oursT = tf.tidy(() => {
          const types = Object.keys(xs);
          const f = (...inputs: tf.Tensor[]) =>
            loss(conv.apply(Object.fromEntries(types.map((t, i) => [t, inputs[i] as tf.Tensor2D])), layer));
          const {value, grads} = tf.valueAndGrads(f)(types.map((t) => xs[t]));
          const wg = tf.variableGrads(() => f(...types.map((t) => xs[t])), conv.variables).grads;
          return [value, ...grads, ...conv.variables.map((v) => wg[v.name])];
        });
        const ours = oursT.map((t) => Float64Array.from(t.dataSync()));
        tf.dispose(oursT);
        // The reference: the same weights as dense tensors, each relation's block as a dense matrix, on tfjs-backend-cpu.
        const weights = conv.variables.map((v) => ({shape: v.shape, values: v.dataSync().slice() as Float32Array}));
        tf.setBackend('cpu');
        const refT = tf.tidy(() => {
          const types = Object.keys(xs);
          const inputs = types.map((t) => tf.tensor2d(xv[t], [xv[t].length / inDim, inDim]));
          const ws = weights.map((w) => tf.tensor(w.values, w.shape));
          const f = (...all: tf.Tensor[]) => {
            const x = Object.fromEntries(types.map((t, i) => [t, all[i] as tf.Tensor2D]));
            const [w, ...rest] = all.slice(types.length);
            let k = 0;
            const comp = 'numBases' in extra ? rest[k++] : undefined;
            const root = rest[k++],
              bias = rest[k++];
            const wr = (r: number): tf.Tensor2D => {
              if ('numBlocks' in extra) {
                const blocks = tf.unstack(tf.squeeze(tf.slice(w, [r, 0, 0, 0], [1, -1, -1, -1]), [0]));
                const rows = inDim / 2,
                  cols = units / 2;
                return tf.concat(
                  [tf.concat([blocks[0], tf.zeros([rows, cols])], 1), tf.concat([tf.zeros([rows, cols]), blocks[1]], 1)],
                  0,
                ) as tf.Tensor2D;
              }
              if (comp)
                return tf.reshape(tf.matMul(tf.slice(comp, [r, 0], [1, -1]), tf.reshape(w, [2, -1])), [inDim, units]) as tf.Tensor2D;
              return tf.squeeze(tf.slice(w, [r, 0, 0], [1, -1, -1]), [0]) as tf.Tensor2D;
            };
            const out: Record<string, tf.Tensor2D> = {};
            for (const [t, rows] of Object.entries(layer.dst)) {
              if (rows.length === 0) continue;
              let h = tf.matMul(tf.slice(x[t], [0, 0], [rows.length, inDim]), root as tf.Tensor2D);
              for (const [key, block] of Object.entries(layer.blocks)) {
                const [src, , dst] = key.split('___');
                if (dst !== t) continue;
                const {rowPtr, colIdx} = block.arrays;
                const dense = new Float32Array(rows.length * layer.src[src].length);
                for (let i = 0; i < rows.length; ++i) {
                  const deg = rowPtr[i + 1] - rowPtr[i];
                  for (let e = rowPtr[i]; e < rowPtr[i + 1]; ++e)
                    dense[i * layer.src[src].length + colIdx[e]] += 'aggr' in extra ? 1 : 1 / deg;
                }
                h = tf.add(
                  h,
                  tf.matMul(tf.matMul(tf.tensor2d(dense, [rows.length, layer.src[src].length]), x[src]), wr(keys.indexOf(key))),
                );
              }
              out[t] = tf.add(h, bias) as tf.Tensor2D;
            }
            return loss(out);
          };
          const {value, grads} = tf.valueAndGrads(f)([...inputs, ...ws]);
          return [value, ...grads];
        });
        const ref = refT.map((t) => Float64Array.from(t.dataSync()));
        tf.dispose(refT);
        tf.setBackend(wm.BACKEND_NAME);
        expect(ours.length).to.equal(ref.length);
        expectAllNear(ours, ref, JSON.stringify(extra));
        tf.dispose(Object.values(xs));
        conv.dispose();
      }
      sub.dispose();
      expect(tf.memory().numTensors).to.equal(before);
      expect(() => rgcnConv({inDim: 6, units: 4, relations: keys, numBlocks: 4})).to.throw(
        /numBlocks must be a positive integer dividing inDim \(6\)/,
      );
    } finally {
      g.free();
    }
  });

  it('on a graph whose labels depend on the relation, R-GCN beats the flattened graph and the features alone by the planted margins; nothing left behind', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const g = heteroCsbm({seed: 2});
    const before = tf.memory().numTensors;
    try {
      const flat = flattened(g);
      expect(flat.numNodes).to.deep.equal({node: 2500});
      expect(flat.relation('node___edge___node').numEdges).to.equal([...g.relations.values()].reduce((a, r) => a + r.numEdges, 0));
      flat.free();
      const acc: Record<string, number> = {};
      for (const model of ['features', 'flattened', 'rgcn', 'sage', 'hgt'] as const)
        acc[model] = (await trainTypedNodeClassification(g, {model, epochs: 10, seed: 1})).testAcc;
      expect(acc.rgcn, JSON.stringify(acc)).to.be.above(acc.flattened + 0.05);
      expect(acc.sage, JSON.stringify(acc)).to.be.above(acc.flattened + 0.05);
      expect(acc.hgt, JSON.stringify(acc)).to.be.above(acc.flattened + 0.05);
      // Learnable rows for the authors (they have no features): trained by their sparse step, nothing left behind.
      const learnt = await trainTypedNodeClassification(g, {model: 'rgcn', epochs: 3, seed: 1, featurelessInputs: 'embeddings'});
      expect(learnt.testAcc, JSON.stringify(learnt)).to.be.above(acc.features + 0.1);
      await expectReject(
        trainTypedNodeClassification(g, {featurelessInputs: 'random' as 'zeros'}),
        /featurelessInputs must be 'zeros' or 'embeddings', got random/,
      );
      // Each epoch's figures, to a callback and in the result: validation every evalEvery epochs and at the last.
      const seen: number[] = [];
      const judged = await trainTypedNodeClassification(g, {
        model: 'rgcn',
        epochs: 5,
        evalEvery: 2,
        seed: 1,
        onEpoch: (m) => seen.push(m.epoch),
      });
      expect(seen).to.deep.equal([1, 2, 3, 4, 5]);
      expect(judged.history.map((m) => m.valAcc !== undefined)).to.deep.equal([false, true, false, true, true]);
      expect(judged.history[4].valAcc).to.equal(judged.valAcc);
      for (const m of judged.history) {
        expect(m.loss, JSON.stringify(m)).to.be.above(0);
        expect(m.seedsPerSecond, JSON.stringify(m)).to.be.above(0).and.below(Infinity);
      }
      expect(judged.history[4].loss, 'the loss falls').to.be.below(judged.history[0].loss);
      await expectReject(trainTypedNodeClassification(g, {evalEvery: -1}), /evalEvery must be a non-negative integer, got -1/);
      expect(acc.flattened, JSON.stringify(acc)).to.be.above(acc.features + 0.1);
      expect(tf.memory().numTensors).to.equal(before);
    } finally {
      g.free();
    }
  });

  it('a trained typed classifier (kept, saved, loaded) predicts what it did; a graph of another schema and a changed file are refused', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const g = heteroCsbm({seed: 3, papers: 600, authors: 150});
    const before = tf.memory().numTensors;
    const dir = tempDir('wm-typed-save-');
    try {
      // rgcn with learnt author rows, sage (weights made on a first batch), hgt, and the features alone.
      for (const [model, extra] of [
        ['rgcn', {featurelessInputs: 'embeddings'}],
        ['sage', {}],
        ['hgt', {}],
        ['features', {}],
      ] as const) {
        const r = await trainTypedNodeClassification(g, {model, epochs: 3, seed: 2, keep: true, ...extra});
        const trained = r.classifier!;
        const want = trained.predictAll();
        // The kept model's predictions are the run's: its validation accuracy is theirs.
        const split = g.labels!.split!;
        const acc = split.val.reduce((a, v) => a + (want.classes[v] === g.labels!.labels[v] ? 1 : 0), 0) / split.val.length;
        expect(acc, model).to.equal(r.valAcc);
        const at = path.join(dir, model);
        const info = await wm.nn.saveTypedClassifier(trained, at);
        expect(Object.keys(info.tables)).to.deep.equal(model === 'rgcn' ? ['author'] : []);
        trained.dispose();
        const loaded = wm.nn.loadTypedClassifier(at, g);
        const got = loaded.predictAll();
        expect(Array.from(got.classes), model).to.deep.equal(Array.from(want.classes));
        for (let i = 0; i < want.probabilities.length; ++i)
          expect(Math.abs(got.probabilities[i] - want.probabilities[i]), `${model} [${i}]`).to.be.below(1e-5);
        loaded.dispose();
      }
      const other = heteroCsbm({seed: 3, papers: 500, authors: 150});
      try {
        expect(() => wm.nn.loadTypedClassifier(path.join(dir, 'rgcn'), other)).to.throw(
          /the graph has 500 vertices of type 'paper', the model's 600/,
        );
      } finally {
        other.free();
      }
      const dense = path.join(dir, 'sage', 'dense.bin');
      const bytes = fs.readFileSync(dense);
      bytes[0] ^= 1;
      fs.writeFileSync(dense, bytes);
      expect(() => wm.nn.loadTypedClassifier(path.join(dir, 'sage'), g)).to.throw(
        /dense\.bin: its SHA-256 differs from typed-classifier\.json's/,
      );
      expect(() => wm.nn.loadTypedClassifier(path.join(dir, 'nothing'), g)).to.throw(/typed-classifier\.json: missing/);
      // A manifest's config is checked before anything is built from it.
      const manifest = path.join(dir, 'hgt', 'typed-classifier.json');
      const info = JSON.parse(fs.readFileSync(manifest, 'utf8'));
      for (const [field, value, rule] of [
        ['hidden', -4, /config\.hidden must be an integer in \[1, 65536\], got -4/],
        ['heads', 7, /config\.heads must be an integer in \[1, 1024\] that divides hidden/],
        ['model', 'flattened', /config\.model must be one of rgcn, rgat, sage, hgt, features, got flattened/],
      ] as const) {
        fs.writeFileSync(manifest, JSON.stringify({...info, config: {...info.config, [field]: value}}));
        expect(() => wm.nn.loadTypedClassifier(path.join(dir, 'hgt'), g), field).to.throw(rule);
      }
      await expectReject(trainTypedNodeClassification(g, {model: 'flattened', keep: true}), /keep is for the typed models/);
      expect(tf.memory().numTensors).to.equal(before);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
      g.free();
    }
  });

  it('the main job on an OGB heterogeneous folder trains R-GCN, the flattened graph and the features alone, chooses on validation, and saves the choice for npm run predict', async function () {
    this.timeout(120000);
    const dir = tempDir('wm-typed-main-');
    try {
      writeOgbHetero(dir, seededRng(3));
      const example = path.resolve(__dirname, '..', 'examples', 'node-classification.js');
      // --inputs embeddings: the types without features (authors, institutions) learn a row each.
      const r = spawnSync(
        process.execPath,
        [
          example,
          ...['--data', dir, '--seeds', '1', '--epochs', '2', '--inputs', 'embeddings'],
          ...['--out', path.join(dir, 'run'), '--save', path.join(dir, 'model')],
        ],
        {
          encoding: 'utf8',
          env: {...process.env, TFJS_WHOLEMEMORY_DEVICE: 'cpu'},
        },
      );
      expect(r.status, r.stderr).to.equal(0);
      expect(r.stdout).to.match(/relations author affiliated_with institution \(5\), institution rev_affiliated_with author \(5\)/);
      for (const m of ['rgcn', 'rgat', 'sage', 'flattened', 'features'])
        expect(r.stdout).to.match(new RegExp(`^${m}\\s+seed 0: test`, 'm'));
      expect(r.stdout).to.match(/chosen on validation: (rgcn|rgat|sage|flattened|features)/);
      // Every epoch of every run in the metrics file (validation each epoch: --eval-every's default on a small
      // graph), and the chosen model's curves drawn.
      const lines = readMetrics(path.join(dir, 'run', 'metrics.jsonl'), 'test');
      const epochs = lines.filter((l) => l.type === 'epoch');
      expect(epochs.length).to.equal(6 * 2);
      expect(epochs.every((e) => typeof e.loss === 'number' && typeof e.valAcc === 'number')).to.equal(true);
      const chosen = /chosen on validation: (\w+)/.exec(r.stdout)![1];
      expect(lines.filter((l) => l.type === 'plot').pop()?.model).to.equal(chosen);
      for (const f of ['metrics.svg', 'metrics.png']) expect(fs.existsSync(path.join(dir, 'run', f)), f).to.equal(true);
      // --save kept the chosen model (unless a baseline was chosen); npm run predict reads it over the folder it names.
      if (chosen !== 'flattened') {
        expect(r.stdout).to.match(new RegExp(`model \\(${chosen}, seed 0\\): .*npm run predict`));
        const predict = path.resolve(__dirname, '..', 'examples', 'predict.js');
        const out = path.join(dir, 'predictions.tsv');
        const p = spawnSync(process.execPath, [predict, '--model', path.join(dir, 'model'), '--out', out], {
          encoding: 'utf8',
          env: {...process.env, TFJS_WHOLEMEMORY_DEVICE: 'cpu'},
        });
        expect(p.status, p.stderr).to.equal(0);
        const rows = fs.readFileSync(out, 'utf8').trim().split('\n');
        const read = await readOgbHetero(dir);
        const papers = read.numNodes.paper;
        read.free();
        expect(rows.length).to.equal(papers);
        for (const line of rows) expect(line).to.match(/^\d+\t\d+\t[01]\.\d{6}$/);
      }
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it("TypedNeighborLoader's share: every rank walks the same order and takes its part of each batch (the parts together are the batch, a part may be empty); bad shares named", async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const g = papersAndAuthors(seededRng(41));
    const before = tf.memory().numTensors;
    try {
      const seeds = Int32Array.from({length: 10}, (_, i) => 2 * i + 1);
      const batchesOf = async (share?: {rank: number; size: number}) => {
        const loader = new TypedNeighborLoader(g, {seedType: 'paper', seeds, fanouts: [3, 2], batchSize: 4, shuffle: true, seed: 7, share});
        const out: number[][] = [];
        for await (const b of loader) {
          out.push(Array.from(b.seeds));
          b.dispose();
        }
        expect(out.length, 'a batch a step on every rank').to.equal(loader.length);
        loader.dispose();
        return out;
      };
      const whole = await batchesOf();
      const parts = await Promise.all([0, 1, 2].map((rank) => batchesOf({rank, size: 3})));
      whole.forEach((batch, k) =>
        expect(
          parts.flatMap((p) => p[k]),
          `batch ${k}`,
        ).to.deep.equal(batch),
      );
      expect(parts[2][2], 'the last batch of 2 seeds leaves the third rank none').to.deep.equal([]);
      expect(() => new TypedNeighborLoader(g, {seedType: 'paper', seeds, fanouts: [3], batchSize: 4, share: {rank: 3, size: 3}})).to.throw(
        /TypedNeighborLoader: share must be \{rank, size\} with 0 <= rank < size, got \{"rank":3,"size":3\}/,
      );
      expect(tf.memory().numTensors).to.equal(before);
    } finally {
      g.free();
    }
  });

  it('rgatConv (heads concatenated or averaged) on the native attention against the same layer on tfjs-backend-cpu (tfjs ops) and against R-GAT written relation by relation: outputs, input and weight gradients', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const rng = seededRng(23);
    const g = papersAndAuthors(rng);
    const before = tf.memory().numTensors;
    try {
      const sub = sampleTypedSubgraph(g, 'paper', Int32Array.of(2, 8, 13, 21, 29), [4, 3], {seed: 5});
      const layer = sub.layers[0];
      const inDim = 5;
      const xv: Record<string, Float32Array> = {};
      for (const t of Object.keys(layer.src)) xv[t] = Float32Array.from({length: layer.src[t].length * inDim}, () => rng() * 2 - 1);
      // One head of outputs wider than the inputs: relations whose sources outnumber their rows aggregate first and
      // project after (planOf says which).
      for (const [concat, rootWeight, heads] of [
        [true, true, 2],
        [false, true, 2],
        [true, false, 2],
        [true, true, 1],
        [false, false, 1],
      ] as [boolean, boolean, number][]) {
        const units = heads === 1 ? 7 : 3;
        const conv = rgatConv({inDim, units, heads, relations: g.edgeTypes.map(edgeTypeKey), concat, rootWeight, seed: 4});
        const used = layerRelations('rgatConv', layer, new Map(g.edgeTypes.map((e, i) => [edgeTypeKey(e), i])));
        const shape = {inDim, units, heads, concat, negativeSlope: 0.2, relations: g.edgeTypes.length};
        expect(planOf(shape, rootWeight, layer, used).aggregateFirst.size > 0, 'some relation aggregates first').to.equal(heads === 1);
        const inputs = () => Object.fromEntries(Object.entries(xv).map(([t, v]) => [t, tf.tensor2d(v, [v.length / inDim, inDim])]));
        const [ours, ref] = gradsOnBothBackends(conv, layer, inputs);
        expectAllNear(ours, ref, `concat ${concat}, root ${rootWeight}, heads ${heads}`);
        // The layer as R-GAT is written, relation by relation (z = x W_r, logits z . a), from the same variables on
        // tfjs-backend-cpu: what the layer's folded, once-a-call matrices must equal.
        const [w, attSrc, attDst] = conv.variables;
        const [root, bias] = rootWeight ? conv.variables.slice(3) : [undefined, conv.variables[3]];
        const relations = g.edgeTypes.map(edgeTypeKey);
        const plain = {
          variables: conv.variables,
          apply: (x: Record<string, tf.Tensor2D>, l: TypedLayer) => {
            const out: Record<string, tf.Tensor2D> = {};
            for (const [t, rows] of Object.entries(l.dst)) {
              if (rows.length === 0) continue;
              const xd = tf.slice(x[t], [0, 0], [rows.length, inDim]) as tf.Tensor2D;
              let h = root ? tf.matMul(xd, root) : tf.zeros([rows.length, concat ? heads * units : units]);
              for (const [key, block] of Object.entries(l.blocks)) {
                const [src, , dst] = key.split('___');
                if (dst !== t || block.arrays.colIdx.length === 0) continue;
                const r = relations.indexOf(key);
                const wr = tf.reshape(tf.slice(w, [r, 0, 0], [1, -1, -1]), [inDim, heads * units]) as tf.Tensor2D;
                const z = tf.reshape(tf.matMul(x[src], wr), [-1, heads, units]) as tf.Tensor3D;
                const zd = tf.reshape(tf.matMul(xd, wr), [-1, heads, units]);
                const logit = (zz: tf.Tensor, att: tf.Tensor) =>
                  tf.sum(tf.mul(zz, tf.slice(att, [r, 0, 0], [1, -1, -1])), 2) as tf.Tensor2D;
                const agg = wm.nn.gatAggregate(block, z, logit(z, attSrc), logit(zd, attDst), {negativeSlope: 0.2});
                h = tf.add(h, concat ? tf.reshape(agg, [rows.length, heads * units]) : tf.mean(agg, 1));
              }
              out[t] = tf.add(h, bias) as tf.Tensor2D;
            }
            return out;
          },
        };
        const [, written] = gradsOnBothBackends(plain, layer, inputs);
        expectAllNear(ours, written, `concat ${concat}, root ${rootWeight}, heads ${heads}, against the layer relation by relation`);
        conv.dispose();
      }
      sub.dispose();
      expect(tf.memory().numTensors).to.equal(before);
    } finally {
      g.free();
    }
  });

  it('heteroConv (a sageConv or gatConv per relation; sum, mean, max, cat) against a float64 reference: relations within a type and between types of different widths', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const rng = seededRng(29);
    const g = papersAndAuthors(rng);
    const before = tf.memory().numTensors;
    try {
      const sub = sampleTypedSubgraph(g, 'paper', Int32Array.of(0, 4, 7, 11, 19, 25, 27), [3, 5], {seed: 3});
      const layer = sub.layers[0];
      const keys = g.edgeTypes.map(edgeTypeKey);
      const rowsOf = (t: string) => layer.src[t].length;
      const xv = (dims: Record<string, number>): Record<string, Float64Array> =>
        Object.fromEntries(Object.keys(layer.src).map((t) => [t, Float64Array.from({length: rowsOf(t) * dims[t]}, () => rng() * 2 - 1)]));
      const tensors = (v: Record<string, Float64Array>, dims: Record<string, number>) =>
        Object.fromEntries(Object.entries(v).map(([t, a]) => [t, tf.tensor2d(Float32Array.from(a), [rowsOf(t), dims[t]])]));
      const matVec = (x: Float64Array, row: number, width: number, w: Float64Array, cols: number, out: Float64Array) => {
        for (let k = 0; k < width; ++k) for (let c = 0; c < cols; ++c) out[c] += x[row * width + k] * w[k * cols + c];
      };
      // One relation's output rows, in float64: SAGE (mean of neighbours W + own W_root + b) or GAT (PyG's, no self loops).
      const reference = (
        kind: 'sage' | 'gat',
        key: string,
        x: Record<string, Float64Array>,
        dims: Record<string, number>,
        w: Float64Array[],
      ) => {
        const [s, , d] = key.split('___');
        const {rowPtr, colIdx} = layer.blocks[key].arrays;
        const n = layer.dst[d].length;
        if (kind === 'sage') {
          const units = w[2].length;
          const out = new Float64Array(n * units);
          for (let i = 0; i < n; ++i) {
            const o = new Float64Array(units);
            const deg = rowPtr[i + 1] - rowPtr[i];
            for (let e = rowPtr[i]; e < rowPtr[i + 1]; ++e) {
              const part = new Float64Array(units);
              matVec(x[s], colIdx[e], dims[s], w[0], units, part);
              for (let c = 0; c < units; ++c) o[c] += part[c] / deg;
            }
            matVec(x[d], i, dims[d], w[1], units, o);
            for (let c = 0; c < units; ++c) out[i * units + c] = o[c] + w[2][c];
          }
          return out;
        }
        const [heads, units] = [2, 3];
        const z = (t: string, row: number) => {
          const o = new Float64Array(heads * units);
          matVec(x[t], row, dims[t], w[0], heads * units, o);
          return o;
        };
        const out = new Float64Array(n * heads * units);
        for (let i = 0; i < n; ++i) {
          const zi = z(d, i);
          for (let h = 0; h < heads; ++h) {
            const logits: number[] = [],
              zs: Float64Array[] = [];
            for (let e = rowPtr[i]; e < rowPtr[i + 1]; ++e) {
              const zj = z(s, colIdx[e]);
              let a = 0;
              for (let c = 0; c < units; ++c) a += zj[h * units + c] * w[1][h * units + c] + zi[h * units + c] * w[2][h * units + c];
              logits.push(a > 0 ? a : 0.2 * a);
              zs.push(zj);
            }
            const m = Math.max(...logits);
            const ex = logits.map((l) => Math.exp(l - m));
            const sum = ex.reduce((a, b) => a + b, 0);
            for (let c = 0; c < units; ++c) {
              let acc = 0;
              ex.forEach((e, k) => (acc += (e / sum) * zs[k][h * units + c]));
              out[(i * heads + h) * units + c] = acc + w[3][h * units + c];
            }
          }
        }
        return out;
      };
      const combine = (aggr: string, parts: Float64Array[], width: number) => {
        if (parts.length === 1) return parts[0];
        const n = parts[0].length / width;
        if (aggr === 'cat') {
          const out = new Float64Array(n * width * parts.length);
          for (let i = 0; i < n; ++i)
            parts.forEach((p, k) => out.set(p.subarray(i * width, (i + 1) * width), (i * parts.length + k) * width));
          return out;
        }
        return parts[0].map((_, j) => {
          const v = parts.map((p) => p[j]);
          return aggr === 'sum'
            ? v.reduce((a, b) => a + b, 0)
            : aggr === 'mean'
              ? v.reduce((a, b) => a + b, 0) / v.length
              : aggr === 'max'
                ? Math.max(...v)
                : Math.min(...v);
        });
      };
      for (const [kind, aggr] of [
        ['sage', 'sum'],
        ['sage', 'mean'],
        ['sage', 'max'],
        ['sage', 'cat'],
        ['gat', 'sum'],
      ] as const) {
        const dims: Record<string, number> = kind === 'sage' ? {paper: 6, author: 4} : {paper: 5, author: 5};
        const convs = Object.fromEntries(
          keys.map((k, i) => [
            k,
            kind === 'sage'
              ? wm.nn.sageConv({units: 3, seed: 10 + i})
              : wm.nn.gatConv({units: 3, heads: 2, addSelfLoops: false, seed: 10 + i}),
          ]),
        );
        const conv = wm.nn.heteroConv(convs, aggr);
        const x = xv(dims);
        const xs = tensors(x, dims);
        const out = conv.apply(xs, layer);
        // Reference: each relation into its destination type, combined in the order the layers were given.
        const parts = new Map<string, Float64Array[]>();
        for (const k of keys) {
          const w = convs[k].getWeights().map((t) => Float64Array.from(t.dataSync()));
          const d = k.split('___')[2];
          parts.set(d, [...(parts.get(d) ?? []), reference(kind, k, x, dims, w)]);
        }
        const width = kind === 'sage' ? 3 : 6;
        expect(Object.keys(out).sort()).to.deep.equal([...parts.keys()].sort());
        for (const [t, p] of parts) {
          const want = combine(aggr, p, width);
          expect(out[t].shape, `${kind} ${aggr} ${t}`).to.deep.equal([layer.dst[t].length, aggr === 'cat' ? width * p.length : width]);
          expectAllNear([Float64Array.from(out[t].dataSync())], [want], `${kind} ${aggr} ${t}`);
        }
        expect(conv.variables.length).to.equal(kind === 'sage' ? 9 : 12);
        tf.dispose([...Object.values(out), ...Object.values(xs)]);
        conv.dispose();
      }
      // Bad input: a key that is not an edge type key, one of no edge type of the layer, gcnConv and a GAT with self loops between two types.
      expect(() => wm.nn.heteroConv({paper_cites_paper: wm.nn.sageConv({units: 2})})).to.throw(
        /'paper_cites_paper' is not an edge type key/,
      );
      expect(() => wm.nn.heteroConv({[keys[0]]: wm.nn.sageConv({units: 2})}, 'prod' as 'sum')).to.throw(/aggr must be one of sum, mean/);
      const xs = tensors(xv({paper: 4, author: 4}), {paper: 4, author: 4});
      for (const [convs, error] of [
        [{author___likes___paper: wm.nn.sageConv({units: 2})}, /edge type author___likes___paper is not one of the layer's/],
        [
          {author___writes___paper: wm.nn.gcnConv({units: 2})},
          /gcnConv: edges between two vertex types .* use sageConv, ginConv or gatConv/,
        ],
        [{author___writes___paper: wm.nn.gatConv({units: 2})}, /gatConv: edges between two vertex types .* addSelfLoops: false/],
      ] as const) {
        const bad = wm.nn.heteroConv(convs);
        expect(() => bad.apply(xs, layer)).to.throw(error);
        bad.dispose();
      }
      tf.dispose(Object.values(xs));
      sub.dispose();
      expect(tf.memory().numTensors).to.equal(before);
    } finally {
      g.free();
    }
  });

  it('hgtConv (PyG HGTConv: one softmax over every relation into a type, the gate where widths agree) against a float64 reference; gradients against tfjs-backend-cpu', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const rng = seededRng(31);
    const g = papersAndAuthors(rng);
    const before = tf.memory().numTensors;
    try {
      const sub = sampleTypedSubgraph(g, 'paper', Int32Array.of(3, 6, 10, 17, 22, 26), [4, 3], {seed: 7});
      const layer = sub.layers[0];
      const relations = g.edgeTypes.map(edgeTypeKey);
      for (const [units, heads, inDim] of [
        [4, 2, {paper: 6, author: 5}],
        [6, 3, {paper: 6, author: 6}],
      ] as const) {
        const conv = wm.nn.hgtConv({inDim: {...inDim}, units, heads, nodeTypes: ['paper', 'author'], relations, seed: 3});
        const types = Object.keys(layer.src);
        const xv = Object.fromEntries(
          types.map((t) => [t, Float64Array.from({length: layer.src[t].length * inDim[t as 'paper']}, () => rng() * 2 - 1)]),
        );
        const xs = () =>
          Object.fromEntries(types.map((t) => [t, tf.tensor2d(Float32Array.from(xv[t]), [layer.src[t].length, inDim[t as 'paper']])]));
        // Float64 reference from the layer's weights (in its variables' order: per type kqv, bias, out, bias, skip; per relation k, v, p).
        const w = conv.variables.map((v) => Float64Array.from(v.dataSync()));
        const per = (t: string) => w.slice(['paper', 'author'].indexOf(t) * 5, ['paper', 'author'].indexOf(t) * 5 + 5);
        const rel = (key: string) => w.slice(10 + relations.indexOf(key) * 3, 13 + relations.indexOf(key) * 3);
        const dh = units / heads;
        const kqvRow = (t: string, i: number) => {
          const [W, b] = per(t),
            width = inDim[t as 'paper'];
          return Float64Array.from({length: 3 * units}, (_, c) => {
            let a = b[c];
            for (let k = 0; k < width; ++k) a += xv[t][i * width + k] * W[k * 3 * units + c];
            return a;
          });
        };
        const want: Record<string, Float64Array> = {};
        for (const d of types) {
          const n = layer.dst[d].length;
          const into = relations.filter((k) => k.split('___')[2] === d);
          if (n === 0 || into.length === 0) continue;
          const out = new Float64Array(n * units);
          for (let i = 0; i < n; ++i) {
            const q = kqvRow(d, i).subarray(units, 2 * units);
            const agg = new Float64Array(units);
            for (let h = 0; h < heads; ++h) {
              const logit: number[] = [],
                val: Float64Array[] = [];
              for (const key of into) {
                const s = key.split('___')[0];
                const [K, V, P] = rel(key);
                const {rowPtr, colIdx} = layer.blocks[key].arrays;
                for (let e = rowPtr[i]; e < rowPtr[i + 1]; ++e) {
                  const row = kqvRow(s, colIdx[e]);
                  const kp = new Float64Array(dh),
                    vp = new Float64Array(dh);
                  for (let a = 0; a < dh; ++a)
                    for (let c = 0; c < dh; ++c) {
                      kp[c] += row[h * dh + a] * K[(h * dh + a) * dh + c];
                      vp[c] += row[2 * units + h * dh + a] * V[(h * dh + a) * dh + c];
                    }
                  let dot = 0;
                  for (let c = 0; c < dh; ++c) dot += q[h * dh + c] * kp[c];
                  logit.push((dot * P[h]) / Math.sqrt(dh));
                  val.push(vp);
                }
              }
              if (logit.length === 0) continue;
              const m = Math.max(...logit);
              const ex = logit.map((l) => Math.exp(l - m));
              const sum = ex.reduce((a, b) => a + b, 0);
              ex.forEach((e, k) => {
                for (let c = 0; c < dh; ++c) agg[h * dh + c] += (e / sum) * val[k][c];
              });
            }
            const [, , O, ob, skip] = per(d);
            const gelu = Array.from(agg, (a) => 0.5 * a * (1 + erf(a / Math.SQRT2)));
            const gate = 1 / (1 + Math.exp(-skip[0]));
            for (let c = 0; c < units; ++c) {
              let o = ob[c];
              for (let k = 0; k < units; ++k) o += gelu[k] * O[k * units + c];
              out[i * units + c] = inDim[d as 'paper'] === units ? gate * o + (1 - gate) * xv[d][i * units + c] : o;
            }
          }
          want[d] = out;
        }
        const inputs = xs();
        const got = conv.apply(inputs, layer);
        expect(Object.keys(got).sort()).to.deep.equal(Object.keys(want).sort());
        for (const t of Object.keys(want)) expectAllNear([Float64Array.from(got[t].dataSync())], [want[t]], `hgtConv units ${units} ${t}`);
        tf.dispose([...Object.values(got), ...Object.values(inputs)]);
        // Gradients of the inputs and every weight (the gate's only where a type's input is as wide as the
        // output): the same on tfjs-backend-cpu.
        const [ours, ref] = gradsOnBothBackends(conv, layer, xs);
        expect(ours.length).to.equal(1 + types.length + conv.variables.length - (units === 4 ? 2 : 0));
        expectAllNear(ours, ref, `hgtConv gradients units ${units}`);
        conv.dispose();
      }
      expect(() => wm.nn.hgtConv({inDim: 4, units: 5, heads: 2, nodeTypes: ['paper'], relations: ['paper___cites___paper']})).to.throw(
        /units must be a positive multiple of heads \(2\), got 5/,
      );
      expect(() => wm.nn.hgtConv({inDim: 4, units: 4, nodeTypes: ['paper'], relations: ['author___writes___paper']})).to.throw(
        /relation author___writes___paper names 'author', not one of nodeTypes/,
      );
      const partial = wm.nn.hgtConv({inDim: 4, units: 4, nodeTypes: ['paper', 'author'], relations: [relations[0]]});
      expect(() => partial.apply({}, layer)).to.throw(/the layer has edge type .*, the conv has no weights for it/);
      partial.dispose();
      sub.dispose();
      expect(tf.memory().numTensors).to.equal(before);
    } finally {
      g.free();
    }
  });

  it('typedLayerwise: every vertex a layer at a time equals one pass of the whole 2-hop neighbourhoods (R-GCN and HGT, two layers); bad options named', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const rng = seededRng(37);
    const g = papersAndAuthors(rng);
    const before = tf.memory().numTensors;
    try {
      const keys = g.edgeTypes.map(edgeTypeKey);
      const tables = Object.fromEntries(
        g.nodeTypes.map((t) => [
          t,
          tf.tensor2d(
            Float32Array.from({length: g.numNodes[t] * 5}, () => rng() * 2 - 1),
            [g.numNodes[t], 5],
          ),
        ]),
      );
      const inputs = (t: string, ids: Int32Array) => tf.gather(tables[t], tf.tensor1d(ids, 'int32')) as tf.Tensor2D;
      const stacks: [string, {apply: TypedLayerFn; dispose(): void}[]][] = [
        [
          'rgcn',
          [rgcnConv({inDim: 5, units: 4, relations: keys, numBases: 2, seed: 1}), rgcnConv({inDim: 4, units: 3, relations: keys, seed: 2})],
        ],
        [
          'hgt',
          [
            wm.nn.hgtConv({inDim: 5, units: 4, heads: 2, nodeTypes: g.nodeTypes, relations: keys, seed: 1}),
            wm.nn.hgtConv({inDim: 4, units: 3, nodeTypes: g.nodeTypes, relations: keys, seed: 2}),
          ],
        ],
      ];
      for (const [kind, convs] of stacks) {
        const layers = convs.map((c, i) => (x: Record<string, tf.Tensor2D>, layer: TypedLayer) => {
          const out = c.apply(x, layer);
          return i === 0 && kind === 'rgcn' ? Object.fromEntries(Object.entries(out).map(([t, v]) => [t, tf.relu(v) as tf.Tensor2D])) : out;
        });
        for (const batchSize of [7, 1024]) {
          const all = wm.nn.typedLayerwise(g, inputs, layers, {batchSize});
          expect(all.paper.shape).to.deep.equal([30, 3]);
          const papers = Int32Array.from({length: 30}, (_, i) => i);
          const sub = sampleTypedSubgraph(g, 'paper', papers, [1000, 1000]);
          const want = tf.tidy(() => {
            let h: Record<string, tf.Tensor2D> = Object.fromEntries(
              Object.entries(sub.layers[0].src).map(([t, ids]) => [t, inputs(t, ids)]),
            );
            sub.layers.forEach((layer, i) => (h = layers[i](h, layer)));
            return h.paper;
          });
          expectAllNear([Float64Array.from(all.paper.dataSync())], [Float64Array.from(want.dataSync())], `${kind} batchSize ${batchSize}`);
          tf.dispose([want, ...Object.values(all)]);
          sub.dispose();
        }
        expect(() => wm.nn.typedLayerwise(g, inputs, layers, {batchSize: 0})).to.throw(/batchSize must be a positive integer, got 0/);
        const papersOnly = wm.nn.typedLayerwise(g, inputs, layers, {lastTypes: ['paper']});
        expect(Object.keys(papersOnly)).to.deep.equal(['paper']);
        tf.dispose(Object.values(papersOnly));
        expect(() => wm.nn.typedLayerwise(g, inputs, layers, {lastTypes: ['venue']})).to.throw(
          /lastTypes names 'venue', not a vertex type/,
        );
        convs.forEach((c) => c.dispose());
      }
      expect(() => wm.nn.typedLayerwise(g, inputs, [])).to.throw(/no layers/);
      tf.dispose(Object.values(tables));
      expect(tf.memory().numTensors).to.equal(before);
    } finally {
      g.free();
    }
  });

  it("the typed neighbour loader: every training seed once per pass in shuffled batches, their labels, every type's input rows (features or zeros); a new order each pass", async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const g = heteroCsbm({papers: 200, authors: 40, seed: 4});
    const before = tf.memory().numTensors;
    try {
      const loader = new TypedNeighborLoader(g, {fanouts: [3, 2], batchSize: 32, shuffle: true, seed: 1});
      expect(loader.seedType).to.equal('paper');
      const passes: number[][] = [];
      for (let pass = 0; pass < 2; ++pass) {
        const seen: number[] = [];
        for await (const b of loader) {
          seen.push(...b.seeds);
          expect(Array.from(b.y!.dataSync())).to.deep.equal(Array.from(b.seeds, (v) => g.labels!.labels[v]));
          const src = b.sub.layers[0].src;
          expect(b.x.paper.shape).to.deep.equal([src.paper.length, 16]);
          const row = Array.from(b.x.paper.dataSync().slice(0, 16));
          expect(row).to.deep.equal(Array.from(featureValues(g.features.paper).subarray(src.paper[0] * 16, src.paper[0] * 16 + 16)));
          if (src.author.length) expect(Array.from(new Set(b.x.author.dataSync()))).to.deep.equal([0]);
          b.dispose();
        }
        expect([...seen].sort((x, y) => x - y)).to.deep.equal(Array.from(g.labels!.split!.train).sort((x, y) => x - y));
        passes.push(seen);
      }
      expect(passes[0]).to.not.deep.equal(passes[1]);
      expect(loader.length).to.equal(Math.ceil(g.labels!.split!.train.length / 32));
      loader.dispose();
      expect(() => new TypedNeighborLoader(g, {seedType: 'venue', fanouts: [2], batchSize: 8})).to.throw(
        /seedType 'venue' is not a vertex type/,
      );
      expect(() => new TypedNeighborLoader(g, {seedType: 'author', fanouts: [2], batchSize: 8})).to.throw(/no seeds given/);
      expect(tf.memory().numTensors).to.equal(before);
    } finally {
      g.free();
    }
  });

  it("a typed graph's features kept as tables in any memory and storage (host, float16, bfloat16, a GPU cache): the loader's rows are the features as stored; training reads them; bad storage named", async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const g = heteroCsbm({papers: 300, authors: 60, seed: 6});
    const before = tf.memory().numTensors;
    try {
      const seeds = g.labels!.split!.train.slice(0, 40);
      const rowsOf = (features?: TypedFeatureStorage) => {
        const loader = new TypedNeighborLoader(g, {seeds, fanouts: [3, 3], batchSize: 40, features});
        const b = loader.batch(seeds, 9);
        const out = {ids: b.sub.layers[0].src.paper.slice(), paper: b.x.paper.dataSync().slice(), author: b.x.author.dataSync().slice()};
        b.dispose();
        loader.dispose();
        return out;
      };
      const plain = rowsOf();
      const f = g.features.paper;
      for (const dtype of ['float32', 'float16', 'bfloat16'] as const) {
        const got = rowsOf({memory: 'host', dtype});
        expect(Array.from(got.ids)).to.deep.equal(Array.from(plain.ids));
        const want = Float32Array.from({length: got.ids.length * f.dim}, (_, i) =>
          roundToWire(featureValues(f)[got.ids[Math.floor(i / f.dim)] * f.dim + (i % f.dim)], dtype),
        );
        expect(Array.from(got.paper), `${dtype} rows as stored`).to.deep.equal(Array.from(want));
        expect(Array.from(new Set(got.author)), 'a type without features: zeros').to.deep.equal(got.author.length ? [0] : []);
        if (dtype === 'float32') expect(Array.from(got.paper)).to.deep.equal(Array.from(plain.paper));
      }
      // With a GPU cache of the most linked half of the papers in front of the host table: the same rows.
      expect(Array.from(rowsOf({memory: 'host', cache: 0.5}).paper)).to.deep.equal(Array.from(plain.paper));
      for (const cache of [0, 1.5, NaN])
        expect(() => new TypedNeighborLoader(g, {seeds, fanouts: [2], batchSize: 8, features: {memory: 'host', cache}})).to.throw(
          /features.cache must be a share of the rows in \(0, 1\]/,
        );
      const r = await trainTypedNodeClassification(g, {epochs: 4, seed: 2, features: {memory: 'host', dtype: 'bfloat16'}});
      const plainRun = await trainTypedNodeClassification(g, {epochs: 4, seed: 2});
      expect(Math.abs(r.testAcc - plainRun.testAcc), 'bfloat16 features train as float32 ones do').to.be.below(0.08);
      expect(tf.memory().numTensors, 'tensors left behind').to.equal(before);
    } finally {
      g.free();
    }
  });

  it("the typed link loader: every edge of one relation once per pass with its negatives, both ends' neighbourhoods, each pair's rows among the outputs (between types and within one)", async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const g = heteroCsbm({papers: 120, authors: 30, seed: 6});
    const before = tf.memory().numTensors;
    try {
      for (const edgeType of ['author___writes___paper', 'paper___agrees___paper']) {
        const loader = new TypedLinkLoader(g, {edgeType, fanouts: [3, 2], batchSize: 50, negatives: 2, shuffle: true, seed: 2});
        const [s0, , d0] = edgeType.split('___');
        const want = g.edgesOf(edgeType);
        const seen: string[] = [];
        for await (const b of loader) {
          const p = b.label.dataSync().filter((v) => v === 1).length;
          expect(b.src.length).to.equal(3 * p);
          const last = b.sub.layers[b.sub.layers.length - 1];
          const [sr, dr] = [b.srcRow.dataSync(), b.dstRow.dataSync()];
          for (let i = 0; i < b.src.length; ++i) {
            expect(last.dst[s0][sr[i]], `${edgeType} pair ${i} source`).to.equal(b.src[i]);
            expect(last.dst[d0][dr[i]], `${edgeType} pair ${i} destination`).to.equal(b.dst[i]);
            if (i >= p) expect(b.src[i]).to.equal(b.src[Math.floor((i - p) / 2)]);
          }
          for (let i = 0; i < p; ++i) seen.push(`${b.src[i]} ${b.dst[i]}`);
          expect(b.x[s0].shape[1]).to.equal(16);
          b.dispose();
        }
        expect(seen.sort()).to.deep.equal(Array.from(want.src, (v, i) => `${v} ${want.dst[i]}`).sort());
        loader.dispose();
      }
      expect(() => new TypedLinkLoader(g, {edgeType: 'paper___cites___paper', fanouts: [2], batchSize: 8})).to.throw(
        /no edge type paper___cites___paper/,
      );
      expect(tf.memory().numTensors).to.equal(before);
    } finally {
      g.free();
    }
  });

  it("the typed example (the guide's loop) trains R-GCN by hand and reports accuracies above the features alone", function () {
    this.timeout(120000);
    const example = path.resolve(__dirname, '..', 'examples', 'typed-graph.js');
    const r = spawnSync(process.execPath, [example, '--epochs', '2'], {
      encoding: 'utf8',
      env: {...process.env, TFJS_WHOLEMEMORY_DEVICE: 'cpu'},
    });
    expect(r.status, r.stderr).to.equal(0);
    const test = Number(/epoch 2: loss [\d.]+, validation [\d.]+ %, test ([\d.]+) %/.exec(r.stdout)![1]);
    expect(test).to.be.above(80);
  });

  it('link prediction over one relation (authors and the papers they write): held-out edges ranked above corrupted ones after training; nothing left behind', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const g = heteroCsbm({seed: 1});
    const before = tf.memory().numTensors;
    try {
      const r = await trainTypedLinkPrediction(g, {edgeType: 'author___writes___paper', epochs: 5});
      expect(r.losses[r.losses.length - 1]).to.be.below(r.losses[0] / 2);
      expect(r.testAuc, 'test AUC').to.be.above(0.6);
      expect(r.valAuc, 'validation AUC').to.be.above(0.6);
      expect(tf.memory().numTensors).to.equal(before);
      await expectReject(trainTypedLinkPrediction(g, {edgeType: 'author___writes___paper', testFraction: 0}), /testFraction must be/);
    } finally {
      g.free();
    }
  });
});

// Graphs in native memory (NativeCsr: int64 offsets by construction) against
// the Int32Array builders and samplers on random graphs; their files (round
// trip, truncation, damage, strangers); on a GPU, DeviceCsr over int64 offsets.
// WM_BIG_GRAPH=1 adds a graph past 2^31 entries (GPU machines: ~25 GB of host memory).
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import {WholeMemoryBackend} from '../src/backend/backend_wholememory';
import * as wm from '../src/index';
import {CsrGraph} from '../src/graph/csr';
import {DeviceCsr} from '../src/graph/device_csr';
import {EdgeList} from '../src/graph/edge_list';
import {NativeCsr} from '../src/graph/native_csr';
import {sampleNeighbors} from '../src/graph/native_sampling';
import {rmat} from '../src/graph/rmat';
import {writeNpy} from '../src/data/npy';
import {soloCommunicator} from '../src/memory/communicator';
import {graphNative} from '../src/native/domains';
import {seededRng} from '../src/util/random';
import {gpuOnly} from './helpers';
import {tempDir} from './temp_dirs';

/** m random edges over n vertices, with duplicates and self loops on purpose. */
function randomEdges(n: number, m: number, seed: number): EdgeList {
  const r = seededRng(seed);
  const src = new Int32Array(m),
    dst = new Int32Array(m);
  for (let i = 0; i < m; ++i) {
    src[i] = Math.floor(r() * n);
    dst[i] = i % 7 === 0 ? src[i] : Math.floor(r() * n);
    if (i % 5 === 0 && i > 0) {
      src[i] = src[i - 1];
      dst[i] = dst[i - 1];
    }
  }
  return {numVertices: n, src, dst, directed: true};
}

function sameGraph(native: NativeCsr, ref: CsrGraph, what: string): void {
  expect(native.numVertices, `${what}: vertices`).to.equal(ref.numVertices);
  expect(native.numEdges, `${what}: edges`).to.equal(ref.numEdges);
  const g = native.toCsrGraph();
  expect(Array.from(g.rowPtr), `${what}: rowPtr`).to.deep.equal(Array.from(ref.rowPtr));
  expect(Array.from(g.colIdx), `${what}: colIdx`).to.deep.equal(Array.from(ref.colIdx));
}

function tmpDir(): string {
  return tempDir('wm-native-csr-');
}

describe('graphs in native memory (NativeCsr)', () => {
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  it('fromEdges builds the graph CsrGraph builds, symmetric or not, odd and empty sizes', () => {
    for (const [n, m, seed] of [
      [1, 0, 1],
      [0, 0, 2],
      [7, 30, 3],
      [101, 997, 4],
      [5000, 70001, 5],
      [20011, 400003, 6], // rows cut into parts (one per thread), each placing its own
    ]) {
      const e = randomEdges(n, m, seed);
      for (const symmetric of [true, false]) {
        const g = NativeCsr.fromEdges(e, {symmetric});
        sameGraph(g, CsrGraph.fromEdgesInScript(e, {symmetric}), `n=${n} m=${m} symmetric=${symmetric}`);
        g.free();
      }
    }
  });

  it('rmat draws the graph of rmat() made into CSR, without an edge list', () => {
    for (const o of [
      {scale: 10, seed: 3},
      {scale: 11, edgeFactor: 5, vertices: 1500, seed: 9},
      {scale: 9, permute: false, seed: 4294967301},
      {scale: 12, edgeFactor: 3.3, a: 0.45, b: 0.25, c: 0.2, vertices: 3001, seed: 77},
      {scale: 15, edgeFactor: 8, vertices: 40, seed: 5}, // 262,144 edges drawn for a few kept: placed in edge-sized chunks
    ]) {
      for (const symmetric of [true, false]) {
        const g = NativeCsr.rmat({...o, symmetric});
        sameGraph(g, CsrGraph.fromEdgesInScript(rmat({...o, inScript: true}), {symmetric}), `${JSON.stringify(o)} symmetric=${symmetric}`);
        g.free();
      }
    }
  });

  it('a graph that cannot fit is refused before anything is drawn, with the numbers', () => {
    expect(() => NativeCsr.rmat({scale: 31, edgeFactor: 64, seed: 1})).to.throw(
      /NativeCsr.rmat \(scale 31, edge factor 64: up to 137438953472 edges\): 1040.00 GiB of host memory asked for, and this machine has/,
    );
  });

  it('refuses edges outside the graph and bad generator options by name', () => {
    const e: EdgeList = {numVertices: 4, src: Int32Array.of(0, 1, 2), dst: Int32Array.of(1, 4, 0), directed: true};
    expect(() => NativeCsr.fromEdges(e, {symmetric: true})).to.throw(/edge 1 \(1, 4\) names a vertex outside \[0, 4\)/);
    expect(() => NativeCsr.fromEdges({...e, dst: Int32Array.of(1, 2)}, {symmetric: true})).to.throw(/src and dst differ in length/);
    expect(() => NativeCsr.rmat({scale: 40})).to.throw(/scale must be an integer in \[1, 31\]/);
    expect(() => NativeCsr.rmat({scale: 8, vertices: 100, permute: false})).to.throw(/needs permute/);
    expect(() => NativeCsr.rmat({scale: 8, seed: -1})).to.throw(/seed must be a non-negative integer/);
    expect(() => NativeCsr.rmat({scale: 8, edgeFactor: NaN})).to.throw(/edgeFactor/);
  });

  it('views of the offsets and columns, whole or a part, equal the arrays; a part past the end is refused', () => {
    const edges = randomEdges(300, 2000, 9);
    const ref = CsrGraph.fromEdges(edges, {symmetric: true});
    const g = NativeCsr.fromEdges(edges, {symmetric: true});
    const h = g.handle();
    expect(Array.from(h.offsets(), Number)).to.deep.equal(Array.from(ref.rowPtr));
    expect(Array.from(h.columns())).to.deep.equal(Array.from(ref.colIdx));
    expect(Array.from(h.offsets(17, 40), Number)).to.deep.equal(Array.from(ref.rowPtr.subarray(17, 57)));
    expect(Array.from(h.columns(101, 333))).to.deep.equal(Array.from(ref.colIdx.subarray(101, 434)));
    expect(h.columns(ref.numEdges).length).to.equal(0);
    expect(() => h.columns(10, ref.numEdges)).to.throw(/NativeGraph.columns: argument 1 \(count\) reaches/);
    expect(() => h.offsets(301, 1)).to.throw(/NativeGraph.offsets: argument 1 \(count\) reaches 302, past the array's 301 entries/);
    g.free();
  });

  it('degree, degrees, neighbors and free', () => {
    const e = randomEdges(300, 4000, 12);
    const g = NativeCsr.fromEdges(e, {symmetric: true}),
      ref = CsrGraph.fromEdgesInScript(e, {symmetric: true});
    for (const v of [0, 1, 150, 299]) {
      expect(g.degree(v)).to.equal(ref.degree(v));
      expect(Array.from(g.neighbors(v))).to.deep.equal(Array.from(ref.neighbors(v)));
    }
    expect(Array.from(g.degrees([3, 4, 5]))).to.deep.equal([3, 4, 5].map((v) => ref.degree(v)));
    expect(g.bytes).to.equal(301 * 8 + ref.numEdges * 4);
    expect(() => g.degree(300)).to.throw(/v must be a vertex in \[0, 300\), got 300/);
    expect(() => g.degrees([0, -1])).to.throw(/entry 1 = -1 is not a vertex/);
    g.free();
    expect(() => g.numVertices).to.throw(/the graph was freed/);
    g.free(); // twice is harmless
  });

  it('samples what sampleNeighbors samples over the Int32Array graph (int64 offsets, both modes, both keys)', () => {
    const e = randomEdges(2000, 30000, 21);
    const g = NativeCsr.fromEdges(e, {symmetric: true}),
      ref = CsrGraph.fromEdgesInScript(e, {symmetric: true});
    const seeds = Int32Array.from({length: 777}, (_, i) => (i * 7919) % 2000);
    for (const replace of [true, false])
      for (const keyBy of ['position', 'vertex'] as const)
        for (const fanout of [0, 1, 5, 40]) {
          const opts = {replace, keyBy, seed: 5 + fanout};
          const got = g.sample(seeds, fanout, opts),
            want = sampleNeighbors(ref, seeds, fanout, opts);
          expect(Array.from(got.ids), `replace=${replace} ${keyBy} fanout=${fanout}`).to.deep.equal(Array.from(want.ids));
          if (!replace) expect(Array.from(got.offsets!)).to.deep.equal(Array.from(want.offsets!));
        }
    expect(() => g.sample([0, 2000], 3)).to.throw(/2000/);
    g.free();
  });

  it('the host samplers read int64 offsets from a BigInt64Array as they read int32 ones', () => {
    const e = randomEdges(500, 6000, 8);
    const ref = CsrGraph.fromEdgesInScript(e, {symmetric: true});
    const wide = BigInt64Array.from(Array.from(ref.rowPtr, (x) => BigInt(x)));
    const seeds = Int32Array.from({length: 300}, (_, i) => (i * 31) % 500);
    const a = new Int32Array(seeds.length * 6),
      b = new Int32Array(seeds.length * 6);
    graphNative().sampleWithReplacement(ref.rowPtr, ref.colIdx, 500, seeds, seeds.length, 6, 9, a, null);
    graphNative().sampleWithReplacement(wide, ref.colIdx, 500, seeds, seeds.length, 6, 9, b, null);
    expect(Array.from(b)).to.deep.equal(Array.from(a));
    expect(() => graphNative().sampleWithReplacement(wide.subarray(1), ref.colIdx, 500, seeds, 1, 1, 0, b, null)).to.throw(
      /argument 0 \(rowPtr\) must hold numVertices \+ 1 entries/,
    );
  });

  it('walks and negative pairs over int64 offsets: the same as over the Int32Array graph, uniform and node2vec', () => {
    for (const [n, m, seed] of [
      [2, 1, 1],
      [97, 500, 2],
      [1000, 9000, 3],
    ]) {
      const edges = randomEdges(n, m, seed);
      const ref = CsrGraph.fromEdges(edges, {symmetric: true});
      const g = NativeCsr.fromEdges(edges, {symmetric: true});
      const starts = Int32Array.from({length: 333}, (_, i) => (i * 7919) % n);
      for (const opts of [{seed: 5}, {p: 0.5, q: 2, seed: 6}, {p: 4, q: 0.25, seed: 7}]) {
        const want = wm.graph.randomWalks(ref, starts, 9, opts);
        const got = wm.graph.randomWalks(g, starts, 9, opts);
        expect(Array.from(got), `n=${n} ${JSON.stringify(opts)}`).to.deep.equal(Array.from(want));
      }
      if (n > 2) {
        const want = wm.graph.sampleNegativePairs(ref, 777, {seed: 8});
        const got = wm.graph.sampleNegativePairs(g, 777, {seed: 8});
        expect(Array.from(got.src)).to.deep.equal(Array.from(want.src));
        expect(Array.from(got.dst)).to.deep.equal(Array.from(want.dst));
        for (let i = 0; i < 777; ++i) {
          expect(got.src[i]).to.not.equal(got.dst[i]);
          expect(Array.from(g.neighbors(got.src[i]))).to.not.include(got.dst[i]);
        }
      }
      expect(() => wm.graph.randomWalks(g, [n], 3)).to.throw(/randomWalks/);
      g.free();
    }
  });

  it('walks and negative pairs refuse a NativeCsr whose rows are out of order, naming the row', () => {
    // Row 1 holds 3 before 0: fine for uniform walks, refused where rows are searched by bisection.
    const rowPtr = Int32Array.of(0, 1, 3, 4, 5),
      colIdx = Int32Array.of(1, 3, 0, 1, 1);
    const g = wm.graph.NativeCsr.fromCsr(rowPtr, colIdx);
    expect(g.hasSortedRows()).to.equal(false);
    expect(wm.graph.randomWalks(g, [0, 1, 2, 3], 4, {seed: 1}).length).to.equal(16);
    expect(() => wm.graph.randomWalks(g, [0], 4, {p: 2})).to.throw(
      /randomWalks: the neighbours of vertex 1 are not in ascending order \(3,0\)/,
    );
    expect(() => wm.graph.sampleNegativePairs(g, 4)).to.throw(/sampleNegativePairs: the neighbours of vertex 1/);
    g.free();
  });

  it('in WholeMemory (int64 offsets): samples and walks what the NativeCsr does, on the host and, with a GPU, on the device', async () => {
    const g = NativeCsr.rmat({scale: 11, edgeFactor: 9, seed: 12});
    const seeds = Int32Array.from({length: 1500}, (_, i) => (i * 7919) % g.numVertices);
    const t = tf.tensor1d(seeds, 'int32');
    const locations: Array<'host' | 'device'> = wm.deviceInfo().gpu ? ['host', 'device'] : ['host'];
    for (const location of locations) {
      const held = wm.graph.WholeMemoryCsr.create(soloCommunicator(), g, {location});
      expect(held.wideOffsets).to.equal(true);
      for (const replace of [true, false]) {
        const want = g.sample(seeds, 7, {replace, seed: 4});
        const got = held.sample(t, 7, {replace, seed: 4});
        expect(Array.from(await got.ids.data()), `${location} replace=${replace}`).to.deep.equal(Array.from(want.ids));
        if (!replace) expect(Array.from(await got.offsets!.data())).to.deep.equal(Array.from(want.offsets!));
        tf.dispose([got.ids, got.offsets ?? []].flat());
      }
      const walks = held.randomWalks(t, 6, {p: 0.5, q: 2, seed: 5});
      expect(Array.from(await walks.data()), `${location} walks`).to.deep.equal(
        Array.from(wm.graph.randomWalks(g, seeds, 6, {p: 0.5, q: 2, seed: 5})),
      );
      walks.dispose();
      held.free();
    }
    t.dispose();
    g.free();
  });

  it('fromEdgeFile: an edge list (gzip or not, header, comments) parsed natively equals readEdgeList into CsrGraph', async () => {
    const dir = tmpDir();
    try {
      const edges = randomEdges(400, 3000, 17);
      const lines = ['# vertices=420', '% a comment'];
      for (let i = 0; i < edges.src.length; ++i) lines.push(`${edges.src[i]}\t${edges.dst[i]}${i % 3 ? '' : '\t0.5'}`);
      const plain = path.join(dir, 'edges.tsv'),
        gz = path.join(dir, 'edges.tsv.gz');
      fs.writeFileSync(plain, lines.join('\n') + '\n');
      fs.writeFileSync(gz, zlib.gzipSync(fs.readFileSync(plain)));
      const want = CsrGraph.fromEdges({...edges, numVertices: 420}, {symmetric: true});
      // The third field of every third line is not read, and a warning says so.
      const warnings: string[] = [];
      const onWarning = (w: Error & {code?: string}) => w.code === 'WM_EDGE_FIELDS_IGNORED' && warnings.push(w.message);
      process.on('warning', onWarning);
      try {
        for (const file of [plain, gz]) {
          const g = await NativeCsr.fromEdgeFile(file, {symmetric: true});
          sameGraph(g, want, path.basename(file));
          g.free();
        }
        await new Promise((r) => setImmediate(r));
      } finally {
        process.off('warning', onWarning);
      }
      expect(warnings.length).to.equal(2);
      expect(warnings[0]).to.match(
        /edges\.tsv: 1000 of 3000 edges hold fields past the two vertex ids \(the first on line 3: edge weights\?\)/,
      );
      const bad = path.join(dir, 'bad.tsv');
      fs.writeFileSync(bad, '0\t1\n1\t2\n2\tx\n');
      let err = '';
      await NativeCsr.fromEdgeFile(bad, {symmetric: true}).catch((e) => (err = (e as Error).message));
      expect(err).to.match(/bad\.tsv:3: /);
      await NativeCsr.fromEdgeFile(plain, {symmetric: true, numVertices: 10}).catch((e) => (err = (e as Error).message));
      expect(err).to.match(/edges\.tsv:\d+: /);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('fromNpy: edge matrices [2, m] and [m, 2], int32 and int64, build the graph fromEdges builds; bad files named', () => {
    const dir = tmpDir();
    try {
      const edges = randomEdges(500, 4000, 13);
      const m = edges.src.length;
      const want = NativeCsr.fromEdges(edges, {symmetric: true}).toCsrGraph();
      const rowsLayout = new Int32Array(2 * m),
        pairs = new Int32Array(2 * m);
      rowsLayout.set(edges.src);
      rowsLayout.set(edges.dst, m);
      for (let i = 0; i < m; ++i) [pairs[2 * i], pairs[2 * i + 1]] = [edges.src[i], edges.dst[i]];
      const cases: Array<[string, Int32Array | BigInt64Array, number[]]> = [
        ['i4-2m', rowsLayout, [2, m]],
        ['i8-2m', BigInt64Array.from(rowsLayout, BigInt), [2, m]],
        ['i4-m2', pairs, [m, 2]],
        ['i8-m2', BigInt64Array.from(pairs, BigInt), [m, 2]],
      ];
      for (const [name, data, shape] of cases) {
        const file = path.join(dir, `${name}.npy`);
        writeNpy(file, data, shape);
        // The largest id here is below 499 now and then: name the vertex count.
        const g = NativeCsr.fromNpy(file, {symmetric: true, numVertices: 500});
        sameGraph(g, want, name);
        g.free();
      }
      // Without numVertices: the largest id + 1.
      const small = path.join(dir, 'small.npy');
      writeNpy(small, Int32Array.of(0, 3, 1, 2), [2, 2]);
      const g = NativeCsr.fromNpy(small, {symmetric: false});
      expect([g.numVertices, g.numEdges]).to.deep.equal([4, 2]);
      expect(Array.from(g.neighbors(0))).to.deep.equal([1]);
      expect(Array.from(g.neighbors(3))).to.deep.equal([2]);
      g.free();
      // An id past int32, a negative id, an id past numVertices, a wrong dtype, shape and length.
      const big = path.join(dir, 'big.npy');
      writeNpy(big, BigInt64Array.of(0n, 1n, 2n, 2n ** 31n), [2, 2]);
      expect(() => NativeCsr.fromNpy(big, {symmetric: true})).to.throw(
        /big\.npy: edge 1 \(1, 2147483648\) holds an id outside \[0, 2\^31 - 1\)/,
      );
      const neg = path.join(dir, 'neg.npy');
      writeNpy(neg, Int32Array.of(0, -1, 2, 2), [2, 2]);
      expect(() => NativeCsr.fromNpy(neg, {symmetric: true, numVertices: 3})).to.throw(
        /neg\.npy: fromEdges: edge 1 \(-1, 2\) names a vertex outside \[0, 3\)/,
      );
      expect(() => NativeCsr.fromNpy(small, {symmetric: true, numVertices: 3})).to.throw(/small\.npy: fromEdges: edge 1 \(3, 2\)/);
      const floats = path.join(dir, 'floats.npy');
      writeNpy(floats, Float32Array.of(0, 1), [2, 1]);
      expect(() => NativeCsr.fromNpy(floats, {symmetric: true})).to.throw(/ids must be little-endian int32 or int64, the file holds '<f4'/);
      const flat = path.join(dir, 'flat.npy');
      writeNpy(flat, Int32Array.of(0, 1, 2), [3]);
      expect(() => NativeCsr.fromNpy(flat, {symmetric: true})).to.throw(/shape \(3\) is not \[2, m\] or \[m, 2\]/);
      const cut = path.join(dir, 'cut.npy');
      fs.writeFileSync(cut, fs.readFileSync(path.join(dir, 'i4-2m.npy')).subarray(0, 200));
      expect(() => NativeCsr.fromNpy(cut, {symmetric: true})).to.throw(
        /cut\.npy: 4000 edges of int32 need 32128 bytes, the file holds 200/,
      );
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('csbmNative: a seed gives one graph; homophily, degree, class sizes and features as asked; rows the same in any blocks', () => {
    const n = 20000,
      c = 5,
      f = 16;
    for (const homophily of [0.8, 0.2]) {
      const a = wm.graph.csbmNative({vertices: n, classes: c, degree: 10, homophily, features: f, signal: 2, seed: 3});
      const b = wm.graph.csbmNative({vertices: n, classes: c, degree: 10, homophily, features: f, signal: 2, seed: 3});
      const other = wm.graph.csbmNative({vertices: n, classes: c, degree: 10, homophily, seed: 4});
      const ga = a.graph.toCsrGraph();
      sameGraph(b.graph, ga, 'same seed');
      expect(Array.from(b.labels)).to.deep.equal(Array.from(a.labels));
      expect(Array.from(other.graph.toCsrGraph().colIdx.subarray(0, 50))).to.not.deep.equal(Array.from(ga.colIdx.subarray(0, 50)));
      // Entries within a class, the mean degree, the class sizes.
      let inside = 0;
      for (let v = 0; v < n; ++v)
        for (let e = ga.rowPtr[v]; e < ga.rowPtr[v + 1]; ++e) inside += a.labels[ga.colIdx[e]] === a.labels[v] ? 1 : 0;
      expect(inside / ga.numEdges, `homophily ${homophily}`).to.be.closeTo(homophily, 0.02);
      expect(ga.numEdges / n).to.be.within(9.5, 10);
      const sizes = new Array(c).fill(0);
      for (const y of a.labels) ++sizes[y];
      for (const size of sizes) expect(size).to.be.within(0.9 * (n / c), 1.1 * (n / c));
      expect(a.featureDim).to.equal(f);
      // Features: any blocks give the same rows; class averages lie at distance `signal` from the origin, noise of variance 1.
      const all = a.featureRows(0, n);
      const parts = [a.featureRows(0, 777), a.featureRows(777, 9000), a.featureRows(9777, n - 9777)];
      expect(Array.from(parts.flatMap((p) => Array.from(p)))).to.deep.equal(Array.from(all));
      expect(Array.from(b.featureRows(5000, 10))).to.deep.equal(Array.from(all.subarray(5000 * f, 5010 * f)));
      const sums = Array.from({length: c}, () => new Float64Array(f));
      for (let v = 0; v < n; ++v) for (let k = 0; k < f; ++k) sums[a.labels[v]][k] += all[v * f + k];
      const centres = sums.map((s, y) => s.map((x) => x / sizes[y]));
      for (const centre of centres) expect(Math.hypot(...centre)).to.be.closeTo(2, 0.15);
      let squares = 0;
      for (let v = 0; v < n; ++v) for (let k = 0; k < f; ++k) squares += (all[v * f + k] - centres[a.labels[v]][k]) ** 2;
      expect(squares / (n * f)).to.be.closeTo(1, 0.05);
      for (const g of [a, b, other]) g.graph.free();
    }
    expect(() => wm.graph.csbmNative({vertices: 5, classes: 2})).to.throw(/csbm: vertices must be an integer in \[10,/);
    expect(() => wm.graph.csbmNative({vertices: 100, classes: 2, homophily: 2})).to.throw(/homophily must be in \[0, 1\], got 2/);
    const g = wm.graph.csbmNative({vertices: 100, classes: 3, seed: 1});
    expect(() => g.featureRows(90, 20)).to.throw(/rows \[90, 110\) must lie in \[0, 100\)/);
    expect(g.featureRows(0, 100).length).to.equal(0);
    g.graph.free();
  });

  it('saves and loads: the same arrays and note; truncated, damaged and foreign files are refused by name', () => {
    const dir = tmpDir();
    try {
      const e = randomEdges(3000, 40000, 31);
      const g = NativeCsr.fromEdges(e, {symmetric: true});
      const file = path.join(dir, 'g.wmcsr');
      g.save(file, '{"source":"test"}');
      const h = NativeCsr.load(file);
      expect(h.meta).to.equal('{"source":"test"}');
      sameGraph(h, g.toCsrGraph(), 'loaded');
      expect(fs.readdirSync(dir)).to.deep.equal(['g.wmcsr']); // no temporary left
      h.free();
      const bytes = fs.readFileSync(file);
      // Truncated.
      fs.writeFileSync(path.join(dir, 'short'), bytes.subarray(0, bytes.length - 3));
      expect(() => NativeCsr.load(path.join(dir, 'short'))).to.throw(/short: \d+ bytes, the header says \d+ \(truncated\)/);
      // One column changed: the checksum fails.
      const damaged = Buffer.from(bytes);
      damaged[8192 + 5] ^= 1;
      fs.writeFileSync(path.join(dir, 'damaged'), damaged);
      expect(() => NativeCsr.load(path.join(dir, 'damaged'))).to.throw(/damaged: checksum mismatch/);
      // The header's counts changed: its layout no longer fits.
      const counts = Buffer.from(bytes);
      counts.writeBigUInt64LE(counts.readBigUInt64LE(24) + 1n, 24);
      fs.writeFileSync(path.join(dir, 'counts'), counts);
      expect(() => NativeCsr.load(path.join(dir, 'counts'))).to.throw(/counts: /);
      fs.writeFileSync(path.join(dir, 'text'), 'src\tdst\n0\t1\n');
      expect(() => NativeCsr.load(path.join(dir, 'text'))).to.throw(/text: not a graph file/);
      expect(() => NativeCsr.load(path.join(dir, 'absent'))).to.throw(/absent is missing/);
      expect(() => NativeCsr.load(dir)).to.throw(/not a regular file/);
      g.free();
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('on a GPU: DeviceCsr over a NativeCsr (int64 offsets) samples what the host samples', function () {
    gpuOnly(this);
    const g = NativeCsr.rmat({scale: 14, edgeFactor: 12, seed: 4});
    const dev = new DeviceCsr(g);
    expect(dev.wideOffsets).to.equal(true);
    const seeds = Int32Array.from({length: 4096}, (_, i) => (i * 104729) % g.numVertices);
    for (const replace of [true, false]) {
      const want = g.sample(seeds, 10, {replace, seed: 3});
      const s = tf.tensor1d(seeds, 'int32');
      const got = dev.sample(s, 10, {replace, seed: 3});
      expect(Array.from(got.ids.dataSync()), `replace=${replace}`).to.deep.equal(Array.from(want.ids));
      if (!replace) expect(Array.from(got.offsets!.dataSync())).to.deep.equal(Array.from(want.offsets!));
      tf.dispose([s, got.ids, got.offsets ?? []].flat());
    }
    // The fixed-fan-out tree every sampled model reads.
    // Seeds as a plain array.
    const tree = wm.graph.sampleTree(dev, Array.from(seeds.subarray(0, 256)), [5, 3], {seed: 2});
    expect((tree.inputIds as tf.Tensor1D).size).to.equal(256 + 256 * 5 + 256 * 5 * 3);
    tree.dispose();
    // Walks and negative pairs over the int64 offsets on the GPU: the host's draws.
    const starts = tf.tensor1d(seeds.subarray(0, 1024), 'int32');
    for (const opts of [{seed: 5}, {p: 0.5, q: 2, seed: 6}]) {
      const walks = dev.randomWalks(starts, 8, opts);
      expect(Array.from(walks.dataSync()), JSON.stringify(opts)).to.deep.equal(
        Array.from(wm.graph.randomWalks(g, seeds.subarray(0, 1024), 8, opts)),
      );
      walks.dispose();
    }
    const neg = wm.graph.deviceNegativePairs(dev, 5000, {seed: 9});
    const hostNeg = wm.graph.sampleNegativePairs(g, 5000, {seed: 9});
    expect(Array.from(neg.src.dataSync())).to.deep.equal(Array.from(hostNeg.src));
    expect(Array.from(neg.dst.dataSync())).to.deep.equal(Array.from(hostNeg.dst));
    tf.dispose([starts, neg.src, neg.dst]);
    dev.dispose();
    g.free();
  });

  it('on a GPU with WM_BIG_GRAPH=1: a graph past 2^31 entries, sampled and aggregated on the GPU as on the host', function () {
    gpuOnly(this);
    if (process.env.WM_BIG_GRAPH !== '1') this.skip();
    this.timeout(1200000);
    const t0 = Date.now();
    const g = NativeCsr.rmat({scale: 26, edgeFactor: 24, seed: 7});
    const buildSeconds = (Date.now() - t0) / 1000;
    expect(g.numEdges).to.be.greaterThan(2 ** 31);
    const t1 = Date.now();
    const dev = new DeviceCsr(g);
    const uploadSeconds = (Date.now() - t1) / 1000;
    // Seeds whose rows start past 2^31 (the last vertices) and the hubs, and random ones.
    const n = g.numVertices;
    const seeds = new Int32Array(8192);
    for (let i = 0; i < 4096; ++i) seeds[i] = n - 1 - i;
    const r = seededRng(5);
    for (let i = 4096; i < seeds.length; ++i) seeds[i] = Math.floor(r() * n);
    const firstRow = g.degrees(Int32Array.of(0))[0]; // touch the API on the big graph
    expect(firstRow).to.be.at.least(0);
    const s = tf.tensor1d(seeds, 'int32');
    for (const replace of [true, false]) {
      const want = g.sample(seeds, 25, {replace, seed: 11});
      const got = dev.sample(s, 25, {replace, seed: 11});
      expect(
        Array.from(got.ids.dataSync()).every((x, i) => x === want.ids[i]),
        `replace=${replace}: GPU = host`,
      ).to.equal(true);
      tf.dispose([got.ids, got.offsets ?? []].flat());
      // Every sampled id is a neighbour of its seed (or the seed, for an isolated vertex).
      if (replace)
        for (let i = 0; i < 256; ++i) {
          const nb = new Set(g.neighbors(seeds[i]));
          for (let k = 0; k < 25; ++k)
            expect(nb.has(want.ids[i * 25 + k]) || (nb.size === 0 && want.ids[i * 25 + k] === seeds[i])).to.equal(true);
        }
    }
    // Aggregation over the sampled tree: the GPU's fused mean against a float64 mean of the host's samples.
    const dim = 16;
    const feat = tf.randomUniform([n, dim], -1, 1, 'float32', 3) as tf.Tensor2D;
    const few = seeds.subarray(4096 - 512, 4096 + 512);
    const tree = wm.graph.sampleTree(dev, few, [10], {seed: 4});
    const hop = tf.slice(tree.inputIds as tf.Tensor1D, few.length, few.length * 10); // the first hop, after the seeds
    const b = tf.backend() as WholeMemoryBackend;
    const [mean] = b.deviceOutputs([[few.length, dim]], ([ptr]) => {
      graphNative().neighborMean(b.devicePtr(hop), few.length, 10, b.devicePtr(feat), dim, ptr);
    });
    const ids = hop.dataSync(),
      m = mean.dataSync();
    const host = g.sample(few, 10, {seed: 4 /* hop 0's seed */, replace: true}).ids;
    expect(Array.from(ids)).to.deep.equal(Array.from(host));
    const rows = tf.gather(feat, tf.tensor1d(host, 'int32')).dataSync();
    for (let i = 0; i < few.length; ++i)
      for (let d = 0; d < dim; ++d) {
        let sum = 0;
        for (let k = 0; k < 10; ++k) sum += rows[(i * 10 + k) * dim + d];
        expect(Math.abs(m[i * dim + d] - sum / 10)).to.be.below(1e-5);
      }
    tf.dispose([s, feat, mean, hop]);
    tree.dispose();
    const hostWalks = wm.graph.randomWalks(g, seeds.subarray(0, 2048), 6, {p: 0.5, q: 2, seed: 3});
    // Walks and negative pairs on the GPU over offsets past 2^31: the host's draws.
    const starts = tf.tensor1d(seeds.subarray(0, 2048), 'int32');
    const walks = dev.randomWalks(starts, 6, {p: 0.5, q: 2, seed: 3});
    expect(Array.from(walks.dataSync()).every((x, i) => x === hostWalks[i])).to.equal(true);
    const neg = wm.graph.deviceNegativePairs(dev, 100000, {seed: 9});
    const hostNeg = wm.graph.sampleNegativePairs(g, 100000, {seed: 9});
    expect(Array.from(neg.src.dataSync()).every((x, i) => x === hostNeg.src[i])).to.equal(true);
    expect(Array.from(neg.dst.dataSync()).every((x, i) => x === hostNeg.dst[i])).to.equal(true);
    tf.dispose([starts, walks, neg.src, neg.dst]);
    console.log(
      `      big graph: ${n} vertices, ${g.numEdges} entries (${(g.bytes / 1e9).toFixed(1)} GB), built in ${buildSeconds.toFixed(1)} s, ` +
        `copied to the GPU in ${uploadSeconds.toFixed(1)} s`,
    );
    dev.dispose();
    g.free();
  });
});

describe('wm.graph.powerLawGraph (heavy-tailed degrees, no communities)', () => {
  it('has the asked mean degree, symmetric rows, a heavier tail as skew grows (uniform ids at 1), the same graph for a seed; bad options named', () => {
    const stats = (skew: number, seed = 1) => {
      const g = wm.graph.powerLawGraph({vertices: 20000, degree: 12, skew, seed});
      try {
        expect(g.numVertices).to.equal(20000);
        expect(g.numEdges).to.equal(240000); // 120,000 edges, each both ways
        // Symmetric: u lists v as often as v lists u.
        const count = new Map<string, number>();
        for (let v = 0; v < 2000; ++v) for (const u of g.neighbors(v)) count.set(`${v},${u}`, (count.get(`${v},${u}`) ?? 0) + 1);
        for (const [k, c] of count) {
          const [v, u] = k.split(',').map(Number);
          expect(g.neighbors(u).filter((x) => x === v).length, `${v} - ${u}`).to.equal(c);
        }
        const d = Array.from(g.degrees()).sort((a, b) => b - a);
        return {max: d[0], top: d.slice(0, 200).reduce((a, x) => a + x, 0) / 240000, checksum: g.checksum()};
      } finally {
        g.free();
      }
    };
    const uniform = stats(1),
      two = stats(2),
      three = stats(3);
    expect(uniform.max).to.be.below(3 * 12);
    expect(two.max).to.be.above(20 * 12);
    expect(three.max).to.be.above(two.max);
    // The top 1 % of the vertices hold more of the entries as skew grows (1 % for uniform ids).
    expect(uniform.top).to.be.below(0.02);
    expect(two.top).to.be.above(0.05);
    expect(three.top).to.be.above(two.top);
    expect(stats(2).checksum).to.equal(two.checksum);
    expect(stats(2, 2).checksum).to.not.equal(two.checksum);
    expect(() => wm.graph.powerLawGraph({vertices: 0})).to.throw(/powerLawGraph: vertices must be an integer in \[1, 2\^31\), got 0/);
    expect(() => wm.graph.powerLawGraph({vertices: 10, skew: 0.5})).to.throw(/skew must be a finite number >= 1, got 0.5/);
    expect(() => wm.graph.powerLawGraph({vertices: 10, degree: -1})).to.throw(/degree must be a finite number > 0, got -1/);
    // More than the machine holds: refused with the numbers before anything is drawn.
    expect(() => wm.graph.powerLawGraph({vertices: 2 ** 31 - 1, degree: 1000})).to.throw(
      /powerLawGraph \(2147483647 vertices, 1073741823500 edges\): .* of host memory asked for/,
    );
  });
});

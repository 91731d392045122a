// Graph loading, sampling, R-MAT, link-prediction splits and metrics, against
// straightforward references on small graphs.
import * as fs from 'fs';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {CsrGraph} from '../src/graph/csr';
import {loadDataset} from '../src/graph/dataset';
import {readEdgeList} from '../src/graph/edge_list';
import {sampleNegatives, splitEdges} from '../src/graph/link_split';
import {loadCsr, saveCsr} from '../src/graph/csr_file';
import {soloCommunicator} from '../src/memory/communicator';
import {rmat} from '../src/graph/rmat';
import {DeviceCsr} from '../src/graph/device_csr';
import {sampleNeighbors} from '../src/graph/native_sampling';
import {sampleWithoutReplacement, sampleWithReplacement} from '../src/graph/sampling';
import {hitsAtK, rocAuc} from '../src/train/link_metrics';
import {trainLinkPrediction} from '../src/train/link_prediction';
import {seededRng} from '../src/util/random';
import {csrSplits, transpose} from '../src/graph/aggregate';
import {tempDir} from './temp_dirs';

/**
 * float32 results against a float64 reference, to float32's precision; `mass`
 * (the sum of each result's terms' magnitudes) widens the bound for long sums.
 */
function closeTo64(got: ArrayLike<number>, ref: Float64Array, what: string, mass?: Float64Array): void {
  expect(got.length, `${what}: length`).to.equal(ref.length);
  for (let i = 0; i < ref.length; ++i) {
    const bound = 1e-5 * (1 + Math.abs(ref[i])) + (mass ? 1e-6 * mass[i] : 0); // a lost chunk or row is far larger
    if (!(Math.abs(got[i] - ref[i]) <= bound)) throw new Error(`${what} [${i}]: ${got[i]} != ${ref[i]}`);
  }
}

const root = path.resolve(__dirname, '..', '..');

/** A random block of `rows` rows over `cols` columns: 15% of rows empty, the others 1..most entries drawn by `entry`. */
function randomBlock(
  rng: () => number,
  rows: number,
  cols: number,
  most: number,
  entry: (r: number) => number,
): {rowPtr: Int32Array; colIdx: Int32Array} {
  const rowPtr = new Int32Array(rows + 1);
  const entries: number[] = [];
  for (let r = 0; r < rows; ++r) {
    const deg = cols === 0 || rng() < 0.15 ? 0 : 1 + Math.floor(rng() * most);
    for (let k = 0; k < deg; ++k) entries.push(entry(r));
    rowPtr[r + 1] = entries.length;
  }
  return {rowPtr, colIdx: Int32Array.from(entries)};
}

interface ProductReference {
  want: Float64Array; // the product, [rows, dim]
  grad: Float64Array; // the gradient of sum(product * w) in x, [cols, dim]
  wantMass: Float64Array; // the sums of the terms' magnitudes
  gradMass: Float64Array;
}

/** The product of x [cols, dim] by a block whose row r is the weighted columns termsOf(r), in float64. */
function referenceProduct(
  rows: number,
  cols: number,
  dim: number,
  xv: Float32Array,
  wv: Float32Array,
  termsOf: (r: number) => Array<[number, number]>,
): ProductReference {
  const ref = {
    want: new Float64Array(rows * dim),
    grad: new Float64Array(cols * dim),
    wantMass: new Float64Array(rows * dim),
    gradMass: new Float64Array(cols * dim),
  };
  for (let r = 0; r < rows; ++r) {
    for (const [c, a] of termsOf(r)) {
      for (let j = 0; j < dim; ++j) {
        ref.want[r * dim + j] += a * xv[c * dim + j];
        ref.grad[c * dim + j] += a * wv[r * dim + j];
        ref.wantMass[r * dim + j] += Math.abs(a * xv[c * dim + j]);
        ref.gradMass[c * dim + j] += Math.abs(a * wv[r * dim + j]);
      }
    }
  }
  return ref;
}

/**
 * A random block (some rows without entries) with random inputs x [cols, dim] and output weights w [rows, dim], and
 * the float64 reference of its mean or sum product.
 */
function randomProductCase(rng: () => number, rows: number, cols: number, dim: number, most: number) {
  const {rowPtr, colIdx} = randomBlock(rng, rows, cols, most, () => Math.floor(rng() * cols));
  const xv = Float32Array.from({length: cols * dim}, () => rng() * 2 - 1);
  const wv = Float32Array.from({length: rows * dim}, () => rng() * 2 - 1);
  const ref = (reduce: 'mean' | 'sum') =>
    referenceProduct(rows, cols, dim, xv, wv, (r) => {
      const deg = rowPtr[r + 1] - rowPtr[r];
      const scale = reduce === 'mean' ? (deg ? 1 / deg : 0) : 1;
      return Array.from(colIdx.subarray(rowPtr[r], rowPtr[r + 1]), (c): [number, number] => [c, scale]);
    });
  return {rowPtr, colIdx, xv, wv, ref};
}

/** wm.graph.aggregate forward and gradient on each backend against the reference (the bound widened by the terms' magnitudes if `byMass`). */
// Ours, and tfjs-backend-cpu (the same product from tfjs ops) on the small cases: its gathers and segment sums take
// seconds past some 20,000 entry values.
const backendsFor = (entries: number, dim: number): string[] => (entries * dim <= 20000 ? [wm.BACKEND_NAME, 'cpu'] : [wm.BACKEND_NAME]);

async function expectAggregate(
  backends: string[],
  block: () => wm.graph.CsrBlock,
  reduce: wm.graph.AggregateReduce,
  xv: Float32Array,
  wv: Float32Array,
  shape: {rows: number; cols: number; dim: number},
  ref: ProductReference,
  what: string,
  byMass: boolean,
): Promise<void> {
  const {rows, cols, dim} = shape;
  for (const backend of backends) {
    await tf.setBackend(backend);
    const b = block();
    const x = tf.tensor2d(xv, [cols, dim]),
      w = tf.tensor2d(wv, [rows, dim]);
    const out = wm.graph.aggregate(x, b, reduce);
    const dx = tf.grad((xx: tf.Tensor) => tf.sum(tf.mul(wm.graph.aggregate(xx as tf.Tensor2D, b, reduce), w)))(x);
    closeTo64(out.dataSync(), ref.want, `${what} forward ${backend} ${rows}x${cols}x${dim}`, byMass ? ref.wantMass : undefined);
    closeTo64(dx.dataSync(), ref.grad, `${what} gradient ${backend} ${rows}x${cols}x${dim}`, byMass ? ref.gradMass : undefined);
    tf.dispose([x, w, out, dx]);
    b.dispose();
  }
  await tf.setBackend(wm.BACKEND_NAME);
}

describe('graphs', () => {
  it('reads edge lists with their header, and names a bad line', () => {
    const dir = tempDir('wm-graph-');
    const good = path.join(dir, 'g.tsv');
    fs.writeFileSync(good, '# directed=0 vertices=5 edges=3\n0\t1\n1 2\n3,4\n');
    const e = readEdgeList(good);
    expect(e.numVertices).to.equal(5);
    expect(Array.from(e.src)).to.deep.equal([0, 1, 3]);
    const bad = path.join(dir, 'b.tsv');
    fs.writeFileSync(bad, '0\t1\nx\t2\n');
    expect(() => readEdgeList(bad)).to.throw(/b\.tsv:2: expected two vertex ids \(decimal integers from 0\)/);
    fs.rmSync(dir, {recursive: true});
  });

  it('builds an undirected CSR without duplicates or self loops; polblogs has the published component', async () => {
    const g = CsrGraph.fromEdges(
      {numVertices: 4, src: Int32Array.from([0, 1, 1, 2, 3]), dst: Int32Array.from([1, 0, 2, 2, 3]), directed: true},
      {symmetric: true},
    );
    expect(Array.from(g.neighbors(1))).to.deep.equal([0, 2]);
    expect(g.degree(3)).to.equal(0);
    const d = await loadDataset(path.join(root, 'data', 'polblogs'));
    expect(d.graph.numVertices).to.equal(1222);
    expect(d.graph.numEdges / 2).to.equal(16714);
    expect(d.numClasses).to.equal(2);
  });

  it('samples real neighbours, uniformly (chi-square), reproducibly', async () => {
    const g = (await loadDataset(path.join(root, 'data', 'polblogs'))).graph;
    let v = 0;
    while (g.degree(v) < 20) ++v;
    const deg = g.degree(v);
    const draws = 200 * deg;
    const s = sampleWithReplacement(g, Int32Array.from([v]), draws, seededRng(3));
    const nb = Array.from(g.neighbors(v));
    const counts = new Map<number, number>();
    for (const u of s) {
      expect(nb).to.include(u);
      counts.set(u, (counts.get(u) ?? 0) + 1);
    }
    const expected = draws / deg;
    const chi2 = nb.reduce((acc, u) => acc + ((counts.get(u) ?? 0) - expected) ** 2 / expected, 0);
    // Upper 0.1% point of chi-square with deg - 1 degrees of freedom (Wilson-Hilferty).
    const k = deg - 1,
      z = 3.09;
    const critical = k * (1 - 2 / (9 * k) + z * Math.sqrt(2 / (9 * k))) ** 3;
    expect(chi2).to.be.lessThan(critical);
    expect(Array.from(sampleWithReplacement(g, Int32Array.from([v]), 50, seededRng(9)))).to.deep.equal(
      Array.from(sampleWithReplacement(g, Int32Array.from([v]), 50, seededRng(9))),
    );
  });

  it('samples without replacement: distinct neighbours, all of them when few', async () => {
    const g = (await loadDataset(path.join(root, 'data', 'polblogs'))).graph;
    const seeds = Int32Array.from({length: 200}, (_, i) => i);
    const {offsets, ids} = sampleWithoutReplacement(g, seeds, 10, seededRng(1));
    seeds.forEach((v, i) => {
      const got = Array.from(ids.subarray(offsets[i], offsets[i + 1]));
      expect(new Set(got).size).to.equal(got.length);
      expect(got.length).to.equal(Math.min(10, g.degree(v)));
      for (const u of got) expect(Array.from(g.neighbors(v))).to.include(u);
    });
  });

  const chiSquareCritical = (df: number) => df * (1 - 2 / (9 * df) + 3.09 * Math.sqrt(2 / (9 * df))) ** 3; // upper 0.1%

  it('native sampling with replacement: real neighbours, uniform, seeded', async () => {
    const g = (await loadDataset(path.join(root, 'data', 'polblogs'))).graph;
    let v = 0;
    while (g.degree(v) < 30) ++v;
    const deg = g.degree(v);
    const draws = 300 * deg;
    // One seed vertex repeated: every position draws independently.
    const seeds = new Int32Array(draws / 10).fill(v);
    const {ids} = sampleNeighbors(g, seeds, 10, {seed: 7});
    const nb = new Set(g.neighbors(v));
    const counts = new Map<number, number>();
    for (const u of ids) {
      expect(nb.has(u)).to.equal(true);
      counts.set(u, (counts.get(u) ?? 0) + 1);
    }
    const expected = draws / deg;
    const chi2 = [...nb].reduce((acc, u) => acc + ((counts.get(u) ?? 0) - expected) ** 2 / expected, 0);
    expect(chi2).to.be.lessThan(chiSquareCritical(deg - 1));
    expect(Array.from(sampleNeighbors(g, seeds.subarray(0, 5), 4, {seed: 1}).ids)).to.deep.equal(
      Array.from(sampleNeighbors(g, seeds.subarray(0, 5), 4, {seed: 1}).ids),
    );
    expect(Array.from(sampleNeighbors(g, seeds.subarray(0, 5), 4, {seed: 1}).ids)).to.not.deep.equal(
      Array.from(sampleNeighbors(g, seeds.subarray(0, 5), 4, {seed: 2}).ids),
    );
    const lonely = CsrGraph.fromEdges(
      {numVertices: 3, src: Int32Array.from([0]), dst: Int32Array.from([1]), directed: false},
      {symmetric: true},
    );
    expect(Array.from(sampleNeighbors(lonely, Int32Array.from([2]), 3).ids)).to.deep.equal([2, 2, 2]);
    expect(() => sampleNeighbors(g, Int32Array.from([0, g.numVertices]), 2)).to.throw(
      /seed vertex 1222 at position 1 is not in \[0, 1222\)/,
    );
  });

  it('native sampling without replacement: distinct real neighbours, each equally likely', async () => {
    const g = (await loadDataset(path.join(root, 'data', 'polblogs'))).graph;
    const seeds = Int32Array.from({length: 300}, (_, i) => i);
    const {offsets, ids} = sampleNeighbors(g, seeds, 10, {replace: false, seed: 3});
    seeds.forEach((v, i) => {
      const got = Array.from(ids.subarray(offsets![i], offsets![i + 1]));
      expect(new Set(got).size).to.equal(got.length);
      expect(got.length).to.equal(Math.min(10, g.degree(v)));
      const nb = new Set(g.neighbors(v));
      for (const u of got) expect(nb.has(u)).to.equal(true);
    });
    let v = 0;
    while (g.degree(v) < 40) ++v;
    const deg = g.degree(v),
      reps = 3000,
      fan = 8;
    const many = sampleNeighbors(g, new Int32Array(reps).fill(v), fan, {replace: false, seed: 11});
    const counts = new Map<number, number>();
    for (const u of many.ids) counts.set(u, (counts.get(u) ?? 0) + 1);
    const expected = (reps * fan) / deg;
    const chi2 = [...new Set(g.neighbors(v))].reduce((acc, u) => acc + ((counts.get(u) ?? 0) - expected) ** 2 / expected, 0);
    // Inclusion counts of a fixed-size sample are less spread than multinomial ones: the bound is conservative.
    expect(chi2).to.be.lessThan(chiSquareCritical(deg - 1));
  });

  it('GPU sampling returns exactly what the CPU sampling returns', async function () {
    if (!wm.deviceInfo().gpu) this.skip();
    await tf.setBackend(wm.BACKEND_NAME);
    const g = (await loadDataset(path.join(root, 'data', 'polblogs'))).graph;
    const dev = new DeviceCsr(g);
    const seeds = Int32Array.from({length: 777}, (_, i) => (i * 13) % g.numVertices);
    const t = tf.tensor1d(seeds, 'int32');
    // Without replacement a group of lanes per seed up to a warp's fan-out (1, 4, 16 and 32 lanes here), a thread
    // per seed past it; rows shorter and longer than the fan-out; keyed by position or by vertex.
    for (const replace of [true, false])
      for (const fanout of replace ? [12] : [1, 3, 12, 17, 32, 33, 45])
        for (const keyBy of ['position', 'vertex'] as const) {
          const want = sampleNeighbors(g, seeds, fanout, {replace, seed: 42, keyBy});
          const got = dev.sample(t, fanout, {replace, seed: 42, keyBy});
          expect(Array.from(got.ids.dataSync()), `fan-out ${fanout}, keyed by ${keyBy}`).to.deep.equal(Array.from(want.ids));
          if (!replace) expect(Array.from(got.offsets!.dataSync())).to.deep.equal(Array.from(want.offsets!));
          tf.dispose([got.ids, got.offsets ?? []].flat());
        }
    expect(() => dev.sample(tf.tensor1d([5, -1], 'int32'), 2)).to.throw(/seed vertex -1 at position 1/);
    t.dispose();
    dev.dispose();
  });

  it('unique-and-relabel (tf.unique on int32): first-occurrence order and positions, against a Map', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const rng = seededRng(17);
    // Repeats and negatives; then the int32 extremes (the hash table's keys), every value the same, and all distinct.
    const cases = [0, 1, 7, 1000, 100003].map((n) =>
      Int32Array.from({length: n}, () => Math.floor(rng() * 2 * Math.max(1, n / 3)) - Math.floor(n / 3)),
    );
    cases.push(Int32Array.from([2147483647, -2147483648, 0, -1, 2147483647, -2147483648, -1]), new Int32Array(5000).fill(-7));
    cases.push(Int32Array.from({length: 70001}, (_, i) => (i * 2654435761) | 0));
    for (const x of cases) {
      const firstAt = new Map<number, number>();
      const values: number[] = [];
      const inverse = Array.from(x, (v) => {
        if (!firstAt.has(v)) {
          firstAt.set(v, values.length);
          values.push(v);
        }
        return firstAt.get(v)!;
      });
      const before = wm.fallbackCounts().Unique ?? 0;
      const got = tf.unique(tf.tensor1d(x, 'int32'));
      expect(wm.fallbackCounts().Unique ?? 0, 'ran natively').to.equal(before);
      expect(Array.from(got.values.dataSync())).to.deep.equal(values);
      expect(Array.from(got.indices.dataSync())).to.deep.equal(inverse);
      tf.dispose([got.values, got.indices]);
    }
  });

  it('aggregates neighbours (mean and sum), forward and gradient, on every backend, against a float64 reference', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const rng = seededRng(23);
    // [rows, cols, width, most entries a row]: widths for every lane-group size of the GPU kernel (1 to 32
    // lanes, float4 or not, several passes over a wide row), rows longer than a warp's worth of entries.
    for (const [rows, cols, dim, most] of [
      [1, 1, 1, 9],
      [37, 53, 3, 9],
      [200, 150, 64, 9],
      [64, 300, 33, 9],
      [5, 0, 4, 9],
      [70, 90, 256, 80],
      [33, 40, 130, 70],
      [50, 60, 128, 45],
      [41, 20, 12, 100],
      // rows past SPMM_CHUNK_ENTRIES (512), summed by chunks on the GPU
      [30, 200, 64, 1600],
      [9, 50, 3, 1200],
      [12, 80, 256, 1400],
      [7, 30, 520, 900],
    ] as const) {
      const {rowPtr, colIdx, xv, wv, ref: refOf} = randomProductCase(rng, rows, cols, dim, most);
      for (const reduce of ['mean', 'sum'] as const) {
        const ref = refOf(reduce);
        await expectAggregate(
          backendsFor(colIdx.length, dim),
          () => new wm.graph.CsrBlock(rowPtr, colIdx, cols),
          reduce,
          xv,
          wv,
          {rows, cols, dim},
          ref,
          reduce,
          true,
        );
      }
    }
    expect(() => new wm.graph.CsrBlock(Int32Array.from([0, 2]), Int32Array.from([0, 5]), 5)).to.throw(
      /colIdx\[1\] = 5 is outside \[0, 5\)/,
    );
    expect(() =>
      wm.graph.aggregate(tf.zeros([3, 2]) as tf.Tensor2D, new wm.graph.CsrBlock(Int32Array.from([0]), new Int32Array(0), 4)),
    ).to.throw(/x has 3 rows, the block reads 4/);
  });

  it('blocks whose columns stay on the device: the same products and gradients (mean, sum, gcn, scattered or not), columns read back only when asked', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const rng = seededRng(29);
    for (const [rows, cols, dim, most] of [
      [37, 53, 3, 9],
      [64, 300, 33, 9],
      [5, 0, 4, 9],
      [30, 200, 64, 1600],
    ] as const) {
      const {rowPtr, colIdx, xv, wv, ref: refOf} = randomProductCase(rng, rows, cols, dim, most);
      for (const reduce of ['mean', 'sum'] as const) {
        const ref = refOf(reduce);
        for (const scatter of [false, true]) {
          const make = () =>
            wm.graph.CsrBlock.onDevice(rowPtr.slice(), tf.tensor1d(colIdx, 'int32'), cols, {
              rowPtr: tf.tensor1d(rowPtr, 'int32'),
              scatter,
              rowEntriesAtMost: most, // past the GPU product's chunk (512) in the last case: its long rows still listed
            });
          await expectAggregate([wm.BACKEND_NAME], make, reduce, xv, wv, {rows, cols, dim}, ref, `${reduce} scatter ${scatter}`, true);
        }
      }
      if (rows <= cols) {
        // GCN normalises by the block's own degrees: the columns read back on the host, the same result as a host block.
        const x = tf.tensor2d(xv, [cols, dim]);
        const host = new wm.graph.CsrBlock(rowPtr, colIdx, cols),
          dev = wm.graph.CsrBlock.onDevice(rowPtr.slice(), tf.tensor1d(colIdx, 'int32'), cols);
        const [a, b] = [wm.graph.aggregate(x, host, 'gcn'), wm.graph.aggregate(x, dev, 'gcn')];
        expect(Array.from(b.dataSync())).to.deep.equal(Array.from(a.dataSync()));
        tf.dispose([x, a, b]);
        host.dispose();
        dev.dispose();
      }
      const before = tf.memory().numTensors;
      const block = wm.graph.CsrBlock.onDevice(rowPtr.slice(), tf.tensor1d(colIdx, 'int32'), cols);
      expect(block.numEntries).to.equal(colIdx.length);
      expect(Array.from(block.arrays.colIdx)).to.deep.equal(Array.from(colIdx));
      expect(Array.from(block.entryRows)).to.deep.equal(Array.from(new wm.graph.CsrBlock(rowPtr, colIdx, cols).entryRows));
      block.dispose();
      expect(tf.memory().numTensors).to.equal(before);
    }
    const cols = tf.tensor1d([0, 1], 'int32');
    expect(() => wm.graph.CsrBlock.onDevice(Int32Array.from([0, 3]), cols, 2)).to.throw(/colIdx has 2 entries, rowPtr ends at 3/);
    cols.dispose();
  });

  it('the GPU product by column slabs: any slab width gives the same bits, a bad WM_SPMM_SLAB is named', async function () {
    if (!wm.deviceInfo().gpu) this.skip();
    await tf.setBackend(wm.BACKEND_NAME);
    const rng = seededRng(31);
    // 600 entries in some rows: the long-row chunks go by slabs too.
    const {rowPtr, colIdx} = randomBlock(rng, 40, 50, 600, () => Math.floor(rng() * 50));
    const block = new wm.graph.CsrBlock(rowPtr, colIdx, 50);
    const x = tf.tensor2d(
      Float32Array.from({length: 50 * 300}, () => rng() * 2 - 1),
      [50, 300],
    );
    const saved = process.env.WM_SPMM_SLAB;
    try {
      const runWith = (slab: string | undefined) => {
        if (slab === undefined) delete process.env.WM_SPMM_SLAB;
        else process.env.WM_SPMM_SLAB = slab;
        const y = wm.graph.aggregate(x, block, 'mean');
        const v = Array.from(y.dataSync());
        y.dispose();
        return v;
      };
      const whole = runWith('100000');
      // Each output sums its entries in the same order whatever the slab: equal bits.
      for (const slab of [undefined, '12', '13', '64', '296']) expect(runWith(slab), `WM_SPMM_SLAB=${slab}`).to.deep.equal(whole);
      // Refused before anything is allocated: no tensor and no device buffer left behind.
      const buffers = () => tf.engine().backend.numDataIds();
      const before = [tf.memory().numTensors, buffers()];
      for (const bad of ['abc', '3', '-8', '64k'])
        expect(() => runWith(bad)).to.throw(new RegExp(`WM_SPMM_SLAB must be an integer of at least 4.*"${bad}"`));
      expect([tf.memory().numTensors, buffers()]).to.deep.equal(before);
    } finally {
      if (saved === undefined) delete process.env.WM_SPMM_SLAB;
      else process.env.WM_SPMM_SLAB = saved;
      x.dispose();
      block.dispose();
    }
  });

  it('splits long rows into chunks for the GPU product: every entry in one chunk, in order', () => {
    const rowPtr = Int32Array.from([0, 2, 9, 9, 16]),
      colIdx = new Int32Array(16);
    const got = csrSplits({rowPtr, colIdx, numRows: 4, numCols: 1}, 3)!;
    // Rows 1 (7 entries) and 3 (7 entries) are long: 3 chunks each starting at 2, 5, 8 and 9, 12, 15.
    expect(got.numLong).to.equal(2);
    expect(got.numChunks).to.equal(6);
    expect(Array.from(got.array)).to.deep.equal([
      1, 3, /* chunkPtr */ 0, 3, 6, /* chunkRow */ 1, 1, 1, 3, 3, 3, /* chunkStart */ 2, 5, 8, 9, 12, 15,
    ]);
    expect(csrSplits({rowPtr, colIdx, numRows: 4, numCols: 1}, 7)).to.equal(undefined);
  });

  it('transposes blocks: each entry once, the transposed rows in forward order, weights multiplied; small and large blocks, empty rows, hubs', () => {
    const rng = seededRng(41);
    // The first difference, named (chai's deep equality is slow on arrays this long).
    const same = (got: ArrayLike<number>, want: ArrayLike<number>, what: string) => {
      expect(got.length, `${what}: length`).to.equal(want.length);
      for (let i = 0; i < want.length; ++i) if (got[i] !== want[i]) expect(got[i], `${what}[${i}]`).to.equal(want[i]);
    };
    for (const [rows, cols, perRow, hub] of [
      [7, 5, 2, false],
      [300, 40, 20, true],
      [20000, 3000, 3, false],
      [6000, 70000, 9, true],
      [0, 4, 0, false],
    ] as Array<[number, number, number, boolean]>) {
      const rowPtr = new Int32Array(rows + 1);
      for (let r = 0; r < rows; ++r) rowPtr[r + 1] = rowPtr[r] + Math.floor(rng() * (2 * perRow + 1));
      const m = rowPtr[rows];
      // With a hub, a third of the entries name column 0.
      const colIdx = Int32Array.from({length: m}, () => (hub && rng() < 1 / 3 ? 0 : Math.floor(rng() * cols)));
      const entryWeight = Float32Array.from({length: m}, () => rng() + 0.5),
        rowWeight = Float32Array.from({length: rows}, () => rng() + 0.5);
      // Reference: for each column, its entries in forward order.
      const lists: number[][] = Array.from({length: cols}, () => []);
      const rowOf = new Int32Array(m);
      for (let r = 0; r < rows; ++r)
        for (let e = rowPtr[r]; e < rowPtr[r + 1]; ++e) {
          lists[colIdx[e]].push(e);
          rowOf[e] = r;
        }
      const edges = lists.flat();
      const wantPtr = new Int32Array(cols + 1);
      lists.forEach((l, c) => (wantPtr[c + 1] = wantPtr[c] + l.length));
      for (const w of [{}, {entryWeight}, {rowWeight}, {entryWeight, rowWeight}] as Array<{
        entryWeight?: Float32Array;
        rowWeight?: Float32Array;
      }>) {
        const got = transpose({rowPtr, colIdx, numRows: rows, numCols: cols}, w);
        const what = `${rows} x ${cols}, ${m} entries, weights ${Object.keys(w).join('+') || 'none'}`;
        expect([got.numRows, got.numCols], what).to.deep.equal([cols, rows]);
        same(got.rowPtr, wantPtr, `${what}: rowPtr`);
        same(got.edge!, edges, `${what}: edge`);
        same(
          got.colIdx,
          edges.map((e) => rowOf[e]),
          `${what}: colIdx`,
        );
        if (!w.entryWeight && !w.rowWeight) expect(got.weight, what).to.equal(undefined);
        else
          same(
            got.weight!,
            edges.map((e) => Math.fround((w.entryWeight ? w.entryWeight[e] : 1) * (w.rowWeight ? w.rowWeight[rowOf[e]] : 1))),
            `${what}: weight`,
          );
      }
    }
  });

  it("aggregates with GCN's symmetric normalisation (self loops added once), forward and gradient, on every backend, against a float64 reference", async () => {
    const rng = seededRng(29);
    const cases: Array<[number, number, number, number]> = [
      [1, 1, 1, 0],
      [37, 53, 3, 0.3],
      [150, 150, 64, 0.1],
      [64, 300, 33, 0],
      [0, 5, 4, 0],
      [0, 0, 2, 0],
      [3, 3, 5, 1],
    ];
    for (const [rows, cols, dim, selfShare] of cases) {
      // Repeats allowed, as sampling with replacement gives.
      const {rowPtr, colIdx} = randomBlock(rng, rows, cols, 9, (r) => (rng() < selfShare ? r : Math.floor(rng() * cols)));
      // Entries of A + I: each row's list plus itself when it does not list itself.
      const lists = Array.from({length: rows}, (_, r) => {
        const list = Array.from(colIdx.subarray(rowPtr[r], rowPtr[r + 1]));
        return list.includes(r) ? list : [r, ...list];
      });
      const colDeg = new Float64Array(cols);
      lists.flat().forEach((c) => ++colDeg[c]);
      const xv = Float32Array.from({length: cols * dim}, () => rng() * 2 - 1);
      const wv = Float32Array.from({length: rows * dim}, () => rng() * 2 - 1);
      const ref = referenceProduct(rows, cols, dim, xv, wv, (r) =>
        lists[r].map((c): [number, number] => [c, 1 / Math.sqrt(lists[r].length * colDeg[c])]),
      );
      await expectAggregate(
        backendsFor(colIdx.length, dim),
        () => new wm.graph.CsrBlock(rowPtr, colIdx, cols),
        'gcn',
        xv,
        wv,
        {rows, cols, dim},
        ref,
        'gcn',
        false,
      );
      // With the graph's degrees (each at least the row's listed entries): self loop 1 / d(r), each
      // listed entry (degrees[r] / listed) / sqrt(d(r) d(c)), d = degrees + 1.
      const degrees = Int32Array.from({length: cols}, (_, v) => (v < rows ? rowPtr[v + 1] - rowPtr[v] : 0) + Math.floor(rng() * 20));
      const refDeg = referenceProduct(rows, cols, dim, xv, wv, (r) => {
        const listed = rowPtr[r + 1] - rowPtr[r],
          dr = degrees[r] + 1;
        return [
          [r, 1 / dr] as [number, number],
          ...Array.from(colIdx.subarray(rowPtr[r], rowPtr[r + 1]), (c): [number, number] => [
            c,
            degrees[r] / listed / Math.sqrt(dr * (degrees[c] + 1)),
          ]),
        ];
      });
      await expectAggregate(
        backendsFor(colIdx.length, dim),
        () => new wm.graph.CsrBlock(rowPtr, colIdx, cols, degrees),
        'gcn',
        xv,
        wv,
        {rows, cols, dim},
        refDeg,
        'gcn with degrees',
        false,
      );
    }
    await tf.setBackend(wm.BACKEND_NAME);
    expect(() => new wm.graph.CsrBlock(Int32Array.from([0, 1]), Int32Array.from([0]), 2, Int32Array.from([1]))).to.throw(
      /degrees must be an Int32Array of numCols \(2\) entries/,
    );
    expect(() => new wm.graph.CsrBlock(Int32Array.from([0, 1]), Int32Array.from([0]), 2, Int32Array.from([1, -1]))).to.throw(
      /degrees\[1\] = -1 is negative/,
    );
    // A whole graph: the weights are 1 / sqrt((deg(u) + 1) (deg(v) + 1)) with the graph's degrees.
    const g = (await loadDataset(path.join(root, 'data', 'polblogs'))).graph;
    const block = wm.graph.CsrBlock.fromGraph(g);
    const deg = (v: number) => g.rowPtr[v + 1] - g.rowPtr[v];
    const ones = tf.ones([g.numVertices, 1]) as tf.Tensor2D;
    const rowSums = wm.graph.aggregate(ones, block, 'gcn').dataSync();
    for (const v of [0, 1, 17, g.numVertices - 1]) {
      let s = 1 / (deg(v) + 1);
      for (let e = g.rowPtr[v]; e < g.rowPtr[v + 1]; ++e) s += 1 / Math.sqrt((deg(v) + 1) * (deg(g.colIdx[e]) + 1));
      expect(rowSums[v]).to.be.closeTo(s, 1e-5);
    }
    // A sampled subgraph that left nothing out gives its seeds the whole graph's rows; one that left
    // neighbours out gives each seed the same row whatever the other seeds of its batch.
    const x = tf.randomNormal([g.numVertices, 5], 0, 1, 'float32', 4) as tf.Tensor2D;
    const whole = wm.graph.aggregate(x, block, 'gcn').arraySync();
    const seeds = Int32Array.from([0, 1, 17, 400, g.numVertices - 1]);
    const rowsOf = (ids: Int32Array, fanout: number) => {
      const sub = wm.graph.sampleSubgraph(g, ids, [fanout], {seed: 3, keyBy: 'vertex'});
      const layer = sub.layers[0];
      const out = tf.tidy(() =>
        wm.graph.aggregate(tf.gather(x, tf.tensor1d(layer.src, 'int32')) as tf.Tensor2D, layer.block, 'gcn').arraySync(),
      );
      sub.dispose();
      return out;
    };
    rowsOf(seeds, 100000).forEach((row, i) => row.forEach((v, j) => expect(v).to.be.closeTo(whole[seeds[i]][j], 1e-5)));
    const alone = rowsOf(seeds.subarray(2, 3), 5)[0],
      together = rowsOf(seeds, 5)[2];
    together.forEach((v, j) => expect(v).to.be.closeTo(alone[j], 1e-6));
    tf.dispose([ones, x]);
    block.dispose();
    expect(() =>
      wm.graph.aggregate(
        tf.zeros([2, 3]) as tf.Tensor2D,
        new wm.graph.CsrBlock(Int32Array.from([0, 1, 2, 3]), Int32Array.from([0, 1, 0]), 2),
        'gcn',
      ),
    ).to.throw(/'gcn' adds each row's self loop, so the block's rows must be its first columns: it has 3 rows and 2 columns/);
    expect(() =>
      wm.graph.aggregate(
        tf.zeros([2, 3]) as tf.Tensor2D,
        new wm.graph.CsrBlock(Int32Array.from([0]), new Int32Array(0), 2),
        'max' as never,
      ),
    ).to.throw(/reduce must be 'mean', 'sum' or 'gcn', got 'max'/);
  });

  it('native negative pairs: never edges nor loops, uniform sources, seeded; the GPU returns the same pairs', async () => {
    const g = (await loadDataset(path.join(root, 'data', 'polblogs'))).graph;
    const count = 200000;
    const a = wm.graph.sampleNegativePairs(g, count, {seed: 9});
    const b = wm.graph.sampleNegativePairs(g, count, {seed: 9});
    expect(Array.from(a.src.subarray(0, 100))).to.deep.equal(Array.from(b.src.subarray(0, 100)));
    const hist = new Float64Array(g.numVertices);
    for (let i = 0; i < count; ++i) {
      const u = a.src[i],
        v = a.dst[i];
      if (u === v || Array.from(g.neighbors(u)).includes(v)) throw new Error(`pair ${i} (${u}, ${v}) is an edge or a loop`);
      ++hist[u];
    }
    // Sources: uniform up to the (few) rejections of dense rows; chi-square well under its 0.1% critical value.
    const expected = count / g.numVertices;
    let chi = 0;
    for (const h of hist) chi += (h - expected) ** 2 / expected;
    expect(chi).to.be.lessThan(g.numVertices + 4.5 * Math.sqrt(2 * g.numVertices));
    expect(() =>
      wm.graph.sampleNegativePairs(
        CsrGraph.fromEdges({numVertices: 2, src: Int32Array.from([0]), dst: Int32Array.from([1]), directed: false}, {symmetric: true}),
        3,
      ),
    ).to.throw(/too dense/);
    if (wm.deviceInfo().gpu) {
      await tf.setBackend(wm.BACKEND_NAME);
      const dev = new DeviceCsr(g);
      const got = wm.graph.deviceNegativePairs(dev, count, {seed: 9});
      expect(Array.from(got.src.dataSync())).to.deep.equal(Array.from(a.src));
      expect(Array.from(got.dst.dataSync())).to.deep.equal(Array.from(a.dst));
      tf.dispose([got.src, got.dst]);
      dev.dispose();
    }
  });

  it('sampled compact subgraphs: real neighbours, outputs a prefix of inputs; with whole neighbourhoods the model computes what the full graph gives', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const g = (await loadDataset(path.join(root, 'data', 'polblogs'))).graph;
    const seeds = Int32Array.from({length: 64}, (_, i) => (i * 37) % g.numVertices);
    const sub = wm.graph.sampleSubgraph(g, seeds, [5, 3], {seed: 11});
    expect(Array.from(sub.layers[1].dst)).to.deep.equal(Array.from(seeds));
    for (const layer of sub.layers) {
      expect(Array.from(layer.src.subarray(0, layer.dst.length))).to.deep.equal(Array.from(layer.dst));
      expect(new Set(layer.src).size).to.equal(layer.src.length);
      const p = layer.block.product('sum', false);
      for (let r = 0; r < layer.dst.length; ++r) {
        const nb = new Set(g.neighbors(layer.dst[r]));
        const row = p.colIdx.subarray(p.rowPtr[r], p.rowPtr[r + 1]);
        expect(row.length).to.equal(Math.min(layer === sub.layers[1] ? 5 : 3, nb.size));
        expect(new Set(row).size, 'without replacement').to.equal(row.length);
        for (const c of row) expect(nb.has(layer.src[c]), `${layer.src[c]} is a neighbour of ${layer.dst[r]}`).to.equal(true);
      }
    }
    sub.dispose();
    expect(() => wm.graph.sampleSubgraph(g, Int32Array.from([1, 1]), [2])).to.throw(/seeds must be distinct/);
    // Fan-outs above every degree sample whole neighbourhoods: the subgraph
    // forward must equal the full-graph forward on the seeds.
    let maxDegree = 0;
    for (let v = 0; v < g.numVertices; ++v) maxDegree = Math.max(maxDegree, g.degree(v));
    const model = new wm.nn.GraphSageClassifier({
      numNodes: g.numVertices,
      numClasses: 2,
      embeddingDim: 16,
      hiddenDim: 8,
      numLayers: 2,
      dropout: 0.5,
      seed: 4,
      embeddingLearningRate: 0.01,
    });
    const whole = wm.graph.sampleSubgraph(g, seeds, [maxDegree, maxDegree], {seed: 1});
    const full = wm.nn.fullGraph(g);
    const a = model.forward(whole),
      b = tf.gather(model.forwardFull(full), tf.tensor1d(seeds, 'int32'));
    const av = a.dataSync(),
      bv = b.dataSync();
    for (let i = 0; i < av.length; ++i)
      if (Math.abs(av[i] - bv[i]) > 1e-4 * (1 + Math.abs(bv[i]))) throw new Error(`[${i}] ${av[i]} != ${bv[i]}`);
    tf.dispose([a, b]);
    whole.dispose();
    full.dispose();
    model.dispose();
  });

  it("meanOfNeighbors: the mean of each row's sampled rows and its gradient, against float64 (odd widths, fan-out 1, no rows)", async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const rng = seededRng(21);
    for (const [inputs, numDst, fanout, dim] of [
      [37, 11, 3, 5],
      [300, 64, 25, 128],
      [9, 9, 1, 130],
      [50, 20, 4, 1],
      [6, 0, 2, 8],
    ]) {
      const x = Float32Array.from({length: inputs * dim}, () => rng() * 2 - 1);
      const nb = Int32Array.from({length: numDst * fanout}, () => Math.floor(rng() * inputs));
      const dy = Float32Array.from({length: numDst * dim}, () => rng() * 2 - 1);
      const layer = {numDst, fanout, neighbors: tf.tensor1d(nb, 'int32')};
      const xt = tf.tensor2d(x, [inputs, dim]);
      const out = wm.graph.meanOfNeighbors(xt, layer);
      const g = tf.grad((h: tf.Tensor) =>
        tf.sum(tf.mul(wm.graph.meanOfNeighbors(h as tf.Tensor2D, layer), tf.tensor2d(dy, [numDst, dim]))),
      )(xt);
      expect(out.shape).to.deep.equal([numDst, dim]);
      const ov = out.dataSync(),
        gv = g.dataSync();
      const want = new Float64Array(inputs * dim);
      for (let r = 0; r < numDst; ++r) {
        for (let d = 0; d < dim; ++d) {
          let acc = 0;
          for (let e = 0; e < fanout; ++e) {
            acc += x[nb[r * fanout + e] * dim + d];
            want[nb[r * fanout + e] * dim + d] += dy[r * dim + d] / fanout;
          }
          expect(ov[r * dim + d], `out[${r}, ${d}] (${inputs}, ${numDst}, ${fanout}, ${dim})`).to.be.closeTo(acc / fanout, 1e-5);
        }
      }
      want.forEach((w, i) => expect(gv[i], `grad[${i}]`).to.be.closeTo(w, 1e-5));
      tf.dispose([out, g, xt, layer.neighbors]);
    }
  });

  it("sampling trees where the graph lives: the host sampler's draws, each depth's layers as GraphSAGE computes them, the same gradients", async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const g = CsrGraph.fromEdges(rmat({scale: 9, edgeFactor: 3, seed: 8}), {symmetric: true});
    const seeds = Int32Array.from({length: 41}, (_, i) => (i * 37) % g.numVertices);
    const comm = soloCommunicator();
    const holder = wm.deviceInfo().gpu ? new DeviceCsr(g) : wm.graph.WholeMemoryCsr.create(comm, g, {location: 'host'});
    const tree = wm.graph.sampleTree(holder, seeds, [4, 3], {seed: 17});
    const onHost = wm.graph.sampleTree(g, seeds, [4, 3], {seed: 17});
    // The host chain with the same hop seeds: the depths one after the other are the input rows.
    const host: Int32Array[] = [seeds];
    [4, 3].forEach((f, hop) => host.push(sampleNeighbors(g, host[hop], f, {seed: 17 + hop * 0x9e3779b9}).ids));
    const chain = host.flatMap((d) => Array.from(d));
    expect(chain.length).to.equal(41 + 164 + 492);
    expect(Array.from((tree.inputIds as tf.Tensor1D).dataSync())).to.deep.equal(chain);
    expect(Array.from(onHost.inputIds as Int32Array)).to.deep.equal(chain);
    // Layer 0 computes depths 0 and 1 (fan-outs 4 and 3: a block), layer 1 depth 0 (fan-out 4: a fixed layer).
    expect(tree.layers.map((l) => (wm.graph.isFixedLayer(l) ? `fixed ${l.numDst}x${l.fanout}` : `block ${l.block.numRows}`))).to.deep.equal(
      ['block 205', 'fixed 41x4'],
    );
    // Two identical models, one fed each way; the embedding step (three lookups' rows, merged) included.
    const make = () =>
      new wm.nn.GraphSageClassifier({
        numNodes: g.numVertices,
        numClasses: 3,
        embeddingDim: 12,
        hiddenDim: 7,
        numLayers: 2,
        dropout: 0,
        seed: 4,
        embeddingLearningRate: 0.01,
      });
    const models = [make(), make()];
    const y = tf.oneHot(
      tf.tensor1d(
        Int32Array.from(seeds, (v) => v % 3),
        'int32',
      ),
      3,
    );
    // GraphSAGE over a tree as its paper computes it: each depth's rows from its own rows and its children's
    // (the children's positions kept for the backward pass, which reads them after the forward's tidy).
    const ranges: tf.Tensor[] = [];
    const byDepth = (model: wm.nn.GraphSageClassifier, depths: Int32Array[], fanouts: number[]) => {
      let h = depths.map((ids) => model.inputs.lookup(ids));
      model.convs.forEach((conv) => {
        h = h.slice(0, -1).map((hd, d) => {
          const n = hd.shape[0],
            f = fanouts[d];
          const neighbors = tf.keep(tf.range(n, n + n * f, 1, 'int32') as tf.Tensor1D);
          ranges.push(neighbors);
          const layer = {numDst: n, fanout: f, neighbors};
          return conv.apply(tf.concat([hd, h[d + 1]]), {graph: layer}) as tf.Tensor2D;
        });
      });
      return h[0];
    };
    const run = (model: wm.nn.GraphSageClassifier, logits: () => tf.Tensor2D) => {
      const {value, grads} = tf.variableGrads(() => tf.losses.softmaxCrossEntropy(y, logits()) as tf.Scalar, model.trainableVariables);
      model.inputs.step();
      const out = {loss: value.dataSync()[0], grads: model.denseVariables.map((v) => Array.from(grads[v.name].dataSync()))};
      tf.dispose([value, ...Object.values(grads)]);
      return out;
    };
    const a = run(models[0], () => models[0].forward(tree)),
      b = run(models[1], () => byDepth(models[1], host, [4, 3]));
    tf.dispose(ranges);
    const third = make(); // the host's tree through a third identical model
    const c = run(third, () => third.forward(onHost));
    third.dispose();
    expect(c.loss).to.be.closeTo(b.loss, 1e-5);
    expect(a.loss).to.be.closeTo(b.loss, 1e-5);
    a.grads.forEach((ga, i) =>
      ga.forEach((x, j) => expect(x, `grad ${i}[${j}]`).to.be.closeTo(b.grads[i][j], 1e-5 * (1 + Math.abs(b.grads[i][j])))),
    );
    const touched = Int32Array.from(new Set(host.flatMap((d) => Array.from(d))));
    const [ra, rb] = models.map((m) => m.embedding!.read(touched));
    const rav = ra.dataSync(),
      rbv = rb.dataSync();
    rbv.forEach((x, i) => expect(rav[i], `row value ${i}`).to.be.closeTo(x, 1e-6));
    const fresh = make();
    const before = fresh.embedding!.read(touched);
    fresh.dispose();
    expect(
      before.dataSync().some((x, i) => Math.abs(x - rbv[i]) > 1e-4),
      'the step moved the rows',
    ).to.equal(true);
    tf.dispose([ra, rb, before]);
    // Trees of 20 batch sizes with dropout, twice: each pass's backward reads the layers it was given; a few
    // shapes' layers are kept for the next step (a bounded count: the second round adds none).
    const start = tf.memory().numTensors;
    const m = new wm.nn.GraphSageClassifier({...models[0].config, dropout: 0.3});
    const afterRound: number[] = [];
    let oneShape = 0;
    for (let k = 1; k <= 40; ++k) {
      const s = seeds.subarray(0, 20 + (k % 20) + 1);
      const blk = wm.graph.sampleTree(holder, s, [4, 3], {seed: k});
      const yk = tf.tidy(() =>
        tf.oneHot(
          tf.tensor1d(
            Int32Array.from(s, (v) => v % 3),
            'int32',
          ),
          3,
        ),
      );
      const {value, grads} = tf.variableGrads(
        () => tf.losses.softmaxCrossEntropy(yk, m.forward(blk, k)) as tf.Scalar,
        m.trainableVariables,
      );
      expect(Number.isFinite(value.dataSync()[0]), `batch of ${s.length}`).to.equal(true);
      m.inputs.step();
      blk.dispose();
      tf.dispose([value, yk, ...Object.values(grads)]);
      if (k === 1) oneShape = tf.memory().numTensors - start;
      if (k % 20 === 0) afterRound.push(tf.memory().numTensors - start);
    }
    m.dispose();
    expect(afterRound[1]).to.equal(afterRound[0]);
    expect(afterRound[1]).to.be.at.most(8 * oneShape); // eight unused shapes kept at most
    expect(() => wm.graph.sampleTree(holder, Int32Array.from([0, g.numVertices]), [2])).to.throw(
      `sampleTree: seed vertex ${g.numVertices} at position 1 is not in [0, ${g.numVertices})`,
    );
    expect(() => wm.graph.sampleTree(holder, seeds, [2, 0])).to.throw(/fanouts\[1\] must be a positive integer, got 0/);
    tree.dispose();
    onHost.dispose();
    y.dispose();
    models.forEach((m) => m.dispose());
    if (holder instanceof DeviceCsr) holder.dispose();
    else holder.free();
  });

  it("fixed fan-out subgraphs sampled where the graph lives: the host sampler's draws and order, the same logits and gradients", async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    // Sparse enough to have vertices without neighbours (they sample themselves).
    const g = CsrGraph.fromEdges(rmat({scale: 10, edgeFactor: 2, seed: 6}), {symmetric: true});
    const rng = seededRng(5);
    const pool = Int32Array.from({length: g.numVertices}, (_, i) => i);
    for (let i = pool.length - 1; i > 0; --i) {
      const j = Math.floor(rng() * (i + 1));
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    const seeds = pool.slice(0, 97);
    expect(Array.from(seeds).some((v) => g.degree(v) === 0)).to.equal(true);
    const comm = soloCommunicator();
    const holder = wm.deviceInfo().gpu ? new DeviceCsr(g) : wm.graph.WholeMemoryCsr.create(comm, g, {location: 'host'});
    const fixed = wm.graph.sampleFixedSubgraph(holder, seeds, [5, 3], {seed: 11});
    const host = wm.graph.sampleSubgraph(g, seeds, [5, 3], {seed: 11, replace: true});
    expect(Array.from(fixed.inputIds.dataSync())).to.deep.equal(Array.from(host.layers[0].src));
    fixed.layers.forEach((layer, l) => {
      expect(layer.numDst).to.equal(host.layers[l].dst.length);
      expect(Array.from(layer.neighbors.dataSync())).to.deep.equal(Array.from(host.layers[l].block.product('sum', false).colIdx));
    });
    const model = new wm.nn.GraphSageClassifier({
      numNodes: g.numVertices,
      numClasses: 3,
      embeddingDim: 12,
      hiddenDim: 7,
      numLayers: 2,
      dropout: 0,
      seed: 4,
      embeddingLearningRate: 0.01,
    });
    const y = tf.oneHot(
      tf.tensor1d(
        Int32Array.from(seeds, (v) => v % 3),
        'int32',
      ),
      3,
    );
    const run = (f: () => tf.Tensor2D) => {
      const {value, grads} = tf.variableGrads(() => tf.losses.softmaxCrossEntropy(y, f()) as tf.Scalar, model.denseVariables);
      model.inputs.step();
      return {loss: value.dataSync()[0], grads: model.denseVariables.map((v) => Array.from(grads[v.name].dataSync()))};
    };
    const a = run(() => model.forward(fixed, 0)),
      b = run(() => model.forward(host, 0));
    expect(a.loss).to.be.closeTo(b.loss, 1e-5);
    a.grads.forEach((ga, i) =>
      ga.forEach((x, j) => expect(x, `grad ${i}[${j}]`).to.be.closeTo(b.grads[i][j], 1e-5 * (1 + Math.abs(b.grads[i][j])))),
    );
    expect(() => wm.graph.sampleFixedSubgraph(holder, Int32Array.from([1, 2, 1]), [2])).to.throw(
      /seeds must be distinct \(3 seeds, 2 distinct\)/,
    );
    expect(() => wm.graph.sampleFixedSubgraph(holder, seeds, [2, 0])).to.throw(/fanouts\[1\] must be a positive integer, got 0/);
    expect(() => wm.graph.sampleFixedSubgraph(holder, Int32Array.from([3, g.numVertices, 5]), [2])).to.throw(
      `sampleFixedSubgraph: seed vertex ${g.numVertices} at position 1 is not in [0, ${g.numVertices})`,
    );
    expect(() => wm.graph.sampleFixedSubgraph(holder, Int32Array.from([-1]), [2])).to.throw(/seed vertex -1 at position 0/);
    // Seeds as a tensor are checked by the sampler (the error flag), with the same words.
    const badSeeds = tf.tensor1d([4, -2], 'int32');
    expect(() => wm.graph.sampleFixedSubgraph(holder, badSeeds, [2])).to.throw(/seed vertex -2 at position 1 is not in/);
    badSeeds.dispose();
    fixed.dispose();
    host.dispose();
    y.dispose();
    model.dispose();
    if (holder instanceof DeviceCsr) holder.dispose();
    else holder.free();
  });

  it("fixed subgraphs sampled on the side stream while the main stream is busy: the host sampler's draws every time, nothing leaked", async function () {
    if (!wm.deviceInfo().gpu) this.skip();
    await tf.setBackend(wm.BACKEND_NAME);
    const g = CsrGraph.fromEdges(rmat({scale: 12, edgeFactor: 8, seed: 9}), {symmetric: true});
    const dev = new DeviceCsr(g);
    const a = tf.randomNormal([2048, 2048]);
    wm.backend().devicePtr(a); // made on the host: uploaded now, not inside the measured loop
    // One sampling first: the graph keeps a vertex map for relabelling from then on (freed with the graph).
    wm.graph.sampleFixedSubgraph(dev, Int32Array.from([0, 1, 2]), [2, 2], {seed: 1}).dispose();
    await wm.synchronize();
    const before = wm.memoryInfo();
    for (let i = 0; i < 40; ++i) {
      // Main-stream work queued ahead (and a tensor freed inside the sampling's reach): the side stream must neither wait for it nor race it.
      let busy = a;
      for (let k = 0; k < 3; ++k) {
        const next = tf.matMul(busy, a);
        if (busy !== a) busy.dispose();
        busy = next;
      }
      const seeds = Int32Array.from({length: 300}, (_, k) => (k * 7 + i * 131) % g.numVertices);
      const fixed = wm.graph.sampleFixedSubgraph(dev, seeds, [6, 4], {seed: 100 + i});
      busy.dispose();
      // Read on the main stream, after its queued work: the results must be complete.
      const viaMain = tf.tidy(() => tf.add(fixed.inputIds, tf.zerosLike(fixed.inputIds)));
      const host = wm.graph.sampleSubgraph(g, seeds, [6, 4], {seed: 100 + i, replace: true});
      expect(Array.from(viaMain.dataSync()), `step ${i} input ids`).to.deep.equal(Array.from(host.layers[0].src));
      fixed.layers.forEach((layer, l) => {
        expect(Array.from(layer.neighbors.dataSync()), `step ${i} layer ${l}`).to.deep.equal(
          Array.from(host.layers[l].block.product('sum', false).colIdx),
        );
      });
      // Tensor seeds made on the main stream (the side stream waits for them).
      const uploaded = tf.tensor1d(seeds, 'int32');
      const t = tf.tidy(() => tf.add(uploaded, tf.zerosLike(uploaded))) as tf.Tensor1D;
      const fromTensor = wm.graph.sampleFixedSubgraph(dev, t, [6, 4], {seed: 100 + i});
      expect(Array.from(fromTensor.inputIds.dataSync())).to.deep.equal(Array.from(host.layers[0].src));
      tf.dispose([viaMain, t, uploaded]);
      fromTensor.dispose();
      fixed.dispose();
      host.dispose();
    }
    await wm.synchronize();
    const after = wm.memoryInfo();
    expect(after.numTensors).to.equal(before.numTensors);
    expect(after.deviceBytesInUse).to.equal(before.deviceBytesInUse);
    a.dispose();
    dev.dispose();
    await wm.synchronize();
    // The graph's arrays and its vertex map are gone with it.
    const freed = before.deviceBytesInUse - wm.memoryInfo().deviceBytesInUse;
    expect(freed).to.be.at.least(4 * 2048 * 2048 + 4 * (g.numVertices + 1 + g.numEdges) + 4 * g.numVertices);
  });

  it("the GPU's vertex map past its last stamp: set back to all ones, every sample still the host sampler's", async function () {
    if (!wm.deviceInfo().gpu) this.skip();
    await tf.setBackend(wm.BACKEND_NAME);
    const g = CsrGraph.fromEdges(rmat({scale: 10, edgeFactor: 8, seed: 4}), {symmetric: true});
    const dev = new DeviceCsr(g);
    try {
      const seeds = Int32Array.from({length: 200}, (_, k) => (k * 13) % g.numVertices);
      const check = (seed: number) => {
        const fixed = wm.graph.sampleFixedSubgraph(dev, seeds, [5, 3], {seed});
        const host = wm.graph.sampleSubgraph(g, seeds, [5, 3], {seed, replace: true});
        expect(Array.from(fixed.inputIds.dataSync()), `seed ${seed}`).to.deep.equal(Array.from(host.layers[0].src));
        fixed.layers.forEach((layer, l) =>
          expect(Array.from(layer.neighbors.dataSync()), `seed ${seed} layer ${l}`).to.deep.equal(
            Array.from(host.layers[l].block.product('sum', false).colIdx),
          ),
        );
        fixed.dispose();
        host.dispose();
      };
      check(1);
      // Three stamps left: the calls of two samplings (one a hop) use them up, and the map is refilled on the way.
      (dev.vertexMap as unknown as {stamp: number}).stamp = 3;
      for (let seed = 2; seed < 6; ++seed) check(seed);
      expect((dev.vertexMap as unknown as {stamp: number}).stamp).to.be.above(0xfffffff0);
    } finally {
      dev.dispose();
    }
  });

  it('draws keyed by vertex: a vertex gets the same neighbours wherever it stands, in either sampler, on the CPU and the GPU', async () => {
    const g = (await loadDataset(path.join(root, 'data', 'polblogs'))).graph;
    const a = Int32Array.from({length: 50}, (_, i) => (i * 17) % g.numVertices);
    const b = a.slice().reverse();
    for (const replace of [true, false]) {
      const x = sampleNeighbors(g, a, 7, {replace, seed: 3, keyBy: 'vertex'}),
        y = sampleNeighbors(g, b, 7, {replace, seed: 3, keyBy: 'vertex'});
      const rows = (r: {offsets?: Int32Array; ids: Int32Array}, i: number) =>
        Array.from(r.offsets ? r.ids.subarray(r.offsets[i], r.offsets[i + 1]) : r.ids.subarray(i * 7, (i + 1) * 7));
      for (let i = 0; i < a.length; ++i) expect(rows(x, i)).to.deep.equal(rows(y, a.length - 1 - i));
      // Keyed by position (the default) the draws differ.
      const p = sampleNeighbors(g, a, 7, {replace, seed: 3}),
        q = sampleNeighbors(g, b, 7, {replace, seed: 3});
      expect(
        Array.from({length: a.length}, (_, i) => rows(p, i)).some(
          (r, i) => JSON.stringify(r) !== JSON.stringify(rows(q, a.length - 1 - i)),
        ),
      ).to.equal(true);
    }
    expect(() => sampleNeighbors(g, a, 2, {keyBy: 'edge' as never})).to.throw(/keyBy must be/);
    // The GPU sampler draws what the CPU draws, keyed by vertex too.
    if (wm.deviceInfo().gpu) {
      await tf.setBackend(wm.BACKEND_NAME);
      const dev = new DeviceCsr(g);
      for (const replace of [true, false]) {
        const host = sampleNeighbors(g, b, 7, {replace, seed: 3, keyBy: 'vertex'});
        const got = dev.sample(tf.tensor1d(b, 'int32'), 7, {replace, seed: 3, keyBy: 'vertex'});
        expect(Array.from(got.ids.dataSync())).to.deep.equal(Array.from(host.ids));
        if (!replace) expect(Array.from(got.offsets!.dataSync())).to.deep.equal(Array.from(host.offsets!));
        tf.dispose([got.ids, got.offsets ?? []].flat());
      }
      dev.dispose();
    }
  });

  it('the native CSR builder returns exactly what the TypeScript one does, and names a bad edge', () => {
    for (const [scale, symmetric] of [
      [4, true],
      [10, false],
      [12, true],
    ] as const) {
      const e = rmat({scale, edgeFactor: 8, seed: scale});
      // Duplicates and self loops on purpose.
      const src = Int32Array.from([...e.src, 0, 0, 3, 3]),
        dst = Int32Array.from([...e.dst, 0, 1, 2, 2]);
      const edges = {...e, src, dst};
      const a = CsrGraph.fromEdges(edges, {symmetric}),
        b = CsrGraph.fromEdgesInScript(edges, {symmetric});
      expect(Array.from(a.rowPtr)).to.deep.equal(Array.from(b.rowPtr));
      expect(Array.from(a.colIdx)).to.deep.equal(Array.from(b.colIdx));
    }
    const empty = CsrGraph.fromEdges({numVertices: 3, src: new Int32Array(0), dst: new Int32Array(0), directed: false}, {symmetric: true});
    expect(Array.from(empty.rowPtr)).to.deep.equal([0, 0, 0, 0]);
    expect(() =>
      CsrGraph.fromEdges({numVertices: 3, src: Int32Array.from([0, 5]), dst: Int32Array.from([1, 1]), directed: false}, {symmetric: true}),
    ).to.throw(/edge 1 \(5, 1\) names a vertex outside \[0, 3\)/);
  });

  it('the native R-MAT generator draws exactly what the TypeScript one draws', () => {
    for (const o of [
      {scale: 3, seed: 1},
      {scale: 12, edgeFactor: 5, seed: 77},
      {scale: 10, seed: 4294967301, permute: false},
      {scale: 9, a: 0.45, b: 0.25, c: 0.15, seed: 0},
      {scale: 15, edgeFactor: 8, seed: 9},
    ]) {
      // enough edges for the C++ to draw on several threads
      const x = rmat(o),
        y = rmat({...o, inScript: true});
      expect(x.numVertices).to.equal(y.numVertices);
      expect(Array.from(x.src)).to.deep.equal(Array.from(y.src));
      expect(Array.from(x.dst)).to.deep.equal(Array.from(y.dst));
    }
  });

  it('R-MAT with any vertex count keeps the subgraph induced by the first ids', () => {
    const full = rmat({scale: 11, edgeFactor: 6, seed: 21}),
      part = rmat({scale: 11, edgeFactor: 6, seed: 21, vertices: 1500});
    expect(part.numVertices).to.equal(1500);
    const want: string[] = [];
    full.src.forEach((u, i) => {
      if (u < 1500 && full.dst[i] < 1500) want.push(`${u},${full.dst[i]}`);
    });
    expect(want.length).to.be.greaterThan(0).and.lessThan(full.src.length);
    expect(Array.from(part.src, (u, i) => `${u},${part.dst[i]}`)).to.deep.equal(want);
    expect(() => rmat({scale: 4, vertices: 17})).to.throw(/vertices must be an integer in \[1, 2\^scale = 16\], got 17/);
    expect(() => rmat({scale: 4, vertices: 8, permute: false})).to.throw(/needs permute/);
  });

  it('graphs built by hand are checked before any sampler reads them', () => {
    const bad = [
      [new CsrGraph(Int32Array.from([0, 2, 1, 3]), Int32Array.from([1, 2, 0])), /rowPtr decreases at vertex 1 \(2 then 1\)/],
      [new CsrGraph(Int32Array.from([0, 1, 2, 3]), Int32Array.from([1, 7, 0])), /colIdx\[1\] = 7 is not a vertex in \[0, 3\)/],
    ] as const;
    for (const [g, why] of bad) {
      expect(() => sampleNeighbors(g, Int32Array.from([0]), 2)).to.throw(why);
      expect(() => wm.graph.sampleNegativePairs(g, 2)).to.throw(why);
      expect(() => wm.graph.WholeMemoryCsr.create(soloCommunicator(), g, {location: 'host'})).to.throw(why);
    }
    const good = new CsrGraph(Int32Array.from([0, 1, 2, 2]), Int32Array.from([1, 0]));
    expect(good.validate()).to.equal(good);
    expect(sampleNeighbors(good, Int32Array.from([0, 1, 2]), 1).ids.length).to.equal(3);
  });

  it('saves a CSR graph to files and loads it back; truncated or unfinished saves are refused', () => {
    const g = CsrGraph.fromEdges(rmat({scale: 9, edgeFactor: 5, seed: 2}), {symmetric: true});
    const dir = tempDir('wm-csr-');
    try {
      saveCsr(g, dir);
      const h = loadCsr(dir);
      expect(Array.from(h.rowPtr)).to.deep.equal(Array.from(g.rowPtr));
      expect(Array.from(h.colIdx)).to.deep.equal(Array.from(g.colIdx));
      const patch = (file: string, at: number, value: number) => {
        const fd = fs.openSync(path.join(dir, file), 'r+');
        fs.writeSync(fd, Buffer.from(Int32Array.of(value).buffer), 0, 4, 4 * at);
        fs.closeSync(fd);
      };
      patch('col_idx.i32', 5, g.numVertices);
      expect(() => loadCsr(dir)).to.throw(new RegExp(`colIdx\\[5\\] = ${g.numVertices} is not a vertex in \\[0, ${g.numVertices}\\)`));
      patch('col_idx.i32', 5, g.colIdx[5]);
      patch('row_ptr.i32', 3, g.rowPtr[4] + 1);
      expect(() => loadCsr(dir)).to.throw(/loadCsr: .*rowPtr decreases at vertex 3/);
      patch('row_ptr.i32', 3, g.rowPtr[3]);
      expect(loadCsr(dir).numEdges).to.equal(g.numEdges);
      fs.truncateSync(path.join(dir, 'col_idx.i32'), 8);
      expect(() => loadCsr(dir)).to.throw(/col_idx.i32 holds 8 bytes, the header promises \d+ int32 values/);
      fs.rmSync(path.join(dir, 'header.json'));
      expect(() => loadCsr(dir)).to.throw(/has no header.json/);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('generates seeded R-MAT graphs with skewed degrees', () => {
    const a = rmat({scale: 10, edgeFactor: 8, seed: 4});
    const b = rmat({scale: 10, edgeFactor: 8, seed: 4});
    expect(a.numVertices).to.equal(1024);
    expect(a.src.length).to.equal(8192);
    expect(Array.from(a.src)).to.deep.equal(Array.from(b.src));
    expect(Math.max(...a.src, ...a.dst)).to.be.lessThan(1024);
    const g = CsrGraph.fromEdges(a, {symmetric: true});
    const degrees = Array.from({length: g.numVertices}, (_, v) => g.degree(v));
    const mean = degrees.reduce((x, y) => x + y, 0) / degrees.length;
    expect(Math.max(...degrees)).to.be.greaterThan(5 * mean);
    expect(() => rmat({scale: 0})).to.throw(/scale must be an integer in \[1, 31\]/);
  });

  it('splits edges and draws negatives that are never edges', async () => {
    const g = (await loadDataset(path.join(root, 'data', 'polblogs'))).graph;
    const s = splitEdges(g, 0.05, 0.1, seededRng(2));
    const total = s.trainEdges.src.length + s.valEdges.src.length + s.testEdges.src.length;
    expect(total).to.equal(g.numEdges / 2);
    for (const neg of [s.valNegatives, s.testNegatives, sampleNegatives(g, 500, seededRng(5))]) {
      neg.src.forEach((u, i) => {
        expect(u).to.not.equal(neg.dst[i]);
        expect(Array.from(g.neighbors(u))).to.not.include(neg.dst[i]);
      });
    }
    expect(s.train.numEdges / 2).to.equal(s.trainEdges.src.length);
  });

  it('computes AUC and Hits@K as defined', () => {
    expect(rocAuc([3, 4], [1, 2])).to.equal(1);
    expect(rocAuc([1, 2], [3, 4])).to.equal(0);
    expect(rocAuc([1, 1], [1, 1])).to.equal(0.5);
    expect(rocAuc([0.9, 0.4], [0.5, 0.1])).to.equal(0.75);
    expect(hitsAtK([5, 3, 1], [4, 2, 0], 1)).to.be.closeTo(1 / 3, 1e-12);
    expect(hitsAtK([5, 3, 1], [4, 2, 0], 2)).to.be.closeTo(2 / 3, 1e-12);
  });

  it('learns link prediction on polblogs (AUC well above chance)', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const g = (await loadDataset(path.join(root, 'data', 'polblogs'))).graph;
    const before = tf.memory().numTensors;
    const best = await trainLinkPrediction(g, {epochs: 15, dim: 32, batchSize: 1024, learningRate: 0.02});
    expect(best.testAuc).to.be.greaterThan(0.8);
    expect(tf.memory().numTensors).to.equal(before);
  });
});

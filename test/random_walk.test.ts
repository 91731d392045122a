// Random walks (DeepWalk, node2vec): every step an edge, each step's
// distribution node2vec's (chi-square against the exact weights over every
// (previous, current) pair of a random graph, including rows where rejection
// fails and the exact draw runs), seeded, the GPU walking what the CPU walks,
// skip-gram pairs against a plain loop, and argument errors.
import {spawnSync} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {CsrGraph} from '../src/graph/csr';
import {loadDataset} from '../src/graph/dataset';
import {DeviceCsr} from '../src/graph/device_csr';
import {pairsFromOps} from '../src/graph/random_walk';
import {soloCommunicator} from '../src/memory/communicator';
import {Embedding} from '../src/nn/embedding';
import {logisticProbe, trainNode2Vec} from '../src/train/node2vec';
import {seededRng} from '../src/util/random';
import {tempDir} from './temp_dirs';

const root = path.resolve(__dirname, '..', '..');
const {randomVertices, randomWalks, walkPairs} = wm.graph;

function randomGraph(n: number, m: number, seed: number): CsrGraph {
  const r = seededRng(seed);
  const src = Int32Array.from({length: m}, () => Math.floor(r() * n)),
    dst = Int32Array.from({length: m}, () => Math.floor(r() * n));
  return CsrGraph.fromEdges({numVertices: n, src, dst, directed: false}, {symmetric: true});
}

// node2vec's unnormalised weight of stepping cur -> x after prev.
function weight(g: CsrGraph, prev: number, x: number, p: number, q: number): number {
  if (x === prev) return 1 / p;
  return g.neighbors(prev).includes(x) ? 1 : 1 / q;
}

// Sum over every (prev, cur) seen at least minCount times of the chi-square
// statistic of the next vertex's counts against node2vec's probabilities,
// and the degrees of freedom; the first step (no prev) is checked as uniform.
function chiSquare(
  g: CsrGraph,
  walks: Int32Array,
  length: number,
  p: number,
  q: number,
  minCount: number,
): {chi2: number; df: number; pairs: number} {
  const counts = new Map<string, Map<number, number>>();
  for (let w = 0; w < walks.length / length; ++w) {
    for (let s = 1; s < length; ++s) {
      const prev = s >= 2 ? walks[w * length + s - 2] : -1,
        cur = walks[w * length + s - 1];
      const key = `${prev},${cur}`;
      const m = counts.get(key) ?? new Map<number, number>();
      m.set(walks[w * length + s], (m.get(walks[w * length + s]) ?? 0) + 1);
      counts.set(key, m);
    }
  }
  let chi2 = 0,
    df = 0,
    pairs = 0;
  for (const [key, m] of counts) {
    const [prev, cur] = key.split(',').map(Number);
    const row = Array.from(g.neighbors(cur));
    if (row.length < 2) continue;
    const total = [...m.values()].reduce((a, b) => a + b, 0);
    if (total < minCount) continue;
    const w = row.map((x) => (prev < 0 ? 1 : weight(g, prev, x, p, q)));
    const sum = w.reduce((a, b) => a + b, 0);
    for (const x of m.keys()) expect(row, `step ${cur} -> ${x} is an edge`).to.include(x);
    row.forEach((x, i) => {
      const expected = (total * w[i]) / sum;
      chi2 += ((m.get(x) ?? 0) - expected) ** 2 / expected;
    });
    df += row.length - 1;
    ++pairs;
  }
  return {chi2, df, pairs};
}

const chiSquareCritical = (df: number) => df * (1 - 2 / (9 * df) + 3.09 * Math.sqrt(2 / (9 * df))) ** 3; // upper 0.1%

describe('random walks', () => {
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  it('every step is an edge, the start first; seeded; a vertex without neighbours keeps the walk', async () => {
    const g = (await loadDataset(path.join(root, 'data', 'polblogs'))).graph;
    const starts = Int32Array.from({length: 500}, (_, i) => (i * 7) % g.numVertices);
    for (const opts of [{}, {p: 0.25, q: 4}, {p: 4, q: 0.5}]) {
      const walks = randomWalks(g, starts, 23, {...opts, seed: 3});
      expect(walks.length).to.equal(500 * 23);
      for (let w = 0; w < 500; ++w) {
        expect(walks[w * 23]).to.equal(starts[w]);
        for (let s = 1; s < 23; ++s) {
          const u = walks[w * 23 + s - 1],
            v = walks[w * 23 + s];
          if (g.degree(u) === 0) expect(v).to.equal(u);
          else expect(Array.from(g.neighbors(u)), `walk ${w} step ${s}`).to.include(v);
        }
      }
      expect(Array.from(randomWalks(g, starts, 23, {...opts, seed: 3}))).to.deep.equal(Array.from(walks));
      expect(Array.from(randomWalks(g, starts, 23, {...opts, seed: 4}))).to.not.deep.equal(Array.from(walks));
    }
    const lonely = CsrGraph.fromEdges(
      {numVertices: 3, src: Int32Array.from([0]), dst: Int32Array.from([1]), directed: false},
      {symmetric: true},
    );
    expect(Array.from(randomWalks(lonely, Int32Array.from([2, 0]), 4, {p: 2}))).to.deep.equal([2, 2, 2, 2, 0, 1, 0, 1]);
    expect(randomWalks(g, new Int32Array(0), 5).length).to.equal(0);
    expect(Array.from(randomWalks(g, Int32Array.from([5, 9]), 1))).to.deep.equal([5, 9]);
  });

  it("each step follows node2vec's distribution: uniform, p/q either way, and weights far apart (the exact draw)", () => {
    const g = randomGraph(40, 160, 11);
    const starts = Int32Array.from({length: 40 * 400}, (_, i) => i % 40);
    for (const [p, q] of [
      [1, 1],
      [0.25, 4],
      [4, 0.25],
      [1e-3, 1],
      [1, 1e3],
    ]) {
      const walks = randomWalks(g, starts, 12, {p, q, seed: 5});
      const {chi2, df, pairs} = chiSquare(g, walks, 12, p, q, 300);
      expect(pairs, `p ${p} q ${q}: (prev, cur) pairs with enough steps`).to.be.greaterThan(40);
      expect(chi2, `p ${p} q ${q}: chi-square over ${df} degrees of freedom`).to.be.lessThan(chiSquareCritical(df));
    }
    // A hub whose every row entry is 'far' but one: with p = 1e-3 a try
    // accepts about once in 200, so most steps take the exact draw.
    const n = 300;
    const src = Int32Array.from({length: n - 1}, () => 0),
      dst = Int32Array.from({length: n - 1}, (_, i) => i + 1);
    const star = CsrGraph.fromEdges({numVertices: n, src, dst, directed: false}, {symmetric: true});
    const walks = randomWalks(
      star,
      Int32Array.from({length: 20000}, (_, i) => 1 + (i % (n - 1))),
      3,
      {p: 1e-3, seed: 9},
    );
    let back = 0;
    for (let w = 0; w < 20000; ++w) back += walks[w * 3 + 2] === walks[w * 3] ? 1 : 0;
    const want = 1000 / (1000 + (n - 2));
    expect(back / 20000).to.be.closeTo(want, 5 * Math.sqrt((want * (1 - want)) / 20000));
    // The other steps spread evenly over the leaves (by symmetry: starts cycle over the leaves).
    const hits = new Float64Array(n);
    for (let w = 0; w < 20000; ++w) if (walks[w * 3 + 2] !== walks[w * 3]) hits[walks[w * 3 + 2]]++;
    const others = 20000 - back,
      expected = others / (n - 1);
    const chi2 = hits.subarray(1).reduce((acc, h) => acc + (h - expected) ** 2 / expected, 0);
    expect(hits[0]).to.equal(0);
    expect(chi2).to.be.lessThan(chiSquareCritical(n - 2));
  });

  it('skip-gram pairs: every two positions at most window apart, both ways, against a loop', async () => {
    const r = seededRng(2);
    for (const [n, length, window] of [
      [7, 9, 3],
      [5, 4, 10],
      [3, 1, 2],
      [0, 6, 2],
      [300, 20, 5],
    ]) {
      const values = Int32Array.from({length: n * length}, () => Math.floor(r() * 1000));
      const walks = tf.tensor2d(values, [n, length], 'int32');
      const {center, context} = walkPairs(walks, window);
      const got = new Map<string, number>();
      const c = await center.data(),
        x = await context.data();
      expect(c.length).to.equal(x.length);
      for (let i = 0; i < c.length; ++i) got.set(`${c[i]},${x[i]}`, (got.get(`${c[i]},${x[i]}`) ?? 0) + 1);
      const want = new Map<string, number>();
      for (let w = 0; w < n; ++w) {
        for (let i = 0; i < length; ++i) {
          for (let j = 0; j < length; ++j) {
            if (i === j || Math.abs(i - j) > window) continue;
            const key = `${values[w * length + i]},${values[w * length + j]}`;
            want.set(key, (want.get(key) ?? 0) + 1);
          }
        }
      }
      expect(got).to.deep.equal(want);
      // The native op keeps the order of the tfjs slices it replaced.
      const ref = pairsFromOps(walks, window);
      expect(Array.from(c)).to.deep.equal(Array.from(await ref.center.data()));
      expect(Array.from(x)).to.deep.equal(Array.from(await ref.context.data()));
      tf.dispose([walks, center, context, ref.center, ref.context]);
    }
    expect(() => walkPairs(tf.zeros([2, 3]) as tf.Tensor2D, 2)).to.throw(/walks must be an int32 \[n, length\] tensor/);
    expect(() => walkPairs(tf.zeros([2, 3], 'int32') as tf.Tensor2D, 0)).to.throw(/window must be a positive integer/);
  });

  it('random vertex ids: uniform, seeded, the same on the CPU and the GPU; bad arguments named', async () => {
    const ids = randomVertices(70000, 7, {seed: 3});
    expect(ids.dtype).to.equal('int32');
    const v = await ids.data();
    const hits = new Float64Array(7);
    v.forEach((x) => hits[x]++);
    const chi2 = hits.reduce((acc, h) => acc + (h - 10000) ** 2 / 10000, 0);
    expect(chi2).to.be.lessThan(chiSquareCritical(6));
    const draw = async (seed: number) => {
      const t = randomVertices(50, 1000, {seed});
      const a = Array.from(await t.data());
      t.dispose();
      return a;
    };
    expect(await draw(3)).to.deep.equal(await draw(3));
    expect(await draw(4)).to.not.deep.equal(await draw(3));
    const none = randomVertices(0, 5);
    expect(none.shape).to.deep.equal([0]);
    none.dispose();
    if (wm.deviceInfo().gpu) {
      // The CPU core's draws, from the same backend's host path.
      const host = new Int32Array(70000);
      (await import('../src/native/device')).native().randomVertices(host.length, 7, 3, host);
      expect(Array.from(v)).to.deep.equal(Array.from(host));
    }
    ids.dispose();
    expect(() => randomVertices(-1, 5)).to.throw(/count must be a non-negative integer, got -1/);
    expect(() => randomVertices(3, 0)).to.throw(/numVertices must be an integer in \[1, 2\^31\), got 0/);
    expect(() => randomVertices(3, 5, {seed: 1.5})).to.throw(/seed must be a non-negative integer, got 1.5/);
  });

  it('bad arguments: clear errors naming the argument, nothing walked', () => {
    const g = randomGraph(10, 20, 1);
    const s = Int32Array.from([0, 1]);
    expect(() => randomWalks(g, s, 0)).to.throw(
      /length \(vertices per walk, the start included\) must be an integer in \[1, 2\^20\], got 0/,
    );
    expect(() => randomWalks(g, s, 2.5)).to.throw(/length .* got 2.5/);
    expect(() => randomWalks(g, s, 3, {p: 0})).to.throw(/p must be a number in \[1e-6, 1e6\], got 0/);
    expect(() => randomWalks(g, s, 3, {q: NaN})).to.throw(/q must be a number in \[1e-6, 1e6\], got NaN/);
    expect(() => randomWalks(g, s, 3, {seed: -1})).to.throw(/seed must be a non-negative integer/);
    expect(() => randomWalks(g, Int32Array.from([3, 10]), 3)).to.throw(/seed vertex 10 at position 1 is not in \[0, 10\)/);
    const unsorted = new CsrGraph(Int32Array.from([0, 2, 3, 4]), Int32Array.from([2, 1, 0, 0]));
    expect(Array.from(randomWalks(unsorted, Int32Array.from([1]), 3)).length).to.equal(3); // uniform walks test no edges
    expect(() => randomWalks(unsorted, Int32Array.from([1]), 3, {p: 2})).to.throw(
      /neighbours of vertex 0 are not in ascending order \(2,1\)/,
    );
    expect(() => wm.graph.sampleNegativePairs(unsorted, 2)).to.throw(/neighbours of vertex 0 are not in ascending order/);
    const broken = new CsrGraph(Int32Array.from([0, 1, 2]), Int32Array.from([1, 7]));
    expect(() => randomWalks(broken, Int32Array.from([0]), 3)).to.throw(/colIdx\[1\] = 7 is not a vertex in \[0, 2\)/);
  });

  it('a graph in shared WholeMemory walks what a local copy walks', function () {
    if (wm.deviceInfo().gpu) this.skip(); // the GPU case is in the next test
    const g = randomGraph(60, 200, 4);
    const held = wm.graph.WholeMemoryCsr.create(soloCommunicator(), g, {location: 'host'});
    const starts = Int32Array.from({length: 99}, (_, i) => (i * 5) % 60);
    for (const opts of [{seed: 1}, {p: 0.5, q: 3, seed: 2}]) {
      const got = held.randomWalks(tf.tensor1d(starts, 'int32'), 9, opts);
      expect(got.shape).to.deep.equal([99, 9]);
      expect(Array.from(got.dataSync())).to.deep.equal(Array.from(randomWalks(g, starts, 9, opts)));
      got.dispose();
    }
    held.free();
  });

  it('the GPU walks exactly what the CPU walks (device graph and WholeMemory), and names a bad start', async function () {
    if (!wm.deviceInfo().gpu) this.skip();
    const g = (await loadDataset(path.join(root, 'data', 'polblogs'))).graph;
    const n = 300;
    const star = CsrGraph.fromEdges(
      {numVertices: n, src: new Int32Array(n - 1), dst: Int32Array.from({length: n - 1}, (_, i) => i + 1), directed: false},
      {symmetric: true},
    );
    for (const graph of [g, star, randomGraph(40, 160, 11)]) {
      const dev = new DeviceCsr(graph);
      const held = wm.graph.WholeMemoryCsr.create(soloCommunicator(), graph);
      const starts = Int32Array.from({length: 3001}, (_, i) => (i * 13) % graph.numVertices);
      const t = tf.tensor1d(starts, 'int32');
      for (const opts of [{seed: 1}, {p: 0.25, q: 4, seed: 2}, {p: 1e-3, seed: 3}, {q: 1e3, seed: 4}]) {
        const want = Array.from(randomWalks(graph, starts, 17, opts));
        for (const got of [dev.randomWalks(t, 17, opts), held.randomWalks(t, 17, opts)]) {
          expect(got.shape).to.deep.equal([3001, 17]);
          expect(Array.from(await got.data())).to.deep.equal(want);
          got.dispose();
        }
      }
      const bad = tf.tensor1d([1, -4], 'int32'),
        none = tf.tensor1d([], 'int32');
      const before = wm.memoryInfo().numTensors;
      expect(() => dev.randomWalks(bad, 3)).to.throw(/seed vertex -4 at position 1/);
      expect(wm.memoryInfo().numTensors, 'nothing left behind').to.equal(before);
      const empty = dev.randomWalks(none, 3);
      expect(empty.shape).to.deep.equal([0, 3]);
      tf.dispose([t, bad, none, empty]);
      dev.dispose();
      held.free();
    }
  });

  it("node2vec training: embeddings that separate polblogs' classes (untrained ones do not), nothing leaked, bad options named", async () => {
    const data = await loadDataset(path.join(root, 'data', 'polblogs'));
    const untrained = new Embedding({rows: data.graph.numVertices, dim: 32, init: {type: 'normal', scale: 0.2, seed: 1}});
    const chance = await logisticProbe(untrained, data.labels, data.numClasses, {seed: 1});
    untrained.dispose();
    const before = wm.memoryInfo();
    const losses: number[] = [];
    const {embedding, epochs} = await trainNode2Vec(
      data.graph,
      {epochs: 2, dim: 32, p: 2, q: 0.5, seed: 1},
      (m) => void losses.push(m.loss),
    );
    expect(epochs.map((e) => e.loss)).to.deep.equal(losses);
    expect(losses[1]).to.be.lessThan(losses[0]);
    const trained = await logisticProbe(embedding, data.labels, data.numClasses, {seed: 1});
    embedding.dispose();
    expect(chance.testAcc, 'random embeddings').to.be.lessThan(0.7);
    expect(trained.testAcc, 'trained embeddings').to.be.greaterThan(0.86);
    const after = wm.memoryInfo();
    expect(after.numTensors).to.equal(before.numTensors);
    expect(after.deviceBytesInUse).to.equal(before.deviceBytesInUse);
    expect(after.numBytes).to.equal(before.numBytes);
    for (const [bad, why] of [
      [{window: 0}, /window must be a positive integer, got 0/],
      [{walkLength: 1}, /walkLength must be at least 2/],
      [{q: -1}, /q must be a number in \[1e-6, 1e6\], got -1/],
    ] as const) {
      await trainNode2Vec(data.graph, bad).then(
        () => expect.fail('accepted'),
        (e: Error) => expect(e.message).to.match(why),
      );
    }
    expect(wm.memoryInfo().numTensors).to.equal(before.numTensors);
  });

  it('the example names a bad option and its rule, without a stack trace', () => {
    const example = path.resolve(__dirname, '..', 'examples', 'node2vec.js');
    for (const [args, why] of [
      [['--window', '0'], /option '--window <n>' argument '0' is invalid. --window must be a positive integer/],
      [['-q', 'x'], /option '-q <x>' argument 'x' is invalid. -q must be a positive number/],
    ] as const) {
      const r = spawnSync(process.execPath, [example, ...args], {encoding: 'utf8'});
      expect(r.status).to.not.equal(0);
      expect(r.stderr).to.match(why);
      expect(r.stderr).to.not.match(/\n\s+at /);
    }
  });

  it("the example's link task: held-out edges scored above non-edges, reported at the best validation epoch", function () {
    this.timeout(120000);
    const example = path.resolve(__dirname, '..', 'examples', 'node2vec.js');
    const out = tempDir('wm-n2v-links-');
    try {
      const data = path.resolve(__dirname, '..', '..', 'data', 'polblogs');
      const r = spawnSync(process.execPath, [example, '--task', 'links', '--data', data, '--epochs', '2', '--out', out], {
        encoding: 'utf8',
        env: {...process.env, TFJS_WHOLEMEMORY_DEVICE: 'cpu'},
      });
      expect(r.status, r.stderr).to.equal(0);
      const m = /best validation epoch (\d): test AUC ([\d.]+), test Hits@50 ([\d.]+)/.exec(r.stdout)!;
      expect(Number(m[2])).to.be.greaterThan(0.85);
      const best = fs
        .readFileSync(path.join(out, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .find((x) => x.type === 'summary').best;
      expect(best.epoch).to.equal(Number(m[1]));
      expect(wm.train.readEmbeddingText(path.join(out, 'embeddings.txt')).keys.length).to.equal(1490); // every vertex of the edge file
    } finally {
      fs.rmSync(out, {recursive: true, force: true});
    }
  });

  it("the example on 2 ranks: both tables shared in WholeMemory, each epoch's walks split, embeddings as good", function () {
    this.timeout(120000);
    const launcher = path.resolve(__dirname, '..', 'bin', 'tfjs-wm-run.js');
    const example = path.resolve(__dirname, '..', 'examples', 'node2vec.js');
    const out = tempDir('wm-n2v-');
    try {
      const r = spawnSync(process.execPath, [launcher, '-n', '2', example, '--epochs', '2', '--dim', '32', '--out', out], {
        encoding: 'utf8',
        env: {...process.env, TFJS_WHOLEMEMORY_DEVICE: 'cpu'},
      });
      expect(r.status, r.stderr).to.equal(0);
      expect(r.stdout).to.match(/2 ranks sharing continuous tables/);
      const acc = Number(/probe test accuracy ([\d.]+) ±/.exec(r.stdout)![1]);
      expect(acc).to.be.greaterThan(86);
      const records = fs
        .readFileSync(path.join(out, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(records.filter((x) => x.type === 'epoch').length).to.equal(2);
      expect(records.find((x) => x.type === 'summary').ranks).to.equal(2);
    } finally {
      fs.rmSync(out, {recursive: true, force: true});
    }
  });

  it('embeddings in word2vec text format: every row back exactly, with its key, in chunks; bad files named', () => {
    const dir = tempDir('wm-emb-text-');
    try {
      const emb = new Embedding({rows: 1001, dim: 7, init: {type: 'normal', scale: 3, seed: 5}});
      const keys = Int32Array.from({length: 1001}, (_, i) => 5000 + 3 * i);
      const file = path.join(dir, 'sub', 'e.txt');
      wm.train.writeEmbeddingText(emb, file, {keys, chunkRows: 64});
      const back = wm.train.readEmbeddingText(file);
      const t = emb.read(Int32Array.from({length: 1001}, (_, i) => i));
      expect(Array.from(back.values)).to.deep.equal(Array.from(t.dataSync()));
      expect(back.keys).to.deep.equal(Array.from(keys, String));
      expect(back.dim).to.equal(7);
      expect(fs.readdirSync(path.join(dir, 'sub'))).to.deep.equal(['e.txt']); // no partial file left
      t.dispose();
      emb.dispose();
      fs.writeFileSync(path.join(dir, 'bad.txt'), '2 3\na 1 2 3\nb 1 x 3\n');
      expect(() => wm.train.readEmbeddingText(path.join(dir, 'bad.txt'))).to.throw(/line 3, value 2 "x" is not a number/);
      fs.writeFileSync(path.join(dir, 'short.txt'), '3 2\na 1 2\n');
      expect(() => wm.train.readEmbeddingText(path.join(dir, 'short.txt'))).to.throw(/the header says 3 rows, the file holds 1/);
      fs.writeFileSync(path.join(dir, 'inf.txt'), '1 3\nk inf -Infinity nan\n');
      const special = wm.train.readEmbeddingText(path.join(dir, 'inf.txt')).values;
      expect([special[0], special[1], Number.isNaN(special[2])]).to.deep.equal([Infinity, -Infinity, true]);
      const small = new Embedding({rows: 2, dim: 1});
      expect(() => wm.train.writeEmbeddingText(small, path.join(dir, 'k.txt'), {keys: [1]})).to.throw(/keys holds 1 names for 2 rows/);
      small.dispose();
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });
});

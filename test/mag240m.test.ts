// MAG240M at any size: the generated graph of its shape (counts, relations both ways, homophily, labelled share,
// features made on request, the same graph for the same seed), and OGB-LSC's processed arrays read as a typed graph: relations from [2, m] int64 and [m, 2]
// int32 edge matrices against a reference built here (row d: the sources of the edges into d, every edge kept),
// counts from the arrays, the given counts and the largest ids, float16 features mapped and read through the
// trainer's feature tables, NaN labels as unlabelled, the split from the years; bad folders named.
import {spawnSync} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import {float16ToFloat32, float32ToFloat16, npyHeader, writeNpy} from '../src/data/npy';
import {readLscArrays} from '../src/graph/lsc_arrays';
import {MAG240M_COUNTS, mag240mShaped} from '../src/graph/mag240m_shaped';
import {edgeTypeKey, HeteroGraph} from '../src/graph/hetero_graph';
import {NativeFeatures} from '../src/graph/native_features';
import * as wm from '../src/index';
import {FeatureTables} from '../src/nn/typed_neighbor_loader';
import {trainTypedNodeClassification} from '../src/train/typed_node_classification';
import {seededRng} from '../src/util/random';
import {tempDir} from './temp_dirs';

// Row d of each relation: the sources of the edges into d, ascending, repeats kept.
function reference(src: Int32Array, dst: Int32Array, rows: number): number[][] {
  const out: number[][] = Array.from({length: rows}, () => []);
  src.forEach((s, i) => out[dst[i]].push(s));
  for (const r of out) r.sort((a, b) => a - b);
  return out;
}

function rowsOf(g: HeteroGraph, key: string): number[][] {
  const r = g.relations.get(key)!;
  const n = r.graph.numVertices;
  const off = r.graph.offsets(0, n + 1);
  const cols = r.graph.columns(0, r.numEdges);
  return Array.from({length: n}, (_, v) => Array.from(cols.subarray(Number(off[v]), Number(off[v + 1]))));
}

describe("OGB-LSC's processed arrays (MAG240M's layout)", function () {
  this.timeout(120000);
  let dir: string;
  const papers = 60,
    authors = 80,
    dim = 8;
  const rng = seededRng(5);
  const ids = (m: number, n: number) => Int32Array.from({length: m}, () => Math.floor(rng() * n));
  const writes = {src: ids(200, authors - 3), dst: ids(200, papers)}; // the last 3 authors write nothing
  const affiliated = {src: ids(90, authors - 3), dst: ids(90, 4)};
  const cites = {src: ids(150, papers), dst: ids(150, papers)};
  // A paper citing itself and a citation given twice are kept, as the data says.
  cites.src[0] = cites.dst[0] = 7;
  cites.src[1] = 3;
  cites.dst[1] = 9;
  cites.src[2] = 3;
  cites.dst[2] = 9;
  const feats = Float32Array.from({length: papers * dim}, () => rng() * 2 - 1);
  const labels = Float32Array.from({length: papers}, (_, i) => (i % 4 === 3 ? NaN : i % 5));
  const years = BigInt64Array.from({length: papers}, (_, i) => BigInt(2015 + (i % 6)));

  const write = (root: string) => {
    const p = path.join(root, 'mag240m_kddcup2021', 'processed');
    const rel = (key: string) => {
      fs.mkdirSync(path.join(p, key), {recursive: true});
      return path.join(p, key);
    };
    // [2, m] int64, as OGB saves them; one relation as [m, 2] int32.
    const int64Matrix = (e: {src: Int32Array; dst: Int32Array}) => BigInt64Array.from([...e.src, ...e.dst].map((x) => BigInt(x)));
    writeNpy(path.join(rel('author___writes___paper'), 'edge_index.npy'), int64Matrix(writes), [2, writes.src.length]);
    writeNpy(path.join(rel('paper___cites___paper'), 'edge_index.npy'), int64Matrix(cites), [2, cites.src.length]);
    const pairs = Int32Array.from({length: 2 * affiliated.src.length}, (_, k) => (k % 2 ? affiliated.dst : affiliated.src)[k >> 1]);
    writeNpy(path.join(rel('author___affiliated_with___institution'), 'edge_index.npy'), pairs, [affiliated.src.length, 2]);
    const bits = float32ToFloat16(feats);
    fs.mkdirSync(path.join(p, 'paper'), {recursive: true});
    fs.writeFileSync(
      path.join(p, 'paper', 'node_feat.npy'),
      Buffer.concat([npyHeader('<f2', [papers, dim]), Buffer.from(bits.buffer, bits.byteOffset, bits.byteLength)]),
    );
    writeNpy(path.join(p, 'paper', 'node_label.npy'), labels, [papers]);
    writeNpy(path.join(p, 'paper', 'node_year.npy'), years, [papers]);
    return p;
  };

  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    dir = tempDir('wm-lsc-');
    write(dir);
  });
  after(() => fs.rmSync(dir, {recursive: true, force: true}));

  it('reads relations, counts, float16 features, labels and the split from the years', async () => {
    const g = readLscArrays(dir, {numNodes: {author: authors}});
    try {
      expect(g.numNodes).to.deep.equal({author: authors, paper: papers, institution: 4});
      expect(rowsOf(g, 'author___writes___paper')).to.deep.equal(reference(writes.src, writes.dst, authors));
      expect(rowsOf(g, 'paper___cites___paper')).to.deep.equal(reference(cites.src, cites.dst, papers));
      expect(rowsOf(g, 'author___affiliated_with___institution')).to.deep.equal(reference(affiliated.src, affiliated.dst, authors));
      expect(rowsOf(g, 'paper___cites___paper')[9].filter((s) => s === 3).length).to.equal(2);
      expect(rowsOf(g, 'paper___cites___paper')[7]).to.include(7);
      // Labels: NaN is none; the classes are the largest id + 1; the split from the years.
      const l = g.labels!;
      expect([l.type, l.numClasses, l.labels[3], l.labels[4]]).to.deep.equal(['paper', 5, -1, 4]);
      const labelled = Array.from({length: papers}, (_, i) => i).filter((i) => i % 4 !== 3);
      expect(Array.from(l.split!.train)).to.deep.equal(labelled.filter((i) => 2015 + (i % 6) < 2019));
      expect(Array.from(l.split!.val)).to.deep.equal(labelled.filter((i) => 2015 + (i % 6) >= 2019));
      // Features: mapped float16, read as float32 through the trainer's tables.
      const f = g.features.paper;
      expect(f).to.be.instanceOf(NativeFeatures);
      const want = float16ToFloat32(float32ToFloat16(feats));
      const tables = new FeatureTables(g);
      try {
        const rows = tables.inputs({paper: Int32Array.from([5, 0, 59])}).paper;
        const got = await rows.data();
        rows.dispose();
        expect(Array.from(got)).to.deep.equal([...want.subarray(40, 48), ...want.subarray(0, 8), ...want.subarray(59 * 8, 60 * 8)]);
      } finally {
        tables.dispose();
      }
    } finally {
      for (const r of g.relations.values()) r.graph.free();
    }
  });

  it('trains on it as on any typed graph (R-GCN over the relations made two-way)', async () => {
    const g = readLscArrays(dir, {numNodes: {author: authors}, validYear: 2018});
    const u = g.toUndirected();
    for (const r of g.relations.values()) r.graph.free();
    try {
      const before = tf.memory().numTensors;
      const r = await trainTypedNodeClassification(u, {model: 'rgcn', epochs: 2, fanouts: [4, 4], batchSize: 16, sampleOn: 'host'});
      expect(r.valAcc).to.be.within(0, 1);
      expect(tf.memory().numTensors).to.equal(before);
    } finally {
      for (const r of u.relations.values()) r.graph.free();
    }
  });

  it('refuses bad folders, naming the file and the rule', () => {
    const bad = tempDir('wm-lsc-bad-');
    try {
      expect(() => readLscArrays(bad)).to.throw(/holds no processed\/ folder/);
      const p = write(bad);
      // A count below an id the edges name.
      expect(() => readLscArrays(bad, {numNodes: {author: 10}})).to.throw(
        /author___(writes___paper|affiliated_with___institution).edge_index\.npy: source id \d+ is not below the 10 'author' vertices/,
      );
      // A label that is not a class id.
      const wrong = labels.slice();
      wrong[2] = 1.5;
      writeNpy(path.join(p, 'paper', 'node_label.npy'), wrong, [papers]);
      expect(() => readLscArrays(bad)).to.throw(/node_label\.npy: value 2 is 1\.5, not a class id/);
      // Arrays of one type that disagree in rows.
      writeNpy(path.join(p, 'paper', 'node_label.npy'), labels.subarray(1), [papers - 1]);
      expect(() => readLscArrays(bad)).to.throw(/has \d+ rows, .* \d+/);
      writeNpy(path.join(p, 'paper', 'node_label.npy'), labels, [papers]);
      // An edge matrix cut short.
      const e = path.join(p, 'paper___cites___paper', 'edge_index.npy');
      fs.truncateSync(e, fs.statSync(e).size - 8);
      expect(() => readLscArrays(bad)).to.throw(
        /paper___cites___paper.edge_index\.npy: 150 edges of int64 need \d+ bytes, the file holds \d+/,
      );
    } finally {
      fs.rmSync(bad, {recursive: true, force: true});
    }
  });

  it('builds a relation from arrays as from a file: every edge kept, equal ids of two types too', () => {
    const g = HeteroGraph.fromEdges({author: authors, paper: papers}, [{type: ['author', 'writes', 'paper'], edges: writes}]);
    try {
      expect(rowsOf(g, edgeTypeKey(['author', 'writes', 'paper']))).to.deep.equal(reference(writes.src, writes.dst, authors));
    } finally {
      for (const r of g.relations.values()) r.graph.free();
    }
  });
});

describe("mag240mShaped: a typed graph of MAG240M's shape, generated natively", function () {
  this.timeout(120000);
  const free = (g: HeteroGraph) => {
    for (const r of g.relations.values()) r.graph.free();
  };

  it("has MAG240M's counts at its scale, every relation with its reverse, and the same graph for the same seed", () => {
    const scale = 2e-4;
    const g = mag240mShaped({scale, dim: 16, seed: 3});
    const h = mag240mShaped({scale, dim: 16, seed: 3});
    const other = mag240mShaped({scale, dim: 16, seed: 4});
    try {
      const n = (x: number) => Math.round(x * scale);
      expect(g.numNodes).to.deep.equal({
        paper: n(MAG240M_COUNTS.paper),
        author: n(MAG240M_COUNTS.author),
        institution: n(MAG240M_COUNTS.institution),
      });
      const keys = [...g.relations.keys()].sort();
      expect(keys).to.deep.equal([
        'author___affiliated_with___institution',
        'author___writes___paper',
        'institution___rev_affiliated_with___author',
        'paper___cites___paper',
        'paper___rev_writes___author',
      ]);
      expect(g.relations.get('paper___cites___paper')!.numEdges).to.equal(2 * n(MAG240M_COUNTS.cites));
      expect(g.relations.get('author___writes___paper')!.numEdges).to.equal(n(MAG240M_COUNTS.writes));
      // A relation and its reverse hold the same edges: each (source, destination) pair of one is in the other.
      const pairs = (key: string, flip: boolean) => {
        const rows = rowsOf(g, key);
        const out: string[] = [];
        rows.forEach((r, d) => r.forEach((s) => out.push(flip ? `${d},${s}` : `${s},${d}`)));
        return out.sort();
      };
      expect(pairs('paper___rev_writes___author', true)).to.deep.equal(pairs('author___writes___paper', false));
      // Cites is symmetric: row d holds s as often as row s holds d.
      expect(pairs('paper___cites___paper', true)).to.deep.equal(pairs('paper___cites___paper', false));
      // The same seed, the same graph; another seed, another.
      for (const k of keys) expect(rowsOf(h, k), k).to.deep.equal(rowsOf(g, k));
      expect(rowsOf(other, 'author___writes___paper')).to.not.deep.equal(rowsOf(g, 'author___writes___paper'));
      // The labelled share and its split; the rest unlabelled.
      const l = g.labels!;
      expect([l.split!.train.length, l.split!.val.length, l.split!.test.length]).to.deep.equal([
        n(MAG240M_COUNTS.train),
        n(MAG240M_COUNTS.valid),
        n(MAG240M_COUNTS.test),
      ]);
      const labelled = l.labels.reduce((a, y) => a + (y >= 0 ? 1 : 0), 0);
      expect(labelled).to.equal(l.split!.train.length + l.split!.val.length + l.split!.test.length);
      expect(Math.max(...l.labels)).to.be.below(153);
    } finally {
      free(g);
      free(h);
      free(other);
    }
  });

  it('plants what a relational model can read: citations join papers of one class, and features carry the class', () => {
    const g = mag240mShaped({scale: 5e-4, dim: 32, homophily: 0.8, classes: 10, seed: 1});
    try {
      const l = g.labels!;
      const truth = new Int32Array(l.labels);
      // The features' class: nearest class mean over the labelled training papers predicts the validation ones.
      const f = g.features.paper as NativeFeatures;
      const rows = f.read(0, f.rows);
      const means = new Float64Array(10 * 32),
        counts = new Float64Array(10);
      for (const v of l.split!.train) {
        counts[truth[v]]++;
        for (let k = 0; k < 32; ++k) means[truth[v] * 32 + k] += rows[v * 32 + k];
      }
      let right = 0;
      for (const v of l.split!.val) {
        let best = 0,
          bestD = Infinity;
        for (let y = 0; y < 10; ++y) {
          let d = 0;
          for (let k = 0; k < 32; ++k) d += (rows[v * 32 + k] - means[y * 32 + k] / Math.max(1, counts[y])) ** 2;
          if (d < bestD) [best, bestD] = [y, d];
        }
        if (best === truth[v]) ++right;
      }
      expect(right / l.split!.val.length).to.be.above(0.2); // twice chance
      // Labelled papers cite papers of their own class far above chance (1 in 10), where both ends are labelled.
      const cites = rowsOf(g, 'paper___cites___paper');
      let same = 0,
        both = 0;
      cites.forEach((r, d) =>
        r.forEach((s) => {
          if (truth[d] >= 0 && truth[s] >= 0) {
            ++both;
            if (truth[d] === truth[s]) ++same;
          }
        }),
      );
      if (both > 20) expect(same / both).to.be.above(0.4);
      // Features are the same rows whichever window reads them.
      expect(Array.from(f.read(7, 2))).to.deep.equal(Array.from(rows.subarray(7 * 32, 9 * 32)));
    } finally {
      free(g);
    }
  });

  it('bench:mag240m on 2 ranks (tfjs-wm-run): paper features in memory the ranks share, a share of the training papers each, the gradients averaged; rank 0 reports; every rank profiles a step', function () {
    this.timeout(240000);
    const root = path.resolve(__dirname, '..');
    const dir = tempDir('wm-mag240m-ranks-');
    try {
      const out = path.join(dir, 'result.json');
      const r = spawnSync(process.execPath, [path.join(root, 'bin', 'tfjs-wm-run.js'), '-n', '2', path.join(root, 'bench', 'mag240m.js')], {
        env: {
          ...process.env,
          TFJS_WHOLEMEMORY_DEVICE: 'cpu',
          BENCH_MAG240M_BATCH: '64',
          BENCH_MAG240M_BATCHES: '2',
          BENCH_PROFILE_STEPS: '1',
          BENCH_OUT: out,
        },
        encoding: 'utf8',
        timeout: 200000,
      });
      expect(r.status, `${r.stdout}\n${r.stderr}`).to.equal(0);
      const result = JSON.parse(fs.readFileSync(out, 'utf8')) as {
        ranks: number;
        memory: string;
        steps: number;
        stepMs: number;
        seedsPerSecond: number;
        profile: {msPerStep: number; ops: {name: string; callsPerStep: number; msPerStep: number}[]};
      };
      expect(result.ranks).to.equal(2);
      expect(result.memory).to.equal('continuous');
      expect(result.steps).to.equal(4); // two warm-up steps and two timed, every rank together
      expect(result.stepMs).to.be.above(0);
      expect(result.seedsPerSecond).to.be.above(0);
      expect(r.stdout).to.match(/2 ranks: scale/);
      // The profiled step is not one of the timed ones; both ranks print theirs, the attention kernels among the ops.
      expect(result.steps).to.equal(4);
      expect(result.profile.msPerStep).to.be.above(0);
      expect(result.profile.ops.map((o) => o.name)).to.include('gatForward');
      for (const rank of [0, 1]) expect(r.stdout).to.match(new RegExp(`\\[${rank}\\] rank ${rank} profiled \\(1 step, matmul highest\\)`));
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('refuses bad options by name', () => {
    expect(() => mag240mShaped({scale: 0})).to.throw(/mag240mShaped: scale must be in \(0, 1\]/);
    expect(() => mag240mShaped({scale: 1e-4, classes: 1})).to.throw(/classes must be an integer in \[2, 65536\]/);
    expect(() => mag240mShaped({scale: 1e-4, homophily: 2})).to.throw(/homophily must be in \[0, 1\]/);
    expect(() => mag240mShaped({scale: 1e-4, skew: 0.5})).to.throw(/skew must be a finite number >= 1/);
  });
});

import {expect} from 'chai';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';

import * as tf from '@tensorflow/tfjs-core';

import {float16ToFloat32, float32ToFloat16, writeNpy} from '../src/data/npy';
import * as wm from '../src/index';
import {loadDataset, NodeClassificationData} from '../src/graph/dataset';
import {NativeCsr} from '../src/graph/native_csr';
import {NativeFeatures} from '../src/graph/native_features';
import {featureTable} from '../src/nn/node_inputs';
import {tempDir} from './temp_dirs';

// A ring of n vertices with chords: one connected component.
function ringEdges(n: number, declared = n): string {
  const lines = ['# directed=0 vertices=' + declared];
  for (let v = 0; v < n; ++v) lines.push(`${v}\t${(v + 1) % n}`, `${v}\t${(v + 5) % n}`);
  return lines.join('\n') + '\n';
}

function npyOf(descr: string, shape: number[], body: Buffer): Buffer {
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}), }`;
  header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
  const head = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, 0, 0]);
  head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, 'latin1'), body]);
}

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected loadDataset to fail');
}

describe('dataset folders (wm.graph.loadDataset)', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('wm-dataset-');
  });
  afterEach(() => fs.rmSync(dir, {recursive: true, force: true}));

  it('labels as names or numbers (numbered in sorted order), unlabelled vertices, the largest component without a split', async () => {
    const n = 30;
    fs.writeFileSync(path.join(dir, 'edges.tsv'), ringEdges(n, n + 2) + `${n}\t${n + 1}\n`); // a second, small component
    const names = ['liberal', 'conservative', 'green'];
    const labels = Array.from({length: n + 2}, (_, v) => (v === 7 ? `${v}` : `${v}\t${names[v % 3]}`));
    fs.writeFileSync(path.join(dir, 'vertex_value.tsv'), labels.join('\n') + '\n');
    const d = await loadDataset(dir);
    expect(d.graph.numVertices).to.equal(n);
    expect(d.classNames).to.deep.equal(['conservative', 'green', 'liberal']);
    expect(d.numClasses).to.equal(3);
    const byName = (v: number) => d.classNames[d.labels[Array.from(d.originalIds).indexOf(v)]];
    expect([0, 1, 2, 4].map(byName)).to.deep.equal(['liberal', 'conservative', 'green', 'conservative']);
    expect(d.labels[Array.from(d.originalIds).indexOf(7)]).to.equal(-1);
    expect(d.split).to.equal(undefined);
    // Numbers sort as numbers: class "10" after "9".
    fs.writeFileSync(path.join(dir, 'vertex_value.tsv'), Array.from({length: n + 2}, (_, v) => `${v}\t${[9, 10, 2][v % 3]}`).join('\n'));
    expect((await loadDataset(dir)).classNames).to.deep.equal(['2', '9', '10']);
  });

  it("files saved with a byte-order mark and Windows line ends (what a Windows editor writes) read as the same data, plain and gzip'd", async () => {
    const n = 30;
    const edges = ringEdges(n);
    const labels = Array.from({length: n}, (_, v) => `${v}\t${['a', 'b', 'c'][v % 3]}`).join('\n') + '\n';
    fs.writeFileSync(path.join(dir, 'edges.tsv'), edges);
    fs.writeFileSync(path.join(dir, 'vertex_value.tsv'), labels);
    const plain = await loadDataset(dir, {cache: false});
    const windows = (text: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text.replace(/\n/g, '\r\n'))]);
    fs.writeFileSync(path.join(dir, 'edges.tsv'), windows(edges));
    fs.writeFileSync(path.join(dir, 'vertex_value.tsv'), windows(labels));
    const d = await loadDataset(dir, {cache: false});
    expect(d.graph.numVertices).to.equal(plain.graph.numVertices);
    expect(Array.from(d.graph.colIdx)).to.deep.equal(Array.from(plain.graph.colIdx));
    expect(d.classNames).to.deep.equal(plain.classNames);
    expect(Array.from(d.labels)).to.deep.equal(Array.from(plain.labels));
    // A knowledge graph's triple files, one gzip'd: the first name is the name, not the mark and the name.
    fs.writeFileSync(path.join(dir, 'train.txt.gz'), zlib.gzipSync(windows('a\tr1\tb\nb\tr2\tc\n')));
    fs.writeFileSync(path.join(dir, 'valid.txt'), windows('a\tr1\tc\n'));
    fs.writeFileSync(path.join(dir, 'test.txt'), 'c\tr2\ta');
    const kg = await wm.graph.readKnowledgeGraph(dir, {cache: false});
    expect(kg.entityNames?.toArray()).to.deep.equal(['a', 'b', 'c']);
    expect(kg.relationNames?.toArray()).to.deep.equal(['r1', 'r2']);
  });

  it("a first line naming the columns (source<TAB>target, source,target, node<TAB>label, node<TAB>f0...) is a header; messages keep the lines' numbers", async () => {
    const n = 30;
    const edges = ringEdges(n).split('\n').slice(1).join('\n'); // no comment line first
    const labels = Array.from({length: n}, (_, v) => `${v}\t${['a', 'b', 'c'][v % 3]}`).join('\n') + '\n';
    const features = Array.from({length: n}, (_, v) => `${v}\t${v / 2}\t${v % 3}`).join('\n') + '\n';
    const write = (e: string, l: string, f: string) => {
      fs.writeFileSync(path.join(dir, 'edges.tsv'), e);
      fs.writeFileSync(path.join(dir, 'vertex_value.tsv'), l);
      fs.writeFileSync(path.join(dir, 'vertex_features.tsv'), f);
    };
    write(edges, labels, features);
    const plain = await loadDataset(dir, {cache: false});
    for (const e of ['source\ttarget\n' + edges, 'source,target\n' + edges.replace(/\t/g, ',')]) {
      write(e, 'node\tlabel\n' + labels, 'node\tf0\tf1\n' + features);
      const d = await loadDataset(dir, {cache: false});
      expect(Array.from(d.graph.colIdx)).to.deep.equal(Array.from(plain.graph.colIdx));
      expect(Array.from(d.labels)).to.deep.equal(Array.from(plain.labels));
      expect(Array.from(d.features!.values)).to.deep.equal(Array.from(plain.features!.values));
    }
    // Only the first line: a name further down is an error at its own line.
    write('source\ttarget\n' + edges + 'x\ty\n', labels, features);
    expect(await failure(loadDataset(dir, {cache: false}))).to.match(/edges\.tsv:62: expected two vertex ids/);
    write(edges, labels, 'node\tf0\tf1\n' + features + '0\t1\t2\n');
    expect(await failure(loadDataset(dir, {cache: false}))).to.match(/vertex_features\.tsv:32: vertex 0 has a second row/);
  });

  it('float32ToFloat16: every float16 value gives back its bits; between two, the nearer (ties to even); past the range infinity, below it zero', () => {
    const all = Uint16Array.from({length: 65536}, (_, i) => i);
    const values = float16ToFloat32(all);
    const back = float32ToFloat16(values);
    all.forEach((h, i) => {
      const nan = (h & 0x7c00) === 0x7c00 && (h & 0x3ff) !== 0;
      if (nan ? (back[i] & 0x7c00) !== 0x7c00 || (back[i] & 0x3ff) === 0 : back[i] !== h) expect.fail(`bits ${h}: back as ${back[i]}`);
    });
    // Against a float64 reference: the float16 nearest each value (ties to the even one), on random values of every scale.
    const rng = (() => {
      let x = 12345;
      return () => (x = (x * 1103515245 + 12345) >>> 0) / 2 ** 32;
    })();
    const finite = Array.from(all).filter((h) => (h & 0x7c00) !== 0x7c00 && h < 0x8000);
    const sample = Float32Array.from({length: 4000}, () => (rng() < 0.5 ? -1 : 1) * 2 ** (-30 + 48 * rng()) * (1 + rng()));
    const got = float32ToFloat16(sample);
    sample.forEach((x, i) => {
      const a = Math.abs(x);
      let best = 0x7c00,
        bestErr = a >= 65520 ? 0 : Infinity; // 65520: halfway from the largest float16 to the next power of two
      for (const h of finite) {
        const err = Math.abs(values[h] - a);
        if (err < bestErr || (err === bestErr && (h & 1) === 0 && best !== 0x7c00 && (best & 1) === 1)) [best, bestErr] = [h, err];
      }
      const want = (x < 0 ? 0x8000 : 0) | best;
      if (got[i] !== want) expect.fail(`${x}: ${got[i]}, nearest ${want}`);
    });
    expect(
      Array.from(float32ToFloat16(Float32Array.of(65504, 65519, 65520, 1e9, -1e9, 2 ** -25, 2 ** -25 * 1.01, 2 ** -26))),
    ).to.deep.equal([0x7bff, 0x7bff, 0x7c00, 0x7c00, 0xfc00, 0, 1, 0]);
    expect(() => float32ToFloat16(new Float32Array(3), new Uint16Array(2))).to.throw(/out holds 2 values, 3 given/);
  });

  it('features from .npy (float32, float16, float64) and .tsv; wrong counts, widths, headers and truncation named by file', async () => {
    const n = 20,
      f = 3;
    fs.writeFileSync(path.join(dir, 'edges.tsv'), ringEdges(n));
    fs.writeFileSync(path.join(dir, 'vertex_value.tsv'), Array.from({length: n}, (_, v) => `${v}\t${v % 2}`).join('\n'));
    const values = Float32Array.from({length: n * f}, (_, i) => (i % 7) - 3.5);
    const npy = path.join(dir, 'vertex_features.npy');
    writeNpy(npy, values, [n, f]);
    let d = await loadDataset(dir);
    expect(d.features!.dim).to.equal(f);
    expect(d.features!.stored).to.equal('float32');
    // The component is every vertex, in order: rows line up with original ids.
    expect(Array.from(d.features!.values)).to.deep.equal(Array.from(values));
    const f64 = Buffer.alloc(n * f * 8);
    values.forEach((x, i) => f64.writeDoubleLE(x, i * 8));
    fs.writeFileSync(npy, npyOf('<f8', [n, f], f64));
    d = await loadDataset(dir);
    expect(d.features!.stored).to.equal('float64');
    expect(Array.from(d.features!.values)).to.deep.equal(Array.from(values));
    const f16 = Buffer.alloc(n * f * 2);
    const half: Record<number, number> = {
      [-3.5]: 0xc300,
      [-2.5]: 0xc100,
      [-1.5]: 0xbe00,
      [-0.5]: 0xb800,
      [0.5]: 0x3800,
      [1.5]: 0x3e00,
      [2.5]: 0x4100,
    };
    values.forEach((x, i) => f16.writeUInt16LE(half[x], i * 2));
    fs.writeFileSync(npy, npyOf('<f2', [n, f], f16));
    d = await loadDataset(dir);
    expect(d.features!.stored).to.equal('float16');
    expect(Array.from(d.features!.values)).to.deep.equal(Array.from(values));
    // Bad .npy files.
    fs.writeFileSync(npy, npyOf('<f4', [n, f], Buffer.alloc(n * f * 4 - 8)));
    expect(await failure(loadDataset(dir))).to.match(
      /vertex_features\.npy: byte \d+: shape \(20, 3\) of float32 needs 240 bytes of data, the file holds 232/,
    );
    fs.writeFileSync(npy, npyOf('<i8', [n, f], Buffer.alloc(n * f * 8)));
    expect(await failure(loadDataset(dir))).to.match(/vertex_features\.npy: dtype '<i8' is not little-endian float32/);
    fs.writeFileSync(npy, npyOf('<f4', [n + 1, f], Buffer.alloc((n + 1) * f * 4)));
    expect(await failure(loadDataset(dir))).to.match(/vertex_features\.npy: 21 rows of features for 20 vertices/);
    fs.writeFileSync(npy, Buffer.from('not numpy at all'));
    expect(await failure(loadDataset(dir))).to.match(/vertex_features\.npy: byte 0: not a \.npy file/);
    fs.rmSync(npy);
    // TSV features.
    const tsv = path.join(dir, 'vertex_features.tsv');
    const rows = Array.from({length: n}, (_, v) => `${v}\t${Array.from(values.subarray(v * f, (v + 1) * f)).join('\t')}`);
    fs.writeFileSync(tsv, rows.join('\n'));
    d = await loadDataset(dir);
    expect(Array.from(d.features!.values)).to.deep.equal(Array.from(values));
    fs.writeFileSync(tsv, [...rows.slice(0, 5), '5\t1\t2', ...rows.slice(6)].join('\n'));
    expect(await failure(loadDataset(dir))).to.match(/vertex_features\.tsv:6: 2 values where the first row had 3/);
    fs.writeFileSync(tsv, rows.slice(0, n - 1).join('\n'));
    expect(await failure(loadDataset(dir))).to.match(/vertex_features\.tsv: 19 rows of features for 20 vertices/);
    fs.writeFileSync(tsv, [...rows, `${n}\t1\t2\t3`].join('\n'));
    expect(await failure(loadDataset(dir))).to.match(/vertex_features\.tsv:21: vertex id "20" is not in \[0, 20\)/);
    // Both forms: neither is chosen silently.
    fs.writeFileSync(tsv, rows.join('\n'));
    writeNpy(npy, values, [n, f]);
    expect(await failure(loadDataset(dir))).to.match(/both vertex_features\.npy and vertex_features\.tsv; keep one/);
  });

  it('fixed splits from split/{train,valid,test}.txt keep every vertex; bad ids and unlabelled vertices are named', async () => {
    const n = 24;
    fs.writeFileSync(path.join(dir, 'edges.tsv'), ringEdges(n, n + 2) + `${n}\t${n + 1}\n`);
    fs.writeFileSync(path.join(dir, 'vertex_value.tsv'), Array.from({length: n + 1}, (_, v) => `${v}\t${v % 2 ? 'a' : 'b'}`).join('\n'));
    fs.mkdirSync(path.join(dir, 'split'));
    fs.writeFileSync(path.join(dir, 'split', 'train.txt'), '0\n1\n2\n3\n24\n');
    fs.writeFileSync(path.join(dir, 'split', 'valid.txt'), '4\n5\n');
    fs.writeFileSync(path.join(dir, 'split', 'test.txt'), '6\n7\n8\n');
    const d = await loadDataset(dir);
    expect(d.graph.numVertices).to.equal(n + 2); // no component cut with a fixed split
    expect(Array.from(d.split!.train)).to.deep.equal([0, 1, 2, 3, 24]);
    expect(Array.from(d.split!.test)).to.deep.equal([6, 7, 8]);
    fs.writeFileSync(path.join(dir, 'split', 'valid.txt'), '4\n99\n');
    expect(await failure(loadDataset(dir))).to.match(/split\/valid\.txt:2: vertex id "99" is not in \[0, 26\)/);
    fs.writeFileSync(path.join(dir, 'split', 'valid.txt'), '4\n25\n');
    expect(await failure(loadDataset(dir))).to.match(/split\/valid\.txt:2: vertex 25 has no label/);
    fs.writeFileSync(path.join(dir, 'split', 'valid.txt'), '4\n3\n');
    expect(await failure(loadDataset(dir))).to.match(/split\/valid\.txt: vertex 3 is also in train\.txt/);
  });

  it('reads the OGB layout (raw/*.csv.gz, split/<name>/*.csv.gz) streaming; nan labels are unlabelled; a bad gzip is named', async () => {
    const n = 16;
    const gz = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(file), {recursive: true});
      fs.writeFileSync(file, zlib.gzipSync(Buffer.from(text)));
    };
    const edges: string[] = [];
    for (let v = 0; v < n; ++v) edges.push(`${v},${(v + 1) % n}`);
    gz(path.join(dir, 'raw', 'edge.csv.gz'), edges.join('\n') + '\n');
    gz(path.join(dir, 'raw', 'num-node-list.csv.gz'), `${n}\n`);
    gz(path.join(dir, 'raw', 'num-edge-list.csv.gz'), `${edges.length}\n`);
    gz(path.join(dir, 'raw', 'node-label.csv.gz'), Array.from({length: n}, (_, v) => (v === 3 ? 'nan' : `${v % 4}`)).join('\n') + '\n');
    gz(path.join(dir, 'raw', 'node-feat.csv.gz'), Array.from({length: n}, (_, v) => `${v},${-v},0.5`).join('\n') + '\n');
    gz(path.join(dir, 'split', 'time', 'train.csv.gz'), '0\n1\n2\n4\n5\n');
    gz(path.join(dir, 'split', 'time', 'valid.csv.gz'), '6\n7\n');
    gz(path.join(dir, 'split', 'time', 'test.csv.gz'), '8\n9\n10\n');
    const d = await loadDataset(dir);
    expect(d.graph.numVertices).to.equal(n);
    expect(d.graph.numEdges).to.equal(2 * n);
    expect(d.labels[3]).to.equal(-1);
    expect(d.classNames).to.deep.equal(['0', '1', '2', '3']);
    expect(d.features!.dim).to.equal(3);
    expect(Array.from(d.features!.values.subarray(5 * 3, 6 * 3))).to.deep.equal([5, -5, 0.5]);
    expect(Array.from(d.split!.val)).to.deep.equal([6, 7]);
    fs.writeFileSync(path.join(dir, 'raw', 'node-feat.csv.gz'), zlib.gzipSync(Buffer.from('1,2,3\n')).subarray(0, 12));
    expect(await failure(loadDataset(dir))).to.match(/node-feat\.csv\.gz: cannot inflate/);
    gz(path.join(dir, 'raw', 'node-feat.csv.gz'), Array.from({length: n}, (_, v) => (v === 9 ? '1,2' : `${v},${-v},0.5`)).join('\n'));
    expect(await failure(loadDataset(dir))).to.match(/node-feat\.csv\.gz:10: 2 values where the first row had 3/);
    gz(path.join(dir, 'raw', 'num-edge-list.csv.gz'), `${edges.length + 1}\n`);
    expect(await failure(loadDataset(dir))).to.match(/edge\.csv\.gz: 16 edges, num-edge-list\.csv\.gz says 17/);
  });
});

describe('generated graphs and baselines', () => {
  it('csbm: planted classes of near-equal size, the asked homophily and degree, features around class means; seeded', async () => {
    const {csbm} = await import('../src/graph/csbm');
    const d = csbm({vertices: 3000, classes: 12, degree: 8, homophily: 0.7, features: 16, signal: 3, seed: 5});
    const sizes = new Array(12).fill(0);
    d.labels.forEach((y) => sizes[y]++);
    expect(Math.max(...sizes) - Math.min(...sizes)).to.be.at.most(1);
    let same = 0;
    const {rowPtr, colIdx} = d.graph;
    for (let v = 0; v < d.graph.numVertices; ++v)
      for (let e = rowPtr[v]; e < rowPtr[v + 1]; ++e) if (d.labels[colIdx[e]] === d.labels[v]) ++same;
    const h = same / d.graph.numEdges;
    expect(h).to.be.within(0.66, 0.74);
    expect(d.graph.numEdges / d.graph.numVertices).to.be.within(7, 8.1); // duplicates and loops dropped
    expect(d.features!.dim).to.equal(16);
    const again = csbm({vertices: 3000, classes: 12, degree: 8, homophily: 0.7, features: 16, signal: 3, seed: 5});
    expect(Array.from(again.labels)).to.deep.equal(Array.from(d.labels));
    expect(Array.from(again.features!.values.subarray(0, 50))).to.deep.equal(Array.from(d.features!.values.subarray(0, 50)));
    expect(() => csbm({vertices: 5, classes: 2})).to.throw(/csbm: vertices must be an integer in \[10, 2147483647\], got 5/);
    expect(() => csbm({vertices: 100, classes: 2, homophily: 1.5})).to.throw(/homophily must be in \[0, 1\]/);
  });

  it('label propagation and the feature-only classifier follow the signal they use', async () => {
    const {csbm} = await import('../src/graph/csbm');
    const {labelPropagation, nearestClassMean} = await import('../src/train/baselines');
    const {splitLabelled} = await import('../src/train/node_classification');
    const {seededRng} = await import('../src/util/random');
    const strong = csbm({vertices: 2000, classes: 5, homophily: 0.95, features: 8, signal: 0, seed: 2});
    const split = splitLabelled(strong.labels, 0.1, 0.1, seededRng(1));
    expect(labelPropagation(strong.graph, strong.labels, 5, split).test).to.be.greaterThan(0.9);
    expect(nearestClassMean(strong.features!.values, 8, strong.labels, 5, split).test).to.be.below(0.35); // no signal: near chance (0.2)
    const noisy = csbm({vertices: 2000, classes: 5, homophily: 0.2, features: 8, signal: 6, seed: 2});
    const s2 = splitLabelled(noisy.labels, 0.1, 0.1, seededRng(1));
    expect(labelPropagation(noisy.graph, noisy.labels, 5, s2).test).to.be.below(0.35); // homophily at chance: no graph signal
    expect(nearestClassMean(noisy.features!.values, 8, noisy.labels, 5, s2).test).to.be.greaterThan(0.9);
  });

  it("smoothing weighs a model's predictions against label propagation's by their skill: weight 0 is label propagation, wrong predictions whole pull it down, right ones lift it", async () => {
    const {csbm} = await import('../src/graph/csbm');
    const {labelPropagation, smoothedScores, smoothingWeight, smoothPredictions, scoreAccuracy} = await import('../src/train/baselines');
    const {splitLabelled} = await import('../src/train/node_classification');
    const {seededRng} = await import('../src/util/random');
    // The model's share by both validation accuracies: at chance against a better propagation 0, better than a
    // propagation at chance 1, equal ones a half; skills (shares of the way from chance) of 2/3 and 1/3: 1 / (1 + (1/2)^8).
    expect([smoothingWeight(0.25, 0.6, 4), smoothingWeight(1, 0.25, 4), smoothingWeight(0.7, 0.7, 4)]).to.deep.equal([0, 1, 0.5]);
    expect(smoothingWeight(0.75, 0.5, 4)).to.be.closeTo(1 / (1 + 0.5 ** 8), 1e-12);
    expect(smoothingWeight(0.25, 0.25, 4)).to.equal(0.5);
    const d = csbm({vertices: 1500, classes: 4, degree: 3, homophily: 0.85, seed: 3});
    const split = splitLabelled(d.labels, 0.05, 0.1, seededRng(2));
    // Confidently wrong predictions (a class shifted by one everywhere).
    const rng = seededRng(9);
    const wrong = new Float32Array(1500 * 4);
    for (let v = 0; v < 1500; ++v) wrong[v * 4 + ((d.labels[v] + 1 + Math.floor(rng() * 3)) % 4)] = 1;
    const lp = labelPropagation(d.graph, d.labels, 4, split);
    // Weight 0: exactly label propagation's scores, so its accuracy.
    expect(smoothPredictions(d.graph, wrong, d.labels, 4, split, {weight: 0})).to.deep.equal(lp);
    // Whole, the wrong predictions pull the smoothed accuracy below label propagation's.
    expect(smoothPredictions(d.graph, wrong, d.labels, 4, split).test).to.be.below(lp.test - 0.05);
    // The right predictions, whole, lift it above.
    const right = new Float32Array(1500 * 4);
    for (let v = 0; v < 1500; ++v) right[v * 4 + d.labels[v]] = 1;
    const s = smoothedScores(d.graph, right, d.labels, 4, split.train);
    expect(scoreAccuracy(s, 4, d.labels, split.test)).to.be.above(lp.test);
    expect(() => smoothPredictions(d.graph, right, d.labels, 4, split, {weight: 2})).to.throw(/weight must be in \[0, 1\], got 2/);
  });
});

describe('the dataset cache (loadDataset {cache})', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('wm-dataset-cache-');
  });
  afterEach(() => fs.rmSync(dir, {recursive: true, force: true}));

  const gz = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(file), {recursive: true});
    fs.writeFileSync(file, zlib.gzipSync(Buffer.from(text)));
  };

  /** An OGB-layout folder of n vertices with features, labels (some nan) and a split. */
  function ogbFolder(n: number): void {
    const edges: string[] = [];
    for (let v = 0; v < n; ++v) edges.push(`${v},${(v + 1) % n}`, `${v},${(v * 7 + 3) % n}`);
    gz(path.join(dir, 'raw', 'edge.csv.gz'), edges.join('\n') + '\n');
    gz(path.join(dir, 'raw', 'num-node-list.csv.gz'), `${n}\n`);
    gz(path.join(dir, 'raw', 'num-edge-list.csv.gz'), `${edges.length}\n`);
    gz(
      path.join(dir, 'raw', 'node-label.csv.gz'),
      Array.from({length: n}, (_, v) => (v % 11 === 3 ? 'nan' : `${v % 5}.0`)).join('\n') + '\n',
    );
    gz(path.join(dir, 'raw', 'node-feat.csv.gz'), Array.from({length: n}, (_, v) => `${v / 8},${-v},0.25`).join('\n') + '\n');
    gz(path.join(dir, 'split', 'time', 'train.csv.gz'), '0\n1\n2\n4\n5\n');
    gz(path.join(dir, 'split', 'time', 'valid.csv.gz'), '6\n7\n');
    gz(path.join(dir, 'split', 'time', 'test.csv.gz'), '8\n9\n10\n');
  }

  function plain(d: NodeClassificationData) {
    return {
      rowPtr: Array.from(d.graph.rowPtr),
      colIdx: Array.from(d.graph.colIdx),
      labels: Array.from(d.labels),
      originalIds: Array.from(d.originalIds),
      features: d.features && {...d.features, values: Array.from(d.features.values)},
      split: d.split && {train: Array.from(d.split.train), val: Array.from(d.split.val), test: Array.from(d.split.test)},
      classNames: d.classNames,
      numClasses: d.numClasses,
      component: d.component,
      name: d.name,
    };
  }

  async function load(opts: {cache?: boolean | string} = {cache: true}): Promise<{data: ReturnType<typeof plain>; said: string[]}> {
    const said: string[] = [];
    const d = await loadDataset(dir, {...opts, onProgress: (m) => said.push(m)});
    return {data: plain(d), said};
  }

  it('OGB folder: the second load maps the cache and gives the same data; cache: false reads the sources', async () => {
    ogbFolder(60);
    const first = await load();
    expect(first.said.join('\n'))
      .to.match(/cache not used: no cache/)
      .and.match(/wrote the cache in .*\.wmcache/);
    expect(fs.existsSync(path.join(dir, '.wmcache', 'graph.wmcsr'))).to.equal(true);
    const second = await load();
    expect(second.said.join('\n'))
      .to.match(/read the cache/)
      .and.not.match(/built the graph/);
    expect(second.data).to.deep.equal(first.data);
    expect(first.data.classNames).to.deep.equal(['0', '1', '2', '3', '4']);
    expect(first.data.labels[3]).to.equal(-1);
    const fresh = await load({cache: false});
    expect(fresh.said.join('\n'))
      .to.match(/built the graph/)
      .and.not.match(/cache not used|wrote the cache|read the cache/);
    expect(fresh.data).to.deep.equal(first.data);
    // Arrays mapped from the cache are the process's own: writing one changes neither the file nor the next load.
    const mapped = await loadDataset(dir, {cache: true});
    mapped.features!.values.fill(7);
    mapped.graph.colIdx[0] = 59;
    expect((await load()).data).to.deep.equal(first.data);
  });

  it('a changed, added or removed source file, another cache folder, a truncated or damaged cache: rebuilt, never trusted', async () => {
    ogbFolder(40);
    const base = await load();
    // The same size, rewritten: the sample hash (and time) differ.
    gz(path.join(dir, 'raw', 'node-feat.csv.gz'), Array.from({length: 40}, (_, v) => `${v / 8},${-v},0.75`).join('\n') + '\n');
    let r = await load();
    expect(r.said.join('\n')).to.match(/raw\/node-feat\.csv\.gz changed since the cache was written/);
    expect(r.data.features!.values[2]).to.equal(0.75);
    expect((await load()).said.join('\n')).to.match(/read the cache/);
    // Truncated arrays file.
    const arrays = path.join(dir, '.wmcache', 'arrays.wmdata');
    fs.truncateSync(arrays, fs.statSync(arrays).size - 100);
    r = await load();
    expect(r.said.join('\n')).to.match(/arrays\.wmdata: .*truncated/);
    expect(r.data.features!.values.length).to.equal(120);
    // One byte of the features changed.
    const bytes = fs.readFileSync(arrays);
    const header = JSON.parse(bytes.toString('utf8', 80, 80 + bytes.readUInt32LE(8))) as {sections: {features: {offset: number}}};
    bytes[header.sections.features.offset + 17] ^= 0x40;
    fs.writeFileSync(arrays, bytes);
    r = await load();
    expect(r.said.join('\n')).to.match(/section 'features' fails its digest/);
    // One byte of the graph file changed.
    const graph = path.join(dir, '.wmcache', 'graph.wmcsr');
    const g = fs.readFileSync(graph);
    g[4096 + 8] ^= 1;
    fs.writeFileSync(graph, g);
    r = await load();
    expect(r.said.join('\n')).to.match(/graph\.wmcsr: checksum mismatch/);
    expect(r.data.rowPtr).to.deep.equal(base.data.rowPtr);
    // A cache folder named by the caller.
    const elsewhere = path.join(dir, 'elsewhere');
    await load({cache: elsewhere});
    expect((await load({cache: elsewhere})).said.join('\n')).to.match(/read the cache in .*elsewhere/);
    expect(fs.existsSync(path.join(elsewhere, 'arrays.wmdata'))).to.equal(true);
  });

  it("into: 'native' gives the same dataset as a NativeCsr and windowed features, from the sources and from the cache", async () => {
    ogbFolder(50);
    const arrays = (await load({cache: false})).data;
    const saved = NativeFeatures.windowValues;
    NativeFeatures.windowValues = 12; // four rows of three a window: every multi-window path at this size
    try {
      for (const round of ['sources', 'cache written', 'cache read']) {
        const said: string[] = [];
        const d = await loadDataset(dir, {into: 'native', cache: true, onProgress: (m) => said.push(m)});
        expect(said.join('\n'), round).to.match(round === 'cache read' ? /read the cache/ : /built the graph/);
        try {
          expect(d.graph).to.be.instanceOf(NativeCsr);
          const csr = d.graph.toCsrGraph();
          expect(Array.from(csr.rowPtr), round).to.deep.equal(arrays.rowPtr);
          expect(Array.from(csr.colIdx), round).to.deep.equal(arrays.colIdx);
          expect(Array.from(d.labels)).to.deep.equal(arrays.labels);
          expect(d.split && Array.from(d.split.test)).to.deep.equal(arrays.split!.test);
          const f = d.features!;
          expect([f.rows, f.dim, f.stored]).to.deep.equal([50, 3, 'float32']);
          expect(f.windowRows).to.equal(4);
          expect(Array.from(f.read(7, 9))).to.deep.equal(arrays.features!.values.slice(21, 48));
          expect(Array.from(f.toArray())).to.deep.equal(arrays.features!.values);
          expect(() => f.read(45, 6)).to.throw(/rows \[45, 51\) are not within \[0, 50\)/);
        } finally {
          d.graph.free();
        }
        if (round === 'sources') fs.rmSync(path.join(dir, '.wmcache'), {recursive: true, force: true});
      }
      // The arrays form reads the same cache (its features section written and digested in windows).
      expect((await load()).data).to.deep.equal(arrays);
    } finally {
      NativeFeatures.windowValues = saved;
    }
  });

  it('edges.npy for edges.tsv; a .npy feature file stays out of the cache and is mapped again; featureTable fills a table from either form', async () => {
    const n = 40,
      dim = 5;
    fs.writeFileSync(path.join(dir, 'edges.tsv'), ringEdges(n));
    fs.writeFileSync(path.join(dir, 'vertex_value.tsv'), Array.from({length: n}, (_, v) => `${v}\t${v % 4}`).join('\n'));
    fs.mkdirSync(path.join(dir, 'split'));
    fs.writeFileSync(path.join(dir, 'split', 'train.txt'), '0\n1\n2\n3\n');
    fs.writeFileSync(path.join(dir, 'split', 'valid.txt'), '4\n5\n');
    fs.writeFileSync(path.join(dir, 'split', 'test.txt'), '6\n7\n');
    // float16 rows: exact small binary fractions.
    const values = Float32Array.from({length: n * dim}, (_, i) => ((i * 37) % 64) / 8 - 4);
    const bits = Buffer.alloc(n * dim * 2);
    float32ToFloat16(Float32Array.from(values)).forEach((h, i) => bits.writeUInt16LE(h, i * 2));
    fs.writeFileSync(path.join(dir, 'vertex_features.npy'), npyOf('<f2', [n, dim], bits));
    // edges.npy ([2, m] int32, as PyG's edge_index) in place of edges.tsv: the same graph.
    const fromTsv = await loadDataset(dir, {cache: false});
    const src: number[] = [],
      dst: number[] = [];
    for (let v = 0; v < n; ++v) (src.push(v, v), dst.push((v + 1) % n, (v + 5) % n));
    writeNpy(path.join(dir, 'edges.npy'), Int32Array.from([...src, ...dst]), [2, src.length]);
    expect(await failure(loadDataset(dir, {cache: false}))).to.match(/both edges\.tsv and edges\.npy; keep one/);
    fs.rmSync(path.join(dir, 'edges.tsv'));
    const first = await loadDataset(dir, {into: 'native', cache: true});
    const csr = first.graph.toCsrGraph();
    expect([Array.from(csr.rowPtr), Array.from(csr.colIdx)]).to.deep.equal([
      Array.from(fromTsv.graph.rowPtr),
      Array.from(fromTsv.graph.colIdx),
    ]);
    first.graph.free();
    const cacheFile = path.join(dir, '.wmcache', 'arrays.wmdata');
    const raw = fs.readFileSync(cacheFile);
    const header = JSON.parse(raw.toString('utf8', 80, 80 + raw.readUInt32LE(8))) as {
      sections: Record<string, unknown>;
      features: {inSource?: string; stored: string};
    };
    expect(header.sections).to.not.have.property('features');
    expect(header.features).to.include({inSource: 'vertex_features.npy', stored: 'float16'});
    const said: string[] = [];
    const d = await loadDataset(dir, {into: 'native', cache: true, onProgress: (m) => said.push(m)});
    expect(said.join('\n')).to.match(/read the cache/);
    const a = await loadDataset(dir, {cache: true});
    await tf.setBackend(wm.BACKEND_NAME); // a 'host' table: pinned host memory with a GPU
    expect(Array.from(a.features!.values)).to.deep.equal(Array.from(values));
    try {
      for (const source of [d.features!, a.features!]) {
        const table = featureTable(source, {memory: 'host'});
        try {
          expect([table.rows, table.dim]).to.deep.equal([n, dim]);
          expect(Array.from(table.read(Int32Array.from([39, 0, 17])).dataSync())).to.deep.equal([
            ...values.slice(39 * dim, 40 * dim),
            ...values.slice(0, dim),
            ...values.slice(17 * dim, 18 * dim),
          ]);
        } finally {
          table.dispose();
        }
      }
    } finally {
      d.graph.free();
    }
    // A value that is not finite is named when the rows are read.
    bits.writeUInt16LE(0x7e00, (12 * dim + 2) * 2);
    fs.writeFileSync(path.join(dir, 'vertex_features.npy'), npyOf('<f2', [n, dim], bits));
    const bad = await loadDataset(dir, {into: 'native', cache: true});
    try {
      expect(() => featureTable(bad.features!, {memory: 'host'})).to.throw(
        /vertex_features\.npy: row 12 holds a value that is not finite \(NaN\)/,
      );
    } finally {
      bad.graph.free();
    }
    expect(await failure(loadDataset(dir, {into: 'wide' as 'native'}))).to.match(/into must be 'arrays' or 'native', got wide/);
  });

  it('edge weights: a third column of edges.tsv and a one-column OGB edge-feat.csv.gz, summed per entry, cached, in both forms', async () => {
    // Weighted ring with chords, one edge given twice and one given both ways; vertices 30, 31: a pair apart.
    const n = 30;
    const edges: [number, number, number][] = [];
    for (let v = 0; v < n; ++v) edges.push([v, (v + 1) % n, 1 + v / 8], [v, (v + 5) % n, 0.25]);
    edges.push([0, 1, 2], [6, 5, 0.5], [30, 31, 4], [7, 7, 9]);
    fs.writeFileSync(path.join(dir, 'edges.tsv'), '# vertices=32\n' + edges.map((e) => e.join('\t')).join('\n') + '\n');
    fs.writeFileSync(path.join(dir, 'vertex_value.tsv'), Array.from({length: 32}, (_, v) => `${v}\t${v % 3}`).join('\n'));
    const want = (g: {rowPtr: ArrayLike<number>; colIdx: ArrayLike<number>}, ids: ArrayLike<number>) => {
      const out: number[] = [];
      for (let i = 0; i < ids.length; ++i)
        for (let e = g.rowPtr[i]; e < g.rowPtr[i + 1]; ++e) {
          const [u, v] = [ids[i], ids[g.colIdx[e]]];
          out.push(edges.filter(([a, b]) => a !== b && ((a === u && b === v) || (a === v && b === u))).reduce((x, [, , w]) => x + w, 0));
        }
      return out;
    };
    const said: string[] = [];
    const d = await loadDataset(dir, {cache: true, onProgress: (m) => said.push(m)});
    expect(said.join('\n')).to.match(/weighted/);
    expect(d.component).to.deep.equal({kept: 30, of: 32});
    expect(Array.from(d.edgeWeights!)).to.deep.equal(want(d.graph, d.originalIds));
    const again = await loadDataset(dir, {into: 'native', cache: true});
    try {
      expect(Array.from(again.edgeWeights!)).to.deep.equal(Array.from(d.edgeWeights!));
    } finally {
      again.graph.free();
    }
    // A field past the weight is not read, and a warning says so.
    const warnings: string[] = [];
    const onWarning = (w: Error & {code?: string}) => w.code === 'WM_EDGE_FIELDS_IGNORED' && warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      fs.appendFileSync(path.join(dir, 'edges.tsv'), '3\t9\t1\tx\n');
      await loadDataset(dir, {cache: false});
      // A later weight that is not a number is named; a first third field that is not one leaves the graph unweighted.
      fs.writeFileSync(path.join(dir, 'edges.tsv'), edges.map((e) => e.join('\t')).join('\n') + '\n0\t1\tkg\n');
      expect(await failure(loadDataset(dir, {cache: false}))).to.match(/edges\.tsv:65: /);
      fs.writeFileSync(path.join(dir, 'edges.tsv'), edges.map(([u, v], i) => `${u}\t${v}\tt${i}`).join('\n') + '\n');
      expect((await loadDataset(dir, {cache: false})).edgeWeights).to.equal(undefined);
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.join('\n')).to.match(
      /edges\.tsv: 1 of \d+ edges hold fields past the two vertex ids and the weight \(the first on line \d+\)/,
    );
    // OGB: one column per edge is the weight; wider edge features are named, not read.
    const ogb = path.join(dir, 'ogb');
    const gzw = (f: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(ogb, f)), {recursive: true});
      fs.writeFileSync(path.join(ogb, f), zlib.gzipSync(Buffer.from(text)));
    };
    const pairs = Array.from({length: 20}, (_, v) => [v, (v + 1) % 20]);
    gzw('raw/edge.csv.gz', pairs.map((p) => p.join(',')).join('\n') + '\n');
    gzw('raw/num-node-list.csv.gz', '20\n');
    gzw('raw/num-edge-list.csv.gz', '20\n');
    gzw('raw/node-label.csv.gz', Array.from({length: 20}, (_, v) => `${v % 2}`).join('\n') + '\n');
    gzw('raw/edge-feat.csv.gz', pairs.map((_, i) => `${i + 1}`).join('\n') + '\n');
    gzw('split/s/train.csv.gz', '0\n1\n2\n3\n');
    gzw('split/s/valid.csv.gz', '4\n5\n');
    gzw('split/s/test.csv.gz', '6\n7\n');
    const o = await loadDataset(ogb, {cache: false});
    // Vertex 0's row: 1 (edge 0 -> 1, weight 1) and 19 (edge 19 -> 0, weight 20).
    expect(Array.from(o.graph.neighbors(0))).to.deep.equal([1, 19]);
    expect(Array.from(o.edgeWeights!.subarray(0, 2))).to.deep.equal([1, 20]);
    gzw('raw/edge-feat.csv.gz', pairs.map(() => '1,2').join('\n') + '\n');
    const ws: string[] = [];
    const on2 = (w: Error & {code?: string}) => w.code === 'WM_EDGE_FIELDS_IGNORED' && ws.push(w.message);
    process.on('warning', on2);
    try {
      expect((await loadDataset(ogb, {cache: false})).edgeWeights).to.equal(undefined);
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', on2);
    }
    expect(ws.join('\n')).to.match(/edge-feat\.csv\.gz: 2 features per edge are not read/);
  });

  it('TSV folder: the largest component cached with its original ids; adding a feature file makes the cache stale', async () => {
    const n = 30;
    fs.writeFileSync(path.join(dir, 'edges.tsv'), ringEdges(n, n + 2) + `${n}\t${n + 1}\n`);
    fs.writeFileSync(
      path.join(dir, 'vertex_value.tsv'),
      Array.from({length: n + 2}, (_, v) => `${v}\t${['a', 'b', 'c'][v % 3]}`).join('\n'),
    );
    const first = await load();
    expect(first.data.component).to.deep.equal({kept: n, of: n + 2});
    const second = await load();
    expect(second.said.join('\n')).to.match(/read the cache/);
    expect(second.data).to.deep.equal(first.data);
    const rows = Array.from({length: n + 2}, (_, v) => `${v}\t${v}\t1`);
    fs.writeFileSync(path.join(dir, 'vertex_features.tsv'), rows.join('\n'));
    const third = await load();
    expect(third.said.join('\n')).to.match(/vertex_features\.tsv changed/);
    expect(third.data.features!.dim).to.equal(2);
    expect(third.data.features!.values.slice(0, 4)).to.deep.equal([0, 1, 1, 1]);
  });
});

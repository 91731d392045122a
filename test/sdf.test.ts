// SD files of molecules read as graphs: OGB's atom and bond columns checked by hand on molecules whose chemistry
// is known (charges, hydrogens, aromatic rings, conjugation, sp / sp2 / sp3), V2000 and V3000 molfiles, gzip,
// class and value targets, and every bad record named by file and line; then a few epochs of training on one.
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {rejection} from './rejection';
import {tempDir} from './temp_dirs';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const OCL = require('openchemlib') as {Molecule: {fromSmiles(s: string): {toMolfile(): string; toMolfileV3(): string}}};

const record = (smiles: string, items: Record<string, string>, v3 = false): string => {
  const m = OCL.Molecule.fromSmiles(smiles);
  const mol = v3 ? m.toMolfileV3() : m.toMolfile();
  const data = Object.entries(items).map(([k, v]) => `>  <${k}>\n${v}\n\n`);
  return `${mol.replace(/\n$/, '')}\n${data.join('')}$$$$\n`;
};

// Column k of every row of a [rows, width] table.
const column = (values: Float32Array, width: number, k: number) =>
  Array.from({length: values.length / width}, (_, r) => values[r * width + k]);

describe('readSdf', function () {
  this.timeout(120000);
  let dir: string;
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    dir = tempDir('wm-sdf-');
  });
  after(() => fs.rmSync(dir, {recursive: true, force: true}));

  it("gives OGB's atom and bond columns: element, degree, charge, hydrogens, hybridisation, aromaticity, rings, bond types, conjugation", async () => {
    const file = path.join(dir, 'known.sdf');
    fs.writeFileSync(
      file,
      record('c1ccccc1C(=O)[O-]', {active: '1'}) + // benzoate: an aromatic ring, a carbonyl, a charged oxygen
        record('CCO', {active: '0'}) + // ethanol: sp3 everywhere
        record('C#N', {active: '1'}, true) + // hydrogen cyanide, as a V3000 molfile
        record('C=CC=C', {active: '0'}) + // butadiene: the single bond between the double bonds is conjugated
        record('C=CCC', {active: '1'}), // 1-butene: its double bond is not
    );
    const d = await wm.graph.readSdf(file);
    expect([d.name, d.graphs.length, d.numClasses, d.regression, d.dim, d.edgeDim]).to.deep.equal(['known', 5, 2, false, 9, 3]);
    expect(d.graphs.map((g) => g.label)).to.deep.equal([1, 0, 1, 0, 1]);
    const [benzoate, ethanol, hcn, butadiene, butene] = d.graphs;
    const atoms = (g: wm.graph.SmallGraph, k: number) => column(g.features!, 9, k);
    const bonds = (g: wm.graph.SmallGraph, k: number) => column(g.edgeFeatures!, 3, k);
    // Benzoate: six aromatic ring carbons, the carboxyl carbon, two oxygens (one charged -1 -> column 4).
    expect(atoms(benzoate, 0)).to.deep.equal([5, 5, 5, 5, 5, 5, 5, 7, 7]);
    expect(atoms(benzoate, 3)).to.deep.equal([5, 5, 5, 5, 5, 5, 5, 5, 4]);
    expect(atoms(benzoate, 4)).to.deep.equal([1, 1, 1, 1, 1, 0, 0, 0, 0]);
    expect(atoms(benzoate, 2)).to.deep.equal([3, 3, 3, 3, 3, 3, 3, 1, 1]);
    expect(atoms(benzoate, 7)).to.deep.equal([1, 1, 1, 1, 1, 1, 0, 0, 0]);
    expect(atoms(benzoate, 8)).to.deep.equal([1, 1, 1, 1, 1, 1, 0, 0, 0]);
    expect(atoms(benzoate, 6).slice(0, 7)).to.deep.equal([1, 1, 1, 1, 1, 1, 1]);
    expect(bonds(benzoate, 0)).to.deep.equal([3, 3, 3, 3, 3, 3, 0, 1, 0]);
    expect(benzoate.src.length).to.equal(9);
    // Ethanol: C, C, O with 3, 2, 1 hydrogens; degrees 4, 4, 2; all sp3; single bonds, nothing conjugated.
    expect(atoms(ethanol, 0)).to.deep.equal([5, 5, 7]);
    expect(atoms(ethanol, 4)).to.deep.equal([3, 2, 1]);
    expect(atoms(ethanol, 2)).to.deep.equal([4, 4, 2]);
    expect(atoms(ethanol, 6)).to.deep.equal([2, 2, 2]);
    expect(atoms(ethanol, 8)).to.deep.equal([0, 0, 0]);
    expect([bonds(ethanol, 0), bonds(ethanol, 2)]).to.deep.equal([
      [0, 0],
      [0, 0],
    ]);
    // HCN: a triple bond between sp atoms.
    expect([atoms(hcn, 0), atoms(hcn, 6), bonds(hcn, 0)]).to.deep.equal([[5, 6], [0, 0], [2]]);
    // Conjugation: butadiene's three bonds are; 1-butene's bonds are not.
    expect(bonds(butadiene, 0)).to.deep.equal([1, 0, 1]);
    expect(bonds(butadiene, 2)).to.deep.equal([1, 1, 1]);
    expect(bonds(butene, 2)).to.deep.equal([0, 0, 0]);
    // Each bond once: batches make them two-way.
    const b = wm.graph.batchGraphs(d.graphs);
    try {
      expect(b.edges.arrays.colIdx.length).to.equal(2 * d.graphs.reduce((a, g) => a + g.src.length, 0));
    } finally {
      b.pool.dispose();
      b.edges.dispose();
    }
  });

  it('reads targets by name, as values where they are not class ids, gzip too; bad records named by file and line', async () => {
    const smiles = ['CCO', 'c1ccncc1', 'CC(=O)O', 'C1CC1', 'OCCN'];
    const text = smiles.map((s, i) => record(s, {id: `m${i}`, logS: String(-0.5 * i + 0.25)})).join('');
    const gz = path.join(dir, 'solubility.sdf.gz');
    fs.writeFileSync(gz, zlib.gzipSync(text));
    const d = await wm.graph.readSdf(gz, {label: 'logS'});
    expect([d.name, d.regression, d.numClasses]).to.deep.equal(['solubility', true, 1]);
    expect(d.graphs.map((g) => g.label)).to.deep.equal([0.25, -0.25, -0.75, -1.25, -1.75]);
    const bad = path.join(dir, 'bad.sdf');
    // Two data items and none named.
    fs.writeFileSync(bad, text);
    expect((await rejection(wm.graph.readSdf(bad))).message).to.match(
      /first molecule has 2 data items \(id, logS\): name the target with label/,
    );
    // A record without the named item: its first line.
    const lines = text.split('\n');
    const third = lines.findIndex((l, i) => i > 0 && lines[i - 1] === '$$$$' && lines.slice(0, i).filter((x) => x === '$$$$').length === 2);
    fs.writeFileSync(bad, text.replace('>  <logS>\n-0.75', '>  <logP>\n-0.75'));
    expect((await rejection(wm.graph.readSdf(bad, {label: 'logS'}))).message).to.equal(
      `${bad}:${third + 1}: molecule 2 has no data item <logS>`,
    );
    fs.writeFileSync(bad, text.replace('-0.75', 'n/a'));
    expect((await rejection(wm.graph.readSdf(bad, {label: 'logS'}))).message).to.equal(
      `${bad}:${third + 1}: <logS> is "n/a", not a finite number`,
    );
    // A record cut before its molfile ends; a file with no molecule.
    fs.writeFileSync(bad, record('CCO', {y: '1'}) + lines.slice(0, 4).join('\n') + '\n$$$$\n');
    expect((await rejection(wm.graph.readSdf(bad))).message).to.match(
      /bad\.sdf:\d+: the record that starts at line \d+ ends before its molfile's "M {2}END"/,
    );
    fs.writeFileSync(bad, '\n\n');
    expect((await rejection(wm.graph.readSdf(bad))).message).to.match(/bad\.sdf holds no molecule/);
    // Class ids read as values when asked.
    fs.writeFileSync(bad, record('CCO', {y: '1'}) + record('CC', {y: '0'}));
    expect((await wm.graph.readSdf(bad, {regression: true})).regression).to.equal(true);
  });

  it('keeps what it read in the binary cache: read back equal; other options, a changed file or a damaged array parse again', async () => {
    const folder = tempDir('wm-sdf-cache-');
    try {
      const file = path.join(folder, 'mols.sdf');
      fs.writeFileSync(
        file,
        ['CCO', 'c1ccccc1C(=O)[O-]', 'C#N', 'C1CC1'].map((s, i) => record(s, {y: String(0.5 * i - 0.25), id: `m${i}`})).join(''),
      );
      const lines: string[] = [];
      const read = (label = 'y') => wm.graph.readSdf(file, {label, cache: true, onProgress: (l) => lines.push(l)});
      const first = await read();
      expect(lines.pop()).to.match(/^wrote the cache in /);
      const again = await read();
      expect(lines.pop()).to.match(/^read the cache in /);
      expect(again).to.deep.equal(first);
      expect(again.graphs[1].label).to.equal(0.25); // float64 targets kept exactly
      // Read with another target: parsed again, not the cached one.
      expect((await rejection(read('id'))).message).to.match(/<id> is "m0", not a finite number/);
      expect(lines.some((l) => /written for other reader options/.test(l))).to.equal(true);
      // A changed file is parsed again.
      fs.appendFileSync(file, record('CC', {y: '3', id: 'm4'}));
      const grown = await read();
      expect(grown.graphs.length).to.equal(5);
      expect(lines.some((l) => /mols\.sdf changed since the cache was written/.test(l))).to.equal(true);
      // A damaged array file: the cache is not used, and the file is parsed again.
      const cacheDir = path.join(folder, '.wmcache', 'graphs-mols.sdf');
      const src = path.join(cacheDir, 'src.i32');
      const bytes = fs.readFileSync(src);
      bytes[0] ^= 0xff;
      fs.writeFileSync(src, bytes);
      const mended = await read();
      expect(lines.some((l) => /fails its digest/.test(l))).to.equal(true);
      expect(mended).to.deep.equal(grown);
    } finally {
      fs.rmSync(folder, {recursive: true, force: true});
    }
  });

  it('trains the graph classifier on the molecules it reads (GINE over the bond columns)', async () => {
    // Rings against chains: 24 molecules, the ring column decides.
    const ring = ['C1CCCCC1', 'c1ccccc1', 'C1CCOC1', 'C1CCNCC1', 'c1ccncc1', 'C1CC1'];
    const chain = ['CCCCCC', 'CCO', 'CCCN', 'CC(C)C', 'OCCO', 'CCCCO'];
    const text = [...ring, ...ring, ...chain, ...chain].map((s, i) => record(s, {ring: i < 12 ? '1' : '0'})).join('');
    const file = path.join(dir, 'rings.sdf');
    fs.writeFileSync(file, text);
    const d = await wm.graph.readSdf(file);
    const before = tf.memory().numTensors;
    const r = await wm.train.trainGraphClassification(d, {conv: 'gine', folds: 3, onlyFolds: [0], epochs: 40, batchSize: 8});
    expect(r.testAcc[0]).to.be.greaterThan(0.7);
    expect(tf.memory().numTensors).to.equal(before);
  });
});

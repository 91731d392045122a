import {expect} from 'chai';
import {spawnSync} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import * as wm from '../src/index';
import {loadDataset} from '../src/graph/dataset';
import type {NodeClassificationData} from '../src/graph/node_data';
import {trainNodeClassification} from '../src/train/node_classification';
import {writeNpy} from '../src/data/npy';
import {tempDir} from './temp_dirs';

const root = path.join(__dirname, '..', '..');

describe('saved node classifiers', () => {
  it('save, load in a fresh process, predict: exactly what the saved model predicted; named classes; changed files refused', async function () {
    this.timeout(120000);
    const dir = tempDir('wm-clf-');
    try {
      const folder = path.join(root, 'data', 'polblogs');
      const data = await loadDataset(folder);
      for (const kind of ['sage', 'gcn'] as const) {
        const config = {
          numNodes: data.graph.numVertices,
          numClasses: data.numClasses,
          embeddingDim: 16,
          hiddenDim: 8,
          numLayers: 2,
          dropout: 0.5,
          seed: 11,
          embeddingLearningRate: 0.02,
        };
        const model = kind === 'sage' ? new wm.nn.GraphSageClassifier(config) : new wm.nn.GcnClassifier(config);
        const g = wm.nn.fullGraph(data.graph);
        const want = wm.nn.predictNodes(model, g);
        const out = path.join(dir, kind);
        await model.save(out, {classNames: ['liberal', 'conservative'], data: folder});
        model.dispose();
        // In this process.
        const {model: again, info} = wm.nn.loadNodeClassifier(out);
        expect(info.kind).to.equal(kind);
        const got = wm.nn.predictNodes(again, g);
        expect(Array.from(got.classes)).to.deep.equal(Array.from(want.classes));
        expect(Array.from(got.probabilities)).to.deep.equal(Array.from(want.probabilities));
        again.dispose();
        g.dispose();
        // In a fresh process, through npm run predict's script.
        const tsv = path.join(dir, `${kind}.tsv`);
        const r = spawnSync(process.execPath, [path.join(root, 'dist', 'examples', 'predict.js'), '--model', out, '--out', tsv], {
          encoding: 'utf8',
        });
        expect(r.status, r.stderr).to.equal(0);
        const lines = fs.readFileSync(tsv, 'utf8').trim().split('\n');
        expect(lines.length).to.equal(data.graph.numVertices);
        lines.forEach((line, i) => {
          const [vertex, name, p] = line.split('\t');
          expect(Number(vertex)).to.equal(data.originalIds[i]);
          expect(name).to.equal(['liberal', 'conservative'][want.classes[i]]);
          expect(p).to.equal(want.probabilities[i].toFixed(6));
        });
      }
      // A changed or truncated file is refused by name before anything is built.
      const emb = path.join(dir, 'sage', 'embedding.bin');
      const bytes = fs.readFileSync(emb);
      bytes[100] ^= 1;
      fs.writeFileSync(emb, bytes);
      expect(() => wm.nn.loadNodeClassifier(path.join(dir, 'sage'))).to.throw(/embedding\.bin: its SHA-256 differs/);
      fs.writeFileSync(emb, bytes.subarray(0, 64));
      expect(() => wm.nn.loadNodeClassifier(path.join(dir, 'sage'))).to.throw(/embedding\.bin: 64 bytes, classifier\.json says/);
      expect(() => wm.nn.loadNodeClassifier(path.join(dir, 'nothing'))).to.throw(/classifier\.json: missing/);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('a GAT whose attention vectors are recorded as [1, heads, dim] loads into its gatConv layers and predicts the same', async () => {
    const dir = tempDir('wm-gat-');
    try {
      const data = await loadDataset(path.join(root, 'data', 'polblogs'));
      const config = {
        numNodes: data.graph.numVertices,
        numClasses: data.numClasses,
        embeddingDim: 8,
        hiddenDim: 8,
        numLayers: 2,
        dropout: 0,
        seed: 4,
        embeddingLearningRate: 0.02,
        heads: 2,
      };
      const model = new wm.nn.GatClassifier(config);
      const g = wm.nn.fullGraph(data.graph);
      const want = wm.nn.predictNodes(model, g);
      await model.save(dir);
      model.dispose();
      const file = path.join(dir, 'classifier.json');
      const info = JSON.parse(fs.readFileSync(file, 'utf8'));
      // Per layer: kernel, attention source, attention target, residual kernel, bias.
      info.dense.shapes = info.dense.shapes.map((s: number[], i: number) => (i % 5 === 1 || i % 5 === 2 ? [1, ...s] : s));
      fs.writeFileSync(file, JSON.stringify(info));
      const {model: again} = wm.nn.loadNodeClassifier(dir);
      const got = wm.nn.predictNodes(again, g);
      expect(Array.from(got.probabilities)).to.deep.equal(Array.from(want.probabilities));
      again.dispose();
      // A shape that would move values is refused.
      info.dense.shapes[5] = [...info.dense.shapes[5]].reverse(); // the output layer's kernel, [8, 2]
      fs.writeFileSync(file, JSON.stringify(info));
      expect(() => wm.nn.loadNodeClassifier(dir)).to.throw(/dense shapes .* differ from the model's/);
      g.dispose();
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });
});

/** The subgraph induced by `keep` (ascending; relabelled in its order), with its features and labels. */
function induced(data: NodeClassificationData, keep: Int32Array, name: string): NodeClassificationData {
  const graph = data.graph.induced(keep);
  const f = data.features!;
  const values = new Float32Array(keep.length * f.dim);
  keep.forEach((v, i) => values.set(f.values.subarray(v * f.dim, (v + 1) * f.dim), i * f.dim));
  return {
    ...data,
    name,
    graph,
    labels: Int32Array.from(keep, (v) => data.labels[v]),
    originalIds: Int32Array.from(keep),
    features: {...f, values},
    split: undefined,
    component: undefined,
  };
}

describe('inductive node classifiers', () => {
  it('a model that reads features only, trained on one graph, predicts another of a different size; one with embeddings is refused', async function () {
    this.timeout(120000);
    const dir = tempDir('wm-inductive-');
    try {
      // Two disjoint parts of one citation-like graph (as PPI's graphs are drawn from one distribution).
      const all = wm.graph.citationGraph({vertices: 3000, classes: 4, words: 300, wordSignal: 0.5, validation: 200, test: 400, seed: 6});
      const n = all.graph.numVertices;
      const a = induced(
        all,
        Int32Array.from({length: 1800}, (_, i) => i),
        'first part',
      );
      const b = induced(
        all,
        Int32Array.from({length: n - 1800}, (_, i) => 1800 + i),
        'second part',
      );
      for (const model of ['sage', 'gcn'] as const) {
        const out = path.join(dir, model);
        await trainNodeClassification(a, {model, inputs: 'features', epochs: 15, seed: 3, saveTo: out, baselines: false});
        const info = wm.nn.readClassifierInfo(out);
        const rows = wm.nn.inputFeatures(b, {from: 'data', normalized: info.features?.normalized ?? false});
        const features = wm.nn.featureTable(rows.values, b.graph.numVertices, rows.dim);
        const {model: m} = wm.nn.loadNodeClassifier(out, {features});
        const g = wm.nn.fullGraph(b.graph);
        const p = wm.nn.predictNodes(m, g);
        let right = 0;
        p.classes.forEach((c, i) => (right += c === b.labels[i] ? 1 : 0));
        const counts = [0, 0, 0, 0];
        for (const y of b.labels) ++counts[y];
        // Far above the largest class's share: the weights carried over to the unseen graph.
        expect(right / b.graph.numVertices, model).to.be.greaterThan(Math.max(...counts) / b.graph.numVertices + 0.2);
        m.dispose();
        g.dispose();
        features.dispose();
      }
      // npm run predict on the other part as a dataset folder: every vertex of it predicted.
      const other = path.join(dir, 'other');
      fs.mkdirSync(other);
      const edges: string[] = [];
      for (let v = 0; v < b.graph.numVertices; ++v)
        for (let e = b.graph.rowPtr[v]; e < b.graph.rowPtr[v + 1]; ++e) if (v < b.graph.colIdx[e]) edges.push(`${v}\t${b.graph.colIdx[e]}`);
      fs.writeFileSync(path.join(other, 'edges.tsv'), edges.join('\n') + '\n');
      fs.writeFileSync(path.join(other, 'vertex_value.tsv'), Array.from(b.labels, (y, v) => `${v}\t${y}`).join('\n') + '\n');
      writeNpy(path.join(other, 'vertex_features.npy'), b.features!.values, [b.graph.numVertices, b.features!.dim]);
      const tsv = path.join(dir, 'other.tsv');
      const r = spawnSync(
        process.execPath,
        [path.join(root, 'dist', 'examples', 'predict.js'), '--model', path.join(dir, 'sage'), '--data', other, '--out', tsv],
        {encoding: 'utf8'},
      );
      expect(r.status, r.stderr).to.equal(0);
      const kept = (await loadDataset(other)).graph.numVertices;
      expect(fs.readFileSync(tsv, 'utf8').trim().split('\n').length).to.equal(kept);
      // With a learnable table the model is its graph's: another graph's features are refused by name.
      const out = path.join(dir, 'both');
      await trainNodeClassification(a, {model: 'sage', inputs: 'both', epochs: 1, saveTo: out, baselines: false});
      const rows = wm.nn.inputFeatures(b, {from: 'data', normalized: false});
      const features = wm.nn.featureTable(rows.values, b.graph.numVertices, rows.dim);
      expect(() => wm.nn.loadNodeClassifier(out, {features})).to.throw(/learnable embedding per vertex of its graph \(1800\)/);
      const refused = spawnSync(process.execPath, [path.join(root, 'dist', 'examples', 'predict.js'), '--model', out, '--data', other], {
        encoding: 'utf8',
      });
      expect(refused.status).to.equal(1);
      expect(refused.stderr).to.match(/the model holds a learnable embedding for each of the 1800 it was trained on/);
      features.dispose();
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });
});

describe('node features in training', () => {
  it('a model that reads only features learns what the features say (no graph signal), and round-trips through save / load with its feature table', async function () {
    this.timeout(120000);
    const {trainNodeClassification} = await import('../src/train/node_classification');
    const data = wm.graph.csbm({vertices: 1200, classes: 4, homophily: 0.25, features: 16, signal: 4, seed: 3});
    const dir = tempDir('wm-feat-');
    try {
      const r = await trainNodeClassification(data, {seed: 0, epochs: 15, inputs: 'features', saveTo: dir});
      // Homophily at chance: label propagation cannot help, the features can.
      expect(r.baselines.labelPropagation.test).to.be.below(0.4);
      expect(r.testAcc).to.be.greaterThan(0.85);
      const info = wm.nn.readClassifierInfo(dir);
      expect(info.features).to.deep.equal({dim: 16, from: 'data', normalized: false});
      expect(info.embedding).to.equal(undefined);
      expect(() => wm.nn.loadNodeClassifier(dir)).to.throw(/reads 16 node features; pass \{features/);
      const table = wm.nn.featureTable(data.features!.values, 1200, 16);
      const {model} = wm.nn.loadNodeClassifier(dir, {features: table});
      const g = wm.nn.fullGraph(data.graph);
      const p = wm.nn.predictNodes(model, g, r.history.length ? Int32Array.from([0, 1, 2, 3]) : undefined);
      expect(p.classes.length).to.equal(4);
      g.dispose();
      model.dispose();
      table.dispose();
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('features in float16 and bfloat16 storage, beside learnable embeddings', async function () {
    this.timeout(120000);
    const {trainNodeClassification} = await import('../src/train/node_classification');
    const data = wm.graph.csbm({vertices: 800, classes: 3, homophily: 0.3, features: 8, signal: 5, seed: 4});
    for (const featureDtype of ['float16', 'bfloat16'] as const) {
      const r = await trainNodeClassification(data, {seed: 1, epochs: 10, inputs: 'both', featureDtype});
      expect(r.testAcc, featureDtype).to.be.greaterThan(0.8);
    }
  });
});

describe('node features over several processes', () => {
  it('the data-parallel example shares the feature table between 2 ranks (continuous WholeMemory, on the CPU) and learns from it, with or without a feature cache on each rank', async function () {
    this.timeout(180000);
    const {writeNpy} = await import('../src/data/npy');
    const dir = tempDir('wm-dpfeat-');
    try {
      const n = 1200;
      const d = wm.graph.csbm({vertices: n, classes: 5, homophily: 0.3, features: 16, signal: 3, seed: 9});
      const lines = [`# directed=0 vertices=${n}`];
      for (let v = 0; v < n; ++v)
        for (let e = d.graph.rowPtr[v]; e < d.graph.rowPtr[v + 1]; ++e) if (d.graph.colIdx[e] > v) lines.push(`${v}\t${d.graph.colIdx[e]}`);
      fs.writeFileSync(path.join(dir, 'edges.tsv'), lines.join('\n'));
      fs.writeFileSync(path.join(dir, 'vertex_value.tsv'), Array.from(d.labels, (y, v) => `${v}\tc${y}`).join('\n'));
      writeNpy(path.join(dir, 'vertex_features.npy'), d.features!.values, [n, 16]);
      const run = (inputs: string, ...more: string[]) => {
        const r = spawnSync(
          process.execPath,
          [
            path.join(root, 'dist', 'bin', 'tfjs-wm-run.js'),
            '-n',
            '2',
            path.join(root, 'dist', 'examples', 'data-parallel.js'),
            '--data',
            dir,
            '--epochs',
            '8',
            '--memory',
            'continuous',
            '--inputs',
            inputs,
            ...more,
            '--out',
            path.join(dir, 'out'),
          ],
          {encoding: 'utf8', env: {...process.env, TFJS_WHOLEMEMORY_DEVICE: 'cpu'}},
        );
        expect(r.status, r.stdout + r.stderr).to.equal(0);
        const m = /test accuracy ([\d.]+) %/.exec(r.stdout);
        expect(m, r.stdout).to.not.equal(null);
        return {accuracy: Number(m![1]), out: r.stdout};
      };
      // Homophily near chance: only the features can tell the classes apart.
      const plain = run('features');
      expect(plain.accuracy).to.be.greaterThan(75);
      expect(run('embeddings').accuracy).to.be.below(50);
      // Each rank's cache of the rows the other holds: the same reads, so the same training, and its hit rate.
      const cached = run('features', '--feature-cache', '0.3');
      const losses = (out: string) => Array.from(out.matchAll(/epoch +\d+\/8 loss ([\d.]+)/g), (x) => x[1]);
      expect(losses(cached.out)).to.have.length(8);
      expect(losses(cached.out)).to.deep.equal(losses(plain.out));
      expect(cached.accuracy).to.equal(plain.accuracy);
      const rates = Array.from(cached.out.matchAll(/feature cache hit rate ([\d.]+)/g), (x) => Number(x[1]));
      expect(rates, cached.out).to.have.length(8);
      for (const h of rates) expect(h, 'a third of the rows, the highest-degree ones: some reads hit, not all').to.be.within(0.05, 0.95);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });
});

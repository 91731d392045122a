// Citation-like graphs, the Planetoid split, full-batch training with early
// stopping, feature normalisation, smoothing chosen on validation, and the
// model search that picks a configuration by validation accuracy alone.
import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {labelPropagation, nearestClassMean} from '../src/train/baselines';
import {nodeModelCandidates, searchNodeModel} from '../src/train/model_search';
import {trainNodeClassification} from '../src/train/node_classification';
import {rowNormalized} from '../src/graph/transforms';
import {rng} from './helpers';
import {tempDir} from './temp_dirs';

describe('choosing node classifiers on validation', () => {
  describe('citation-like graphs (wm.graph.citationGraph)', () => {
    it('bag-of-words rows, the Planetoid split, the asked homophily; seeded', () => {
      const d = wm.graph.citationGraph({seed: 4});
      expect(d.graph.numVertices).to.equal(2708);
      expect(d.features!.dim).to.equal(1433);
      // 3.9M values: counted in one loop, asserted once (an assertion per value took seconds).
      let words = 0,
        notBinary = 0;
      for (const x of d.features!.values) {
        if (x !== 0 && x !== 1) ++notBinary;
        words += x;
      }
      expect(notBinary, 'values other than 0 and 1').to.equal(0);
      expect(words / 2708).to.be.within(16, 20);
      const perClass = new Array(7).fill(0);
      for (const v of d.split!.train) ++perClass[d.labels[v]];
      expect(perClass).to.deep.equal(new Array(7).fill(20));
      expect([d.split!.val.length, d.split!.test.length]).to.deep.equal([500, 1000]);
      const all = new Set([...d.split!.train, ...d.split!.val, ...d.split!.test]);
      expect(all.size).to.equal(140 + 1500);
      let same = 0;
      const g = d.graph;
      for (let v = 0; v < g.numVertices; ++v)
        for (let e = g.rowPtr[v]; e < g.rowPtr[v + 1]; ++e) same += d.labels[g.colIdx[e]] === d.labels[v] ? 1 : 0;
      expect(same / g.numEdges).to.be.within(0.75, 0.85);
      expect(g.numEdges / 2 / g.numVertices).to.be.within(1.7, 2.0);
      const again = wm.graph.citationGraph({seed: 4});
      expect(Array.from(again.graph.colIdx)).to.deep.equal(Array.from(g.colIdx));
      const [a, b] = [again.features!.values, d.features!.values];
      expect(a.length).to.equal(b.length);
      expect(
        a.findIndex((x, i) => x !== b[i]),
        'the first value that differs',
      ).to.equal(-1);
      expect(wm.graph.citationGraph({seed: 5}).graph.numEdges).to.not.equal(undefined);
    });

    it('like the benchmarks: features alone and label propagation each get part of the way', () => {
      const d = wm.graph.citationGraph({seed: 2});
      const lp = labelPropagation(d.graph, d.labels, d.numClasses, d.split!).test;
      const fo = nearestClassMean(d.features!.values, d.features!.dim, d.labels, d.numClasses, d.split!).test;
      expect(lp).to.be.within(0.6, 0.8);
      expect(fo).to.be.within(0.45, 0.7);
    });

    it('word signal moves the features-only accuracy; bad options are named', () => {
      const weak = wm.graph.citationGraph({seed: 3, wordSignal: 0.05});
      const strong = wm.graph.citationGraph({seed: 3, wordSignal: 0.5});
      const acc = (d: typeof weak) => nearestClassMean(d.features!.values, d.features!.dim, d.labels, d.numClasses, d.split!).test;
      expect(acc(strong)).to.be.greaterThan(acc(weak) + 0.2);
      expect(() => wm.graph.citationGraph({wordSignal: 2})).to.throw(/citationGraph: wordSignal must be in \[0, 1\], got 2/);
      expect(() => wm.graph.citationGraph({vertices: 1500})).to.throw(
        /20 labels x 7 classes \+ 500 validation \+ 1000 test is more than the 1500/,
      );
      expect(() => wm.graph.citationGraph({seed: NaN})).to.throw(/citationGraph: seed must be a non-negative integer/);
    });
  });

  it('planetoidSplit: per-class training labels, then validation and test from the rest, unlabelled vertices in none', () => {
    const labels = Int32Array.from({length: 300}, (_, i) => (i % 10 === 9 ? -1 : i % 3));
    const s = wm.graph.planetoidSplit(labels, 3, 5, 40, 100, rng(1));
    const counts = [0, 0, 0];
    for (const v of s.train) ++counts[labels[v]];
    expect(counts).to.deep.equal([5, 5, 5]);
    const all = [...s.train, ...s.val, ...s.test];
    expect(new Set(all).size).to.equal(all.length);
    for (const v of all) expect(labels[v]).to.be.at.least(0);
    expect(() => wm.graph.planetoidSplit(labels, 3, 200, 0, 1, rng(1))).to.throw(/class 0 has 90 labelled vertices, fewer than 200/);
  });

  it('rowNormalized: non-negative rows sum to 1; rows with a negative value or all zeros stay', () => {
    const v = Float32Array.from([1, 1, 2, 0, 0, 0, -1, 2, 3]);
    expect(Array.from(rowNormalized({values: v, dim: 3}))).to.deep.equal([0.25, 0.25, 0.5, 0, 0, 0, -1, 2, 3]);
    expect(Array.from(v.subarray(0, 3))).to.deep.equal([1, 1, 2]); // a copy
  });

  it('structure features: rows of close vertices are close; seeded; a classifier over them beats chance on a featureless graph', async () => {
    const data = wm.graph.csbm({vertices: 400, classes: 4, degree: 10, homophily: 0.9, seed: 5});
    const f = wm.graph.structureFeatures(data.graph, {dim: 16, powers: 3, seed: 2});
    expect(f.dim).to.equal(48);
    expect(f.values.length).to.equal(400 * 48);
    expect(Array.from(wm.graph.structureFeatures(data.graph, {dim: 16, powers: 3, seed: 2}).values)).to.deep.equal(Array.from(f.values));
    // Same-class pairs (mostly linked) are more alike than pairs from different classes.
    const dot = (a: number, b: number) => {
      let s = 0;
      for (let k = 0; k < 48; ++k) s += f.values[a * 48 + k] * f.values[b * 48 + k];
      return s;
    };
    let same = 0,
      other = 0,
      nSame = 0,
      nOther = 0;
    for (let a = 0; a < 200; ++a)
      for (let b = a + 1; b < 200; ++b) {
        if (data.labels[a] === data.labels[b]) ((same += dot(a, b)), ++nSame);
        else ((other += dot(a, b)), ++nOther);
      }
    expect(same / nSame).to.be.greaterThan(other / nOther + 0.1);
    const r = await trainNodeClassification(data, {model: 'gcn', inputs: 'structure', fullBatch: true, epochs: 60, seed: 1});
    expect(r.modelTestAcc).to.be.greaterThan(0.5);
    expect(r.baselines.structureOnly!.test).to.be.greaterThan(0.4);
    expect(() => wm.graph.structureFeatures(data.graph, {dim: 0})).to.throw(
      /structureFeatures: dim must be an integer in \[1, 4096\], got 0/,
    );
  });

  it('SGC baseline: printed beside featured data, above chance on a citation-like graph, no tensors left', async () => {
    const data = wm.graph.citationGraph({vertices: 600, classes: 3, words: 200, labelsPerClass: 10, validation: 100, test: 300, seed: 8});
    const before = tf.memory().numTensors;
    const r = await trainNodeClassification(data, {model: 'gcn', inputs: 'features', fullBatch: true, epochs: 5, seed: 0});
    expect(r.baselines.sgc!.test).to.be.greaterThan(0.5);
    expect(r.baselines.sgc!.val).to.be.greaterThan(0.5);
    expect(tf.memory().numTensors).to.equal(before);
  });

  describe('full-batch training', () => {
    const data = wm.graph.citationGraph({vertices: 600, classes: 3, words: 200, labelsPerClass: 10, validation: 100, test: 300, seed: 7});

    for (const model of ['gcn', 'sage', 'gat'] as const) {
      it(`${model}: one step per epoch over the whole graph learns the classes; early stopping ends the run`, async () => {
        const before = tf.memory().numTensors;
        const r = await trainNodeClassification(data, {
          model,
          heads: 2,
          inputs: 'features',
          fullBatch: true,
          normalizeFeatures: true,
          epochs: 300,
          patience: 15,
          seed: 1,
        });
        expect(r.history.length).to.be.below(300);
        expect(r.history.length).to.be.at.most(r.bestEpoch + 15 + 1);
        expect(r.modelTestAcc).to.be.greaterThan(Math.max(r.baselines.labelPropagation.test, r.baselines.featuresOnly!.test) - 0.05);
        expect(r.history[r.history.length - 1].loss).to.be.below(r.history[0].loss);
        expect(tf.memory().numTensors).to.equal(before);
      });
    }

    it('with embeddings beside the features, the table gets its sparse steps too', async () => {
      const r = await trainNodeClassification(data, {model: 'gcn', inputs: 'both', fullBatch: true, epochs: 20, seed: 2});
      expect(r.history[19].loss).to.be.below(r.history[0].loss);
    });

    it("smoothing 'auto' keeps whichever of the model's and the smoothed predictions is better on validation", async () => {
      const r = await trainNodeClassification(data, {model: 'gcn', inputs: 'features', fullBatch: true, epochs: 40, seed: 3});
      if (r.smoothed) expect(r.valAcc).to.be.at.least(r.modelValAcc);
      else expect(r.valAcc).to.equal(r.modelValAcc);
      const off = await trainNodeClassification(data, {
        model: 'gcn',
        inputs: 'features',
        fullBatch: true,
        epochs: 40,
        seed: 3,
        smooth: false,
      });
      expect(off.smoothed).to.equal(false);
      expect(off.testAcc).to.equal(off.modelTestAcc);
    });
  });

  describe('the model search', () => {
    it('tries the GCN recipe first, chooses by validation accuracy, and never reports test accuracy', async () => {
      const data = wm.graph.citationGraph({vertices: 500, classes: 3, words: 150, labelsPerClass: 10, validation: 100, test: 200, seed: 9});
      const candidates = nodeModelCandidates(data);
      expect(candidates[0].name).to.equal('GCN on features, features normalised');
      expect(candidates[0].options).to.include({model: 'gcn', inputs: 'features', dropout: 0.5, weightDecay: 5e-4, learningRate: 0.01});
      const heard: string[] = [];
      const s = await searchNodeModel(
        data,
        {epochs: 30},
        {
          candidates: candidates.slice(0, 3).map((c) => ({...c, options: {...c.options, epochs: 30, patience: 10}})),
          onResult: (r) => heard.push(r.candidate.name),
        },
      );
      expect(heard).to.have.length(3);
      const best = Math.max(...s.results.map((r) => r.valAcc!));
      expect(s.results.find((r) => r.candidate === s.chosen)!.valAcc).to.equal(best);
      for (const r of s.results) expect(Object.keys(r)).to.not.include('testAcc');
    });

    it('graphs without features get structure and embedding candidates; a spent budget skips the rest and says so', async () => {
      const data = wm.graph.csbm({vertices: 300, classes: 3, degree: 8, homophily: 0.9, seed: 2});
      const candidates = nodeModelCandidates(data);
      expect(candidates.map((c) => c.options.inputs)).to.include.members(['structure', 'embeddings']);
      expect(candidates.every((c) => c.options.inputs === 'structure' || c.options.inputs === 'embeddings')).to.equal(true);
      const short = candidates.map((c) => ({...c, options: {...c.options, epochs: 5}}));
      const s = await searchNodeModel(data, {}, {budgetSeconds: 1e-3, candidates: short});
      expect(s.results[0].valAcc).to.be.a('number');
      expect(s.results.slice(1).every((r) => /it would not end within the search's 0.001 s/.test(r.skipped ?? ''))).to.equal(true);
      expect(s.chosen).to.equal(short[0]);
    });

    it('the budget is a bound: a candidate it stops before its epochs are done is not chosen, and the search ends within it', async () => {
      const data = wm.graph.csbm({vertices: 300, classes: 3, degree: 8, homophily: 0.9, seed: 2});
      const [first, second] = nodeModelCandidates(data);
      const quick = {...first, options: {...first.options, epochs: 1}};
      const endless = {...second, options: {...second.options, epochs: 100_000}};
      const started = Date.now();
      const s = await searchNodeModel(data, {}, {budgetSeconds: 3, candidates: [quick, endless]});
      const seconds = (Date.now() - started) / 1000;
      expect(s.results[1].skipped).to.match(/the search's 3 s ran out before it finished/);
      expect(s.results[1].valAcc).to.equal(undefined);
      expect(s.chosen).to.equal(quick);
      expect(seconds).to.be.below(4.5);
    });
  });

  it('the main job chooses on validation when no model is given, prints one line per candidate, and says the headline is smoothed when it is', function () {
    this.timeout(300_000);
    const {spawnSync} = require('child_process') as typeof import('child_process');
    const path = require('path') as typeof import('path');
    const out = tempDir('wm-search-');
    const r = spawnSync(
      process.execPath,
      [
        path.resolve(__dirname, '..', 'examples', 'node-classification.js'),
        '--citation',
        'vertices=500,classes=3,words=150,labelsPerClass=10,validation=100,test=200,seed=3',
        '--seeds',
        '2',
        '--search-seconds',
        '30',
        '--out',
        out,
      ],
      {encoding: 'utf8', env: {...process.env, TFJS_WHOLEMEMORY_DEVICE: 'cpu'}},
    );
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/choosing the model on the validation splits of seeds 0 and 1/);
    expect(r.stdout).to.match(/GCN on features, features normalised\s+validation \d+\.\d %/);
    expect(r.stdout).to.match(/chosen: .* \(the best validation accuracy\)/);
    expect(r.stdout).to.match(
      /test accuracy \d+\.\d\d ± \d+\.\d\d % over 2 seeds, .* \((the model's predictions smoothed over the graph with the training labels|the model, unsmoothed)/,
    );
    const search = r.stdout.slice(r.stdout.indexOf('choosing'), r.stdout.indexOf('chosen:'));
    expect(search).to.not.match(/test/);
  });
});

describe('first contact', () => {
  it("node2vec's probe splits only the labelled vertices", async () => {
    const {logisticProbe} = await import('../src/train/node2vec');
    const emb = wm.nn.embedding({rows: 40, dim: 4, init: {seed: 3}});
    const labels = Int32Array.from({length: 40}, (_, i) => (i % 5 === 0 ? -1 : i % 2));
    const r = await logisticProbe(emb, labels, 2, {steps: 5});
    expect(r.testAcc).to.be.within(0, 1);
    await logisticProbe(emb, new Int32Array(40).fill(-1), 2).then(
      () => expect.fail('probed without labels'),
      (e: Error) => expect(e.message).to.match(/logisticProbe: 0 labelled vertices; the probe needs at least 4/),
    );
    emb.dispose();
  });

  it("dataParallel's minimize takes tf's (f, returnCost, varList) as well as (f, varList)", () => {
    const comm = wm.createCommunicator(wm.getUniqueId(), 0, 1);
    const w = tf.variable(tf.ones([3]));
    const dp = wm.dataParallel(tf.train.sgd(0.1), comm);
    const f = () => tf.sum(tf.square(w)) as tf.Scalar;
    const cost = dp.minimize(f, true, [w])!;
    expect(cost.dataSync()[0]).to.be.closeTo(3, 1e-6);
    expect(dp.minimize(f, false)).to.equal(null);
    const again = dp.minimize(f, [w]);
    expect(again.rank).to.equal(0);
    tf.dispose([w, cost, again]);
    comm.destroy();
  });

  it('createNodeClassifier needs only the sizes; softmaxCrossEntropy takes plain class ids and names a bad one', () => {
    const {createNodeClassifier} = require('../src/train/node_classification') as typeof import('../src/train/node_classification');
    const m = createNodeClassifier('gcn', {numNodes: 10, numClasses: 3});
    expect(m.config.hiddenDim).to.equal(64);
    m.dispose();
    const logits = tf.randomNormal([3, 4]);
    const loss: tf.Scalar = wm.nn.softmaxCrossEntropy([0, 3, 1], logits);
    expect(loss.rank).to.equal(0);
    expect(() => wm.nn.softmaxCrossEntropy([0, 1.5, 1], logits)).to.throw(/softmaxCrossEntropy: labels: indices\[1\] = 1.5/);
    expect(() => wm.nn.softmaxCrossEntropy('x' as never, logits)).to.throw(
      /labels must be a tensor, an Int32Array or an array of class ids/,
    );
    tf.dispose([logits, loss]);
  });

  it('plain arrays as seeds: sampleSubgraph and uniqueAndRelabel', () => {
    const g = wm.graph.CsrGraph.fromEdges(
      {numVertices: 6, src: Int32Array.from([0, 1, 2, 3]), dst: Int32Array.from([1, 2, 3, 4]), directed: false},
      {symmetric: true},
    );
    const sub = wm.graph.sampleSubgraph(g, [1, 3], [2], {seed: 1});
    expect(Array.from(sub.layers[0].dst)).to.deep.equal([1, 3]);
    sub.dispose();
    expect(Array.from(wm.graph.uniqueAndRelabel([5, 2, 5]).unique)).to.deep.equal([5, 2]);
    expect(() => wm.graph.sampleSubgraph(g, [1, 2.5], [2])).to.throw(/sampleSubgraph: seeds: indices\[1\] = 2.5/);
  });

  it('the largest component kept is said: polblogs keeps 1,222 of its 1,490 vertices', async () => {
    const path = require('path') as typeof import('path');
    const d = await wm.graph.loadDataset(path.resolve(__dirname, '..', '..', 'data', 'polblogs'));
    expect(d.component).to.deep.equal({kept: 1222, of: 1490});
  });

  it('npm run plot redraws a run with its own title', async function () {
    this.timeout(60_000);
    const fs = require('fs') as typeof import('fs');
    const path = require('path') as typeof import('path');
    const {spawnSync} = require('child_process') as typeof import('child_process');
    const {MetricsLog} = await import('../src/train/metrics_log');
    const {plotTrainingCurves} = await import('../src/train/plot');
    const dir = tempDir('wm-plot-');
    const log = new MetricsLog(path.join(dir, 'metrics.jsonl'));
    const records = [1, 2, 3].map((epoch) => ({seed: 0, epoch, loss: 1 / epoch, trainAcc: 0.5, valAcc: 0.4, testAcc: 0.4}));
    for (const r of records) log.write({type: 'epoch', ...r});
    await plotTrainingCurves(records, path.join(dir, 'first'), 'GCN on a title to keep', undefined, undefined, log);
    const r = spawnSync(process.execPath, [path.resolve(__dirname, '..', 'examples', 'plot-metrics.js'), path.join(dir, 'metrics.jsonl')], {
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).to.equal(0);
    expect(fs.readFileSync(path.join(dir, 'metrics.svg'), 'utf8')).to.include('GCN on a title to keep');
  });
});

describe('fit class-means', () => {
  it('a one-layer model set to the nearest training class mean predicts what the features-only baseline does', async () => {
    const data = wm.graph.csbm({vertices: 600, classes: 4, features: 16, homophily: 0.3, signal: 2, seed: 4});
    const r = await trainNodeClassification(data, {
      model: 'mlp',
      inputs: 'features',
      fanouts: [1],
      fit: 'class-means',
      smooth: false,
      seed: 2,
    });
    expect(r.history).to.have.length(1);
    expect(r.modelTestAcc).to.equal(r.baselines.featuresOnly!.test);
    await trainNodeClassification(data, {model: 'gcn', inputs: 'features', fit: 'class-means', epochs: 1}).then(
      () => expect.fail('fitted a GCN by class means'),
      (e: Error) => expect(e.message).to.match(/fit 'class-means' needs model 'mlp' with one layer/),
    );
  });
});

// GNN link prediction from the public layers and the link loader: it learns (held-out edges rank above
// non-edges, beyond the common-neighbours heuristic on a graph whose edges follow the features), the
// metrics are right on hand-made scores, and bad options are named.
import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {meanReciprocalRank} from '../src/train/link_metrics';

describe('GNN link prediction (wm.train.trainGnnLinkPrediction)', function () {
  this.timeout(300000);
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  it('MRR: each positive ranked among the negatives, ties counted half', () => {
    expect(meanReciprocalRank([5, 1], [4, 3, 2])).to.be.closeTo((1 + 1 / 4) / 2, 1e-12);
    expect(meanReciprocalRank([3], [4, 3, 3])).to.be.closeTo(1 / 3, 1e-12);
    expect(meanReciprocalRank([], [1])).to.equal(0);
  });

  it('a two-layer GraphSAGE encoder over features ranks held-out edges above non-edges, past common neighbours', async () => {
    // Sparse and homophilous: few shared neighbours, but the features say which class a vertex is in.
    const data = wm.graph.csbm({vertices: 800, classes: 8, features: 16, degree: 6, homophily: 0.95, signal: 3, seed: 7});
    const seen: number[] = [];
    const r = await wm.train.trainGnnLinkPrediction(data.graph, data.features!, {epochs: 6, hidden: 32, fanouts: [8, 8], seed: 3}, (m) =>
      seen.push(m.epoch),
    );
    expect(seen).to.deep.equal([1, 2, 3, 4, 5, 6]);
    expect(r.epochs[5].loss).to.be.below(r.epochs[0].loss);
    expect(r.best.test.auc, 'GNN test AUC').to.be.above(0.75);
    expect(r.best.test.auc).to.be.above(r.commonNeighbours.auc);
    for (const s of [r.best.test, r.commonNeighbours]) {
      expect(s.hits).to.be.within(0, 1);
      expect(s.mrr).to.be.within(0, 1);
    }
    const mlp = await wm.train.trainGnnLinkPrediction(data.graph, data.features!, {epochs: 8, hidden: 32, decoder: 'mlp', seed: 3});
    expect(mlp.best.test.auc, 'MLP decoder AUC').to.be.above(0.8);
  });

  it("without features the encoder reads the training graph's structure features, not the held-out edges'", async () => {
    // Edges that follow the classes; no features given.
    const data = wm.graph.csbm({vertices: 600, classes: 6, features: 4, degree: 6, homophily: 0.95, signal: 1, seed: 5});
    const o = {epochs: 4, hidden: 16, fanouts: [6, 6], decoder: 'mlp' as const, seed: 2};
    const r = await wm.train.trainGnnLinkPrediction(data.graph, undefined, o);
    expect(r.inputs).to.equal('structure');
    expect(r.best.test.auc, 'AUC from structure alone').to.be.above(0.75);
    // The same run given the structure features of the split's training graph: the same scores.
    const train = wm.graph.structureFeatures(r.split.train, {seed: o.seed});
    const given = await wm.train.trainGnnLinkPrediction(data.graph, train, o);
    expect(given.inputs).to.equal('features');
    expect(given.best.test.auc).to.be.closeTo(r.best.test.auc, 1e-6);
    expect(given.epochs.map((e) => e.loss)).to.deep.equal(r.epochs.map((e) => e.loss));
    // Over the whole graph's structure (the held-out edges included) the inputs differ.
    const whole = wm.graph.structureFeatures(data.graph, {seed: o.seed});
    expect(Array.from(whole.values.subarray(0, 64))).to.not.deep.equal(Array.from(train.values.subarray(0, 64)));
  });

  it('bad options are named', async () => {
    const data = wm.graph.csbm({vertices: 50, classes: 2, features: 4, degree: 4, seed: 1});
    const fail = (o: object) =>
      wm.train.trainGnnLinkPrediction(data.graph, data.features!, o).then(
        () => '',
        (e: Error) => e.message,
      );
    expect(await fail({epochs: 0})).to.match(/epochs must be a positive integer, got 0/);
    expect(await fail({decoder: 'cosine'})).to.match(/decoder must be 'dot' or 'mlp', got cosine/);
    expect(await fail({seed: -1})).to.match(/seed must be a non-negative integer/);
    expect(
      await wm.train.trainGnnLinkPrediction(data.graph, {values: new Float32Array(3), dim: 4}).then(
        () => '',
        (e: Error) => e.message,
      ),
    ).to.match(/3 feature values for 50 vertices of 4/);
  });
});

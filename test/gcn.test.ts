// The GCN node classifier (the main job's --model gcn); its normalised
// aggregation is checked against float64 in graph.test.ts.
import '@tensorflow/tfjs-backend-cpu';

import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {loadDataset} from '../src/graph/dataset';
import {trainNodeClassification} from '../src/train/node_classification';
import {assertGpuIfRequired, expectReject, nativeHere} from './helpers';

describe('GCN', () => {
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    assertGpuIfRequired();
  });

  it("the main job's --model gcn classifies polblogs (one seed, 20 epochs: test accuracy above 85%), every kernel native, leaving no tensor behind", async function () {
    this.timeout(120000);
    const data = await loadDataset(path.join(__dirname, '..', '..', 'data', 'polblogs'));
    const before = wm.memoryInfo();
    wm.resetFallbackCounts();
    const r = await trainNodeClassification(data, {model: 'gcn', epochs: 20, seed: 0});
    const after = wm.memoryInfo();
    if (nativeHere('')) expect(wm.fallbackCounts(), 'kernels that ran on tfjs-backend-cpu').to.deep.equal({});
    expect(r.testAcc, `test accuracy at the best validation epoch (${r.bestEpoch})`).to.be.above(0.85);
    expect(r.history[r.history.length - 1].loss, "the last epoch's loss against the first").to.be.below(r.history[0].loss / 2);
    expect(after.numTensors, 'tensors after training').to.equal(before.numTensors);
    expect(after.deviceBytesInUse, 'device bytes after training').to.equal(before.deviceBytesInUse);
    await expectReject(
      trainNodeClassification(data, {model: 'gcn', sampler: 'tree', epochs: 1}),
      /model 'gcn' runs over compact subgraphs: use sampler 'subgraph'/,
    );
    // The classes are the library's too: logits for every vertex over the whole graph.
    const model = wm.train.createNodeClassifier('gcn', {
      numNodes: data.graph.numVertices,
      numClasses: data.numClasses,
      embeddingDim: 8,
      hiddenDim: 16,
      numLayers: 2,
      dropout: 0,
      seed: 1,
      embeddingLearningRate: 0.01,
    });
    expect(model).to.be.instanceOf(wm.nn.GcnClassifier);
    const full = wm.nn.fullGraph(data.graph);
    const logits = model.forwardFull(full);
    expect(logits.shape).to.deep.equal([data.graph.numVertices, data.numClasses]);
    tf.dispose(logits);
    full.dispose();
    model.dispose();
    await expectReject(
      trainNodeClassification(data, {model: 'gin' as never, epochs: 1}),
      /model must be one of sage, gat, gcn, mlp, got 'gin'/,
    );
  });
});

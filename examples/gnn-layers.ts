// GCN, GraphSAGE and GAT written from the graph layers (wm.nn.gcnConv, sageConv, gatConv), as a PyG user
// writes them (docs/gnn-guide.md shows both side by side): a CSBM graph with bag-of-words-like features
// and 20 labels per class; GCN and GAT trained full-batch, GraphSAGE from a NeighborLoader; test accuracy.
// `node dist/examples/gnn-layers.js [--epochs N] [--vertices N]`
import * as tf from '@tensorflow/tfjs';

import * as wm from '../src/index';
import {seededRng} from '../src/util/random';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

function accuracy(logits: tf.Tensor, labels: Int32Array, ids: Int32Array): number {
  const t = tf.tidy(() => tf.argMax(tf.gather(logits, tf.tensor1d(ids, 'int32')), 1));
  const pred = t.dataSync();
  t.dispose();
  return ids.reduce((a, v, i) => a + (pred[i] === labels[v] ? 1 : 0), 0) / ids.length;
}

/** Full-batch training of a model of graph layers; the test accuracy at the best validation epoch. */
async function fullBatch(
  model: tf.Sequential,
  x: tf.Tensor2D,
  block: wm.graph.CsrBlock,
  data: wm.graph.NodeClassificationData,
  epochs: number,
): Promise<number> {
  const {split, labels} = data;
  const opt = tf.train.adam(0.01);
  const y = tf.tensor1d(
    Int32Array.from(split!.train, (v) => labels[v]),
    'int32',
  );
  const train = tf.tensor1d(split!.train, 'int32');
  let best = {val: -1, test: 0};
  for (let e = 0; e < epochs; ++e) {
    opt.minimize(() => {
      const logits = wm.nn.withGraph(block, () => model.apply(x, {training: true}) as tf.Tensor2D);
      const penalty = model.calculateLosses();
      const loss = wm.nn.softmaxCrossEntropy(y, tf.gather(logits, train) as tf.Tensor2D) as tf.Scalar;
      return penalty.length ? tf.add(loss, tf.addN(penalty)) : loss;
    });
    const logits = wm.nn.withGraph(block, () => model.apply(x) as tf.Tensor2D);
    const val = accuracy(logits, labels, split!.val);
    if (val > best.val) best = {val, test: accuracy(logits, labels, split!.test)};
    logits.dispose();
  }
  tf.dispose([y, train]);
  return best.test;
}

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const epochs = arg('epochs', 100),
    vertices = arg('vertices', 3000);
  const data = wm.graph.csbm({vertices, classes: 6, features: 64, degree: 8, homophily: 0.8, signal: 1, seed: 1});
  data.split = wm.graph.planetoidSplit(data.labels, data.numClasses, 20, 500, 1000, seededRng(2));
  const f = data.features!;
  const x = tf.tensor2d(f.values, [vertices, f.dim]);
  const block = wm.graph.CsrBlock.fromGraph(data.graph);

  // GCN (PyG: GCNConv(F, 16) -> ReLU -> GCNConv(16, C)).
  const gcn = tf.sequential({
    layers: [
      wm.nn.gcnConv({units: 16, activation: 'relu', inputShape: [f.dim], kernelRegularizer: {weightDecay: 5e-4}, seed: 1}),
      wm.nn.dropoutLayer({rate: 0.5, seed: 2}),
      wm.nn.gcnConv({units: data.numClasses, seed: 2}),
    ],
  });
  console.log(`GCN: test accuracy ${(100 * (await fullBatch(gcn, x, block, data, epochs))).toFixed(1)} %`);

  // GAT (PyG: GATConv(F, 8, heads=8) -> ELU -> GATConv(64, C, heads=1)).
  const gat = tf.sequential({
    layers: [
      wm.nn.gatConv({units: 8, heads: 8, activation: 'elu', inputShape: [f.dim], seed: 3}),
      wm.nn.dropoutLayer({rate: 0.6, seed: 3}),
      wm.nn.gatConv({units: data.numClasses, heads: 1, seed: 4}),
    ],
  });
  console.log(`GAT: test accuracy ${(100 * (await fullBatch(gat, x, block, data, epochs))).toFixed(1)} %`);

  // GraphSAGE from a loader (PyG: NeighborLoader(data, num_neighbors=[10, 10], batch_size=128, input_nodes=train)).
  const features = wm.nn.featureTable(f.values, vertices, f.dim);
  const loader = new wm.nn.NeighborLoader(data.graph, data.split.train, {
    fanouts: [10, 10],
    batchSize: 128,
    features,
    labels: data.labels,
    seed: 5,
  });
  const sage = tf.sequential({
    layers: [
      wm.nn.sageConv({units: 64, activation: 'relu', inputShape: [f.dim], kernelRegularizer: {weightDecay: 5e-4}, seed: 5}),
      wm.nn.dropoutLayer({rate: 0.5, seed: 2}),
      wm.nn.sageConv({units: data.numClasses, seed: 6}),
    ],
  });
  const opt = tf.train.adam(0.01);
  let best = {val: -1, test: 0};
  for (let e = 0; e < epochs; ++e) {
    for await (const batch of loader) {
      // The first conv reads batch.layers[0], the second batch.layers[1]: their outputs are the seeds' rows.
      opt.minimize(() => {
        const logits = wm.nn.withGraph(batch.layers, () => sage.apply(batch.x!, {training: true}) as tf.Tensor2D);
        return tf.add(wm.nn.softmaxCrossEntropy(batch.y!, logits), tf.addN(sage.calculateLosses())) as tf.Scalar;
      });
      batch.dispose();
    }
    // Evaluation over full neighbourhoods: the whole graph as one block for every layer.
    const logits = wm.nn.withGraph(block, () => sage.apply(x) as tf.Tensor2D);
    const val = accuracy(logits, data.labels, data.split.val);
    if (val > best.val) best = {val, test: accuracy(logits, data.labels, data.split.test)};
    logits.dispose();
  }
  console.log(`GraphSAGE: test accuracy ${(100 * best.test).toFixed(1)} %`);
  features.dispose();
  block.dispose();
  x.dispose();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

// The molecule-sized graphs bench:graphs trains on (and its probes): seeded, 15 to 35 vertices, a random tree and
// a few more bonds, 9 atom and 3 bond feature columns, two classes; and its model and training epoch.
import * as tf from '@tensorflow/tfjs-core';

import {SmallGraph} from '../src/graph/graph_batch';
import {GraphLoader} from '../src/graph/graph_loader';
import {GraphClassifier} from '../src/nn/graph_classifier';
import {softmaxCrossEntropy} from '../src/nn/softmax_cross_entropy';
import {adam} from '../src/optimizers/fused_adam';
import {seededRng} from '../src/util/random';

/** Atom and bond feature columns. */
export const ATOM = 9,
  BOND = 3;

/** Molecule-sized graphs: a random tree plus about 3 more bonds, each bond once (the loader makes it two-way). */
export function molecules(count: number, seed: number): SmallGraph[] {
  const rng = seededRng(seed);
  return Array.from({length: count}, () => {
    const n = 15 + Math.floor(rng() * 21);
    const src: number[] = [],
      dst: number[] = [];
    for (let v = 1; v < n; ++v) (src.push(Math.floor(rng() * v)), dst.push(v));
    for (let k = 0; k < 3; ++k) {
      const u = Math.floor(rng() * n),
        v = Math.floor(rng() * n);
      if (u !== v) (src.push(u), dst.push(v));
    }
    const features = Float32Array.from({length: n * ATOM}, () => (rng() < 0.3 ? 1 : 0));
    const edgeFeatures = Float32Array.from({length: src.length * BOND}, () => (rng() < 0.5 ? 1 : 0));
    // The class: whether the graph holds more of feature 0 than of feature 1 (a count GIN's sum can read).
    let c0 = 0,
      c1 = 0;
    for (let v = 0; v < n; ++v) ((c0 += features[v * ATOM]), (c1 += features[v * ATOM + 1]));
    return {numVertices: n, src, dst, features, edgeFeatures, label: c0 > c1 ? 1 : 0};
  });
}

/** bench:graphs' model (3 GIN layers, hidden 64, batch norm, every depth add-pooled, an MLP head), Adam 0.01, and its epoch over shuffled batches. */
export function ginTrainer(
  graphs: SmallGraph[],
  batchSize: number,
): {model: GraphClassifier; epoch: () => Promise<number>; dispose: () => void} {
  const model = new GraphClassifier({
    inDim: ATOM,
    numClasses: 2,
    conv: 'gin',
    pool: 'add',
    hiddenDim: 64,
    numLayers: 3,
    dropout: 0,
    seed: 1,
  });
  const optimizer = adam(0.01);
  const loader = new GraphLoader(graphs, {batchSize, shuffle: true, seed: 1});
  // One epoch's mean loss.
  const epoch = async (): Promise<number> => {
    let lossSum: tf.Tensor = tf.scalar(0);
    for await (const b of loader) {
      const y = Int32Array.from(b.labels!);
      const loss = optimizer.minimize(() => softmaxCrossEntropy(y, model.forward(b, 1)), true, model.trainableVariables)!;
      const next = tf.add(lossSum, loss);
      tf.dispose([lossSum, loss]);
      lossSum = next;
      b.dispose();
    }
    const total = (await lossSum.data())[0];
    lossSum.dispose();
    return total / loader.length;
  };
  return {
    model,
    epoch,
    dispose: () => {
      loader.dispose();
      optimizer.dispose();
      model.dispose();
    },
  };
}

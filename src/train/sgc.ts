// SGC (Wu et al., 2019), the linear baseline of the GNN literature: the
// features propagated twice over the GCN-normalised graph (Â² X), then a
// multinomial logistic regression trained on the training vertices, its
// epoch chosen on validation. Printed beside every result on featured data.
import * as tf from '@tensorflow/tfjs-core';

import {aggregate, CsrBlock} from '../graph/aggregate';
import {CsrGraph} from '../graph/csr';
import {Split} from '../graph/split';
import {predictedClasses} from '../nn/node_model';
import {softmaxCrossEntropy} from '../nn/softmax_cross_entropy';
import {BaselineAccuracy} from './baselines';

export interface SgcOptions {
  hops?: number;
  epochs?: number;
  learningRate?: number;
  weightDecay?: number;
}

/** Accuracy of SGC on the split (features: [vertices, dim] row-major, already preprocessed as the model's are). */
export function sgc(
  graph: CsrGraph,
  features: Float32Array,
  dim: number,
  labels: Int32Array,
  classes: number,
  split: Split,
  o: SgcOptions = {},
): BaselineAccuracy {
  const hops = o.hops ?? 2,
    epochs = o.epochs ?? 100,
    lr = o.learningRate ?? 0.2,
    wd = o.weightDecay ?? 5e-5;
  const block = CsrBlock.fromGraph(graph);
  const [w, b] = tf.tidy(() => [
    tf.variable(tf.zeros([dim, classes]), true, `sgc_w_${Math.random()}`),
    tf.variable(tf.zeros([classes]), true, `sgc_b_${Math.random()}`),
  ]);
  const optimizer = tf.train.adam(lr);
  const part = (ids: Int32Array) => tf.tensor1d(ids, 'int32');
  const [trainIds, valIds, testIds] = [part(split.train), part(split.val), part(split.test)];
  const yTrain = Int32Array.from(split.train, (v) => labels[v]);
  try {
    const x = tf.tidy(() => {
      let h: tf.Tensor2D = tf.tensor2d(features, [graph.numVertices, dim]);
      for (let k = 0; k < hops; ++k) h = aggregate(h, block, 'gcn');
      return h;
    });
    const [xTrain, xVal, xTest] = [trainIds, valIds, testIds].map((ids) => tf.gather(x, ids) as tf.Tensor2D);
    x.dispose();
    const accuracyOf = (xs: tf.Tensor2D, ids: Int32Array) => {
      if (ids.length === 0) return NaN;
      const pred = predictedClasses(() => tf.add(tf.matMul(xs, w), b) as tf.Tensor2D);
      let ok = 0;
      ids.forEach((v, i) => (ok += pred[i] === labels[v] ? 1 : 0));
      return ok / ids.length;
    };
    let best = {val: -1, test: NaN};
    for (let e = 0; e < epochs; ++e) {
      optimizer.minimize(
        () => tf.add(softmaxCrossEntropy(yTrain, tf.add(tf.matMul(xTrain, w), b)), tf.mul(tf.sum(tf.square(w)), wd / 2)) as tf.Scalar,
        false,
        [w, b],
      );
      const val = accuracyOf(xVal, split.val);
      if (val > best.val) best = {val, test: accuracyOf(xTest, split.test)};
    }
    tf.dispose([xTrain, xVal, xTest]);
    return best;
  } finally {
    tf.dispose([w, b, trainIds, valIds, testIds]);
    optimizer.dispose();
    block.dispose();
  }
}

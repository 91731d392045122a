// The losses knowledge-graph embeddings train with, over each positive's score and its negatives' scores.
//   'logistic' (RotatE's, DGL-KE's): (mean softplus(-pos) + mean over positives of sum_j w_j softplus(neg_j)) / 2,
//              w = softmax(temperature * neg) held constant (self-adversarial negatives, Sun et al., 2019), or
//              1 / k with temperature 0.
//   'margin'   (TransE's, PyG's): mean over pairs of max(0, margin - pos + neg_j).
import * as tf from '@tensorflow/tfjs-core';

export type KgeLossName = 'logistic' | 'margin';

export interface KgeLossOptions {
  loss: KgeLossName;
  /** Self-adversarial sampling temperature (alpha) of the logistic loss; 0 weighs every negative alike. */
  adversarialTemperature: number;
  /** The margin loss's margin. */
  lossMargin: number;
}

export const DEFAULT_KGE_LOSS: KgeLossOptions = {loss: 'logistic', adversarialTemperature: 1, lossMargin: 1};

export function checkKgeLoss(o: KgeLossOptions, what: string): void {
  if (o.loss !== 'logistic' && o.loss !== 'margin') throw new RangeError(`${what}: loss must be 'logistic' or 'margin', got ${o.loss}`);
  if (!(Number.isFinite(o.adversarialTemperature) && o.adversarialTemperature >= 0))
    throw new RangeError(`${what}: adversarialTemperature must be a finite number >= 0, got ${o.adversarialTemperature}`);
  if (!(Number.isFinite(o.lossMargin) && o.lossMargin >= 0))
    throw new RangeError(`${what}: lossMargin must be a finite number >= 0, got ${o.lossMargin}`);
}

/** x's value with no gradient through it. */
function constant(x: tf.Tensor): tf.Tensor {
  const f = tf.customGrad(((t: tf.Tensor) => ({
    value: tf.clone(t),
    gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy),
  })) as unknown as Parameters<typeof tf.customGrad>[0]);
  return f(x);
}

/** The loss of positives' scores pos [n] against their negatives' scores neg [n, k]. */
export function kgeLoss(pos: tf.Tensor1D, neg: tf.Tensor2D, o: KgeLossOptions): tf.Scalar {
  if (neg.rank !== 2 || neg.shape[0] !== pos.shape[0])
    throw new RangeError(`kgeLoss: neg must be [${pos.shape[0]}, k], got [${neg.shape}]`);
  return tf.tidy(() => {
    if (o.loss === 'margin') return tf.mean(tf.relu(tf.add(tf.sub(o.lossMargin, tf.expandDims(pos, 1)), neg))) as tf.Scalar;
    const posLoss = tf.mean(tf.softplus(tf.neg(pos)));
    const weights =
      o.adversarialTemperature > 0 ? constant(tf.softmax(tf.mul(neg, o.adversarialTemperature))) : tf.fill(neg.shape, 1 / neg.shape[1]);
    const negLoss = tf.mean(tf.sum(tf.mul(weights, tf.softplus(neg)), 1));
    return tf.div(tf.add(posLoss, negLoss), 2) as tf.Scalar;
  });
}

// TransE (Bordes et al., 2013): a relation is a translation; score = margin - ||h + r - t|| (L1 or L2).
// As a query: h + r against the tails, t - r against the heads.
import * as tf from '@tensorflow/tfjs-core';

import {KgeModel, KgeOptions, KgeSide} from './kge_model';

export class TransE extends KgeModel {
  constructor(o: KgeOptions) {
    super('transE', o);
  }

  query(fixed: tf.Tensor2D, relation: tf.Tensor2D, side: KgeSide): tf.Tensor2D {
    return side === 'tail' ? tf.add(fixed, relation) : tf.sub(fixed, relation);
  }

  pairScore(q: tf.Tensor2D, c: tf.Tensor2D): tf.Tensor1D {
    const d = tf.sub(q, c);
    const dist = this.config.pNorm === 1 ? tf.sum(tf.abs(d), 1) : tf.sqrt(tf.add(tf.sum(tf.square(d), 1), 1e-12));
    return tf.sub(this.config.margin, dist);
  }

  groupScores(q: tf.Tensor3D, c: tf.Tensor3D): tf.Tensor3D {
    if (this.config.pNorm === 2) {
      // ||q - c||^2 = |q|^2 + |c|^2 - 2 q.c: one batched matrix product, no [g, n, k, w] difference.
      const qq = tf.expandDims(tf.sum(tf.square(q), 2), 2),
        cc = tf.expandDims(tf.sum(tf.square(c), 2), 1);
      const sq = tf.relu(tf.sub(tf.add(qq, cc), tf.mul(2, tf.matMul(q, c, false, true))));
      return tf.sub(this.config.margin, tf.sqrt(tf.add(sq, 1e-12)));
    }
    const d = tf.sub(tf.expandDims(q, 2), tf.expandDims(c, 1));
    return tf.sub(this.config.margin, tf.sum(tf.abs(d), 3));
  }

  pairBytes(): number {
    return this.config.pNorm === 2 ? 0 : 8 * this.config.dim;
  }
}

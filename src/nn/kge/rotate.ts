// RotatE (Sun et al., 2019): a relation rotates each complex coordinate by a phase; score = margin - sum_k |h_k r_k - t_k|
// with |r_k| = 1. The phases are stored as r * pi / initScale (RotatE's scaling), so their initial values span
// [-pi, pi]. As a query: h * r against the tails, t * conj(r) against the heads (|r| = 1).
import * as tf from '@tensorflow/tfjs-core';

import {complexModuli, complexRotation} from './complex_rows';
import {KgeModel, KgeOptions, KgeSide, rotationScale} from './kge_model';

export class RotatE extends KgeModel {
  constructor(o: KgeOptions) {
    super('rotatE', o);
  }

  query(fixed: tf.Tensor2D, relation: tf.Tensor2D, side: KgeSide): tf.Tensor2D {
    return complexRotation(fixed, relation, rotationScale(this.config), side === 'head');
  }

  pairScore(q: tf.Tensor2D, c: tf.Tensor2D): tf.Tensor1D {
    return tf.sub(this.config.margin, tf.sum(complexModuli(tf.sub(q, c)), 1));
  }

  groupScores(q: tf.Tensor3D, c: tf.Tensor3D): tf.Tensor3D {
    return tf.sub(this.config.margin, tf.sum(complexModuli(tf.sub(tf.expandDims(q, 2), tf.expandDims(c, 1))), 3));
  }

  pairBytes(): number {
    return 16 * this.config.dim;
  }
}

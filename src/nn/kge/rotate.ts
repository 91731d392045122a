// RotatE (Sun et al., 2019): a relation rotates each complex coordinate by a phase; score = margin - sum_k |h_k r_k - t_k|
// with |r_k| = 1. The phases are stored as r * pi / initScale (RotatE's scaling), so their initial values span
// [-pi, pi]. As a query: h * r against the tails, t * conj(r) against the heads (|r| = 1).
import * as tf from '@tensorflow/tfjs-core';

import {complexModuli, complexProduct, complexProductGradients} from './complex_rows';
import {KgeModel, KgeOptions, KgeSide} from './kge_model';

export class RotatE extends KgeModel {
  constructor(o: KgeOptions) {
    super('rotatE', o);
  }

  query(fixed: tf.Tensor2D, relation: tf.Tensor2D, side: KgeSide): tf.Tensor2D {
    return complexProduct(fixed, unit(this.phase(relation)), false, side === 'head');
  }

  queryGradients(fixed: tf.Tensor2D, relation: tf.Tensor2D, side: KgeSide, dq: tf.Tensor2D): [tf.Tensor2D, tf.Tensor2D] {
    const phase = this.phase(relation);
    const [dFixed, dUnit] = complexProductGradients(fixed, unit(phase), side === 'head', dq);
    // d(cos p, sin p)/dp = (-sin p, cos p), times the phase's scale.
    const [dCos, dSin] = tf.split(dUnit, 2, 1);
    const dPhase = tf.sub(tf.mul(dSin, tf.cos(phase)), tf.mul(dCos, tf.sin(phase)));
    return [dFixed, tf.mul(dPhase, Math.PI / this.config.initScale) as tf.Tensor2D];
  }

  // The phases p = r * pi / initScale of a relation's stored rows.
  private phase(relation: tf.Tensor2D): tf.Tensor2D {
    return tf.mul(relation, Math.PI / this.config.initScale) as tf.Tensor2D;
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

/** The unit complex numbers (cos p, sin p) of phases p [n, k], as rows [n, 2k]. */
function unit(phase: tf.Tensor2D): tf.Tensor2D {
  return tf.concat([tf.cos(phase), tf.sin(phase)], 1) as tf.Tensor2D;
}

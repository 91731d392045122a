// ComplEx (Trouillon et al., 2016): score = Re(sum(h * r * conj(t))) over complex h, r, t. As a query: h * r against
// the tails, conj(r) * t against the heads, each scored by the real dot product of the stored rows.
import * as tf from '@tensorflow/tfjs-core';

import {complexProduct} from './complex_rows';
import {DotScoredModel} from './dot_scored';
import {KgeOptions, KgeSide} from './kge_model';

export class ComplEx extends DotScoredModel {
  constructor(o: KgeOptions) {
    super('complEx', o);
  }

  query(fixed: tf.Tensor2D, relation: tf.Tensor2D, side: KgeSide): tf.Tensor2D {
    // Re(h r conj(t)): tails meet h*r; heads meet conj(r)*t, since Re(h p) = Re(h . conj(conj(p))) for p = r conj(t).
    return complexProduct(fixed, relation, false, side === 'head');
  }
}

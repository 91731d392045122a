// DistMult (Yang et al., 2015): score = sum(h * r * t). Symmetric in h and t, so it cannot tell a relation from its reverse.
import * as tf from '@tensorflow/tfjs-core';

import {DotScoredModel} from './dot_scored';
import {KgeOptions} from './kge_model';

export class DistMult extends DotScoredModel {
  constructor(o: KgeOptions) {
    super('distMult', o);
  }

  query(fixed: tf.Tensor2D, relation: tf.Tensor2D): tf.Tensor2D {
    return tf.mul(fixed, relation);
  }
}

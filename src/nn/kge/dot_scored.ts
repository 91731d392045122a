// Models whose score is the dot product of query and candidate (distMult, complEx): a group's scores are one batched
// matrix product.
import * as tf from '@tensorflow/tfjs-core';

import {KgeModel} from './kge_model';

export abstract class DotScoredModel extends KgeModel {
  pairScore(q: tf.Tensor2D, c: tf.Tensor2D): tf.Tensor1D {
    return tf.sum(tf.mul(q, c), 1);
  }

  groupScores(q: tf.Tensor3D, c: tf.Tensor3D): tf.Tensor3D {
    return tf.matMul(q, c, false, true);
  }

  pairBytes(): number {
    return 0;
  }
}

// A multilayer perceptron over each vertex's own inputs, the graph unused:
// the baseline every GNN paper reports, and the right model where
// neighbours mostly belong to other classes (heterophily), which averaging
// over them blurs. Trained and evaluated through the same block interface
// as GCN and GAT (a block's rows are the first rows of its input), so the
// samplers, full-batch training and saving work unchanged.
import * as tf from '@tensorflow/tfjs-core';

import type {CsrBlock} from '../graph/aggregate';
import {ProjectionClassifier} from './block_classifier';

export class MlpClassifier extends ProjectionClassifier {
  readonly kind = 'mlp' as const;

  protected applyLayer(l: number, h: tf.Tensor2D, block: CsrBlock, dropoutSeed?: number): tf.Tensor2D {
    const layer = this.layers[l];
    const own = block.numRows === h.shape[0] ? h : (tf.slice(h, [0, 0], [block.numRows, h.shape[1]]) as tf.Tensor2D);
    const activation = l === this.layers.length - 1 ? 'linear' : 'relu';
    return tf.fused.matMul({a: this.dropped(own, l, dropoutSeed), b: layer.w as tf.Tensor2D, bias: layer.bias, activation}) as tf.Tensor2D;
  }
}

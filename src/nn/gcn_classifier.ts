// A graph convolutional network (Kipf and Welling's GCN) over learnable node
// embeddings, trained on compact sampled subgraphs and evaluated on the whole
// graph: the main job's `--model gcn`. Each layer is act(Â h W + b) with Â
// the symmetric normalisation with self loops by the graph's degrees
// (wm.graph.aggregate's 'gcn': one native sparse product each way); ReLU
// between layers, dropout before each projection as in the paper.
import * as tf from '@tensorflow/tfjs-core';

import {aggregate, CsrBlock} from '../graph/aggregate';
import {ProjectionClassifier} from './block_classifier';
import {NodeModelConfig} from './node_model';

export type GcnConfig = NodeModelConfig;

export class GcnClassifier extends ProjectionClassifier {
  readonly kind = 'gcn' as const;
  // Â (x W) = (Â x) W: the sparse product runs over the narrower side. Aggregating
  // first, the projection, bias and ReLU are one fused matMul (one kernel each way).
  protected applyLayer(l: number, h: tf.Tensor2D, block: CsrBlock, dropoutSeed?: number): tf.Tensor2D {
    const layer = this.layers[l];
    const x = this.dropped(h, l, dropoutSeed);
    const [inDim, outDim] = layer.w.shape;
    const activation = l === this.layers.length - 1 ? 'linear' : 'relu';
    if (inDim <= outDim)
      return tf.fused.matMul({a: aggregate(x, block, 'gcn'), b: layer.w as tf.Tensor2D, bias: layer.bias, activation}) as tf.Tensor2D;
    const out = tf.add(aggregate(tf.matMul(x, layer.w), block, 'gcn'), layer.bias) as tf.Tensor2D;
    return activation === 'relu' ? tf.relu(out) : out;
  }
}

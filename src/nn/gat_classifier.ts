// A graph attention network (GAT) over learnable node embeddings, trained on
// compact sampled subgraphs and evaluated on the whole graph: the main job's
// `--model gat`. Each layer projects into `heads` heads, attends over each
// vertex's neighbours with wm.nn.gatAggregate (one native op each way), and
// adds a linear self term (the sampled blocks have no self loops) and a
// bias; hidden layers concatenate their heads and apply ELU, as in the GAT
// paper, the output layer has one head.
import * as tf from '@tensorflow/tfjs-core';

import {CsrBlock} from '../graph/aggregate';
import {BlockNodeClassifier} from './block_classifier';
import {gatAggregate} from './gat';
import {glorot, NodeModelConfig} from './node_model';

export interface GatConfig extends NodeModelConfig {
  /** Attention heads of a hidden layer: each hiddenDim / heads wide. */
  heads: number;
  /** LeakyReLU slope of the attention logits (default 0.2). */
  negativeSlope?: number;
}

interface GatLayer {
  heads: number;
  dim: number;
  w: tf.Variable; // [in, heads * dim]
  aSrc: tf.Variable; // [1, heads, dim]
  aDst: tf.Variable; // [1, heads, dim]
  wSelf: tf.Variable; // [in, heads * dim]
  bias: tf.Variable; // [heads * dim]
}

export class GatClassifier extends BlockNodeClassifier {
  readonly kind = 'gat' as const;
  private readonly layers: GatLayer[] = [];

  constructor(override readonly config: GatConfig) {
    super(config);
    const {hiddenDim, heads, numClasses, numLayers, seed} = config;
    if (!Number.isInteger(heads) || heads < 1 || hiddenDim % heads !== 0) {
      throw new RangeError(`GatClassifier: heads must be a positive integer dividing hiddenDim (${hiddenDim}), got ${heads}`);
    }
    for (let l = 0; l < numLayers; ++l) {
      const inDim = l === 0 ? this.inputs.width : hiddenDim;
      const last = l === numLayers - 1;
      const h = last ? 1 : heads,
        dim = last ? numClasses : hiddenDim / heads,
        s = seed + 10 * l;
      this.layers.push(
        tf.tidy(() => ({
          heads: h,
          dim,
          w: tf.variable(glorot([inDim, h * dim], inDim, h * dim, s + 1)),
          aSrc: tf.variable(glorot([1, h, dim], dim, h * dim, s + 2)),
          aDst: tf.variable(glorot([1, h, dim], dim, h * dim, s + 3)),
          wSelf: tf.variable(glorot([inDim, h * dim], inDim, h * dim, s + 4)),
          bias: tf.variable(tf.zeros([h * dim])),
        })),
      );
    }
  }

  /** The dense parameters. */
  get denseVariables(): tf.Variable[] {
    return this.layers.flatMap((l) => [l.w, l.aSrc, l.aDst, l.wSelf, l.bias]);
  }

  /** What weight decay applies to (the projections, not the attention vectors or biases). */
  get weightVariables(): tf.Variable[] {
    return this.layers.flatMap((l) => [l.w, l.wSelf]);
  }

  // One layer over a block whose rows are the first `block.numRows` of h's.
  protected applyLayer(l: number, h: tf.Tensor2D, block: CsrBlock, dropoutSeed?: number): tf.Tensor2D {
    const layer = this.layers[l],
      rows = block.numRows,
      n = h.shape[0];
    const x = this.dropped(h, l, dropoutSeed);
    const feat = tf.reshape(tf.matMul(x, layer.w), [n, layer.heads, layer.dim]) as tf.Tensor3D;
    const src = tf.sum(tf.mul(feat, layer.aSrc), 2) as tf.Tensor2D;
    const dst = tf.sum(tf.mul(tf.slice(feat, [0, 0, 0], [rows, layer.heads, layer.dim]), layer.aDst), 2) as tf.Tensor2D;
    const attended = tf.reshape(gatAggregate(block, feat, src, dst, {negativeSlope: this.config.negativeSlope}), [
      rows,
      layer.heads * layer.dim,
    ]);
    const self = tf.matMul(tf.slice(x, [0, 0], [rows, x.shape[1]]), layer.wSelf);
    const out = tf.add(tf.add(attended, self), layer.bias) as tf.Tensor2D;
    return l === this.layers.length - 1 ? out : tf.elu(out);
  }
}

// A graph attention network (GAT) over learnable node embeddings and/or
// features, trained on compact sampled subgraphs and evaluated on the whole
// graph: the main job's `--model gat`. A stack of the public gatConv layer
// (the edge softmax and weighted sum one native op each way) with its
// residual weight (the sampled blocks have no self loops, so each row keeps
// its own input through it); hidden layers concatenate `heads` heads and
// apply ELU, as in the GAT paper, the output layer has one head.
import * as tf from '@tensorflow/tfjs-core';

import {CsrBlock} from '../graph/aggregate';
import {BlockNodeClassifier} from './block_classifier';
import {GatConv, gatConv} from './conv/gat_conv';
import {builtConv} from './conv/graph_conv';
import {glorot, layerWidths, NodeModelConfig} from './node_model';

export interface GatConfig extends NodeModelConfig {
  /** Attention heads of a hidden layer: each hiddenDim / heads wide. */
  heads: number;
  /** LeakyReLU slope of the attention logits (default 0.2). */
  negativeSlope?: number;
}

export class GatClassifier extends BlockNodeClassifier {
  readonly kind = 'gat' as const;
  /** One gatConv per layer, input layer first. */
  readonly convs: GatConv[];
  private readonly dense: tf.Variable[];
  private readonly projections: tf.Variable[];

  constructor(override readonly config: GatConfig) {
    super(config);
    const {hiddenDim, heads, seed} = config;
    if (!Number.isInteger(heads) || heads < 1 || hiddenDim % heads !== 0) {
      throw new RangeError(`GatClassifier: heads must be a positive integer dividing hiddenDim (${hiddenDim}), got ${heads}`);
    }
    // A hidden layer's width is split over its heads; the output layer has one.
    this.convs = layerWidths(config, this.inputs.width).map(({inDim, units, last}, l) => {
      const h = last ? 1 : heads,
        dim = units / h,
        s = seed + 10 * l;
      const conv = gatConv({
        units: dim,
        heads: h,
        // The residual weight carries each row's own input (sampled blocks hold no self loops).
        residual: true,
        addSelfLoops: false,
        negativeSlope: config.negativeSlope,
        activation: last ? 'linear' : 'elu',
      });
      // Weights in gatConv's order: kernel, attention source and target, residual, bias.
      return builtConv(conv, inDim, () => [
        glorot([inDim, h * dim], inDim, h * dim, s + 1),
        tf.reshape(glorot([1, h, dim], dim, h * dim, s + 2), [h, dim]),
        tf.reshape(glorot([1, h, dim], dim, h * dim, s + 3), [h, dim]),
        glorot([inDim, h * dim], inDim, h * dim, s + 4),
        tf.zeros([h * dim]),
      ]);
    });
    this.dense = this.convs.flatMap((c) =>
      ['kernel', 'attentionSource', 'attentionTarget', 'residualKernel', 'bias'].map((n) => c.variable(n)),
    );
    this.projections = this.convs.flatMap((c) => [c.variable('kernel'), c.variable('residualKernel')]);
  }

  /** The dense parameters. */
  get denseVariables(): tf.Variable[] {
    return this.dense;
  }

  /** What weight decay applies to (the projections, not the attention vectors or biases). */
  get weightVariables(): tf.Variable[] {
    return this.projections;
  }

  protected applyLayer(l: number, h: tf.Tensor2D, block: CsrBlock, dropoutSeed?: number): tf.Tensor2D {
    return this.convs[l].apply(this.dropped(h, l, dropoutSeed), {graph: block}) as tf.Tensor2D;
  }
}

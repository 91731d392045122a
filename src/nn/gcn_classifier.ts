// A graph convolutional network (Kipf and Welling's GCN) over learnable node
// embeddings and/or features, trained on compact sampled subgraphs and
// evaluated on the whole graph: the main job's `--model gcn`. A stack of the
// public gcnConv layer (one native sparse product each way, the narrower side
// aggregated): ReLU between layers, dropout before each layer as in the paper.
import * as tf from '@tensorflow/tfjs-core';

import {CsrBlock} from '../graph/aggregate';
import {BlockNodeClassifier} from './block_classifier';
import {GcnConv, gcnConv} from './conv/gcn_conv';
import {builtConv} from './conv/graph_conv';
import {glorot, layerWidths, NodeModelConfig} from './node_model';

export type GcnConfig = NodeModelConfig;

export class GcnClassifier extends BlockNodeClassifier {
  readonly kind = 'gcn' as const;
  /** One gcnConv per layer, input layer first. */
  readonly convs: GcnConv[];
  private readonly dense: tf.Variable[];
  private readonly kernels: tf.Variable[];

  constructor(config: GcnConfig) {
    super(config);
    this.convs = layerWidths(config, this.inputs.width).map(({inDim, units, last}, l) =>
      builtConv(gcnConv({units, activation: last ? 'linear' : 'relu'}), inDim, () => [
        glorot([inDim, units], inDim, units, config.seed + 10 * l + 1),
        tf.zeros([units]),
      ]),
    );
    this.dense = this.convs.flatMap((c) => [c.variable('kernel'), c.variable('bias')]);
    this.kernels = this.dense.filter((_, i) => i % 2 === 0);
  }

  get denseVariables(): tf.Variable[] {
    return this.dense;
  }

  /** The projections, not the biases. */
  get weightVariables(): tf.Variable[] {
    return this.kernels;
  }

  protected applyLayer(l: number, h: tf.Tensor2D, block: CsrBlock, dropoutSeed?: number): tf.Tensor2D {
    return this.convs[l].apply(this.dropped(h, l, dropoutSeed), {graph: block}) as tf.Tensor2D;
  }
}

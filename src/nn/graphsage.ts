// GraphSAGE (mean aggregator) over learnable node embeddings and/or features,
// trained on sampled neighbourhoods and evaluated on full ones: a stack of the
// public sageConv layer (over a fixed fan-out, one fused native op each way
// on the GPU), ReLU between layers, dropout on each layer's input.
import * as tf from '@tensorflow/tfjs-core';

import {BlockNodeClassifier} from './block_classifier';
import {dropout} from './dropout';
import type {GraphLayerInput} from './conv/graph_input';
import {isFixedLayer, RowSource, SampledSubgraph} from '../graph/sampled_subgraph';
import {Embedding} from './embedding';
import {SageConv, sageConv} from './conv/sage_conv';
import {layerWidths, linearUniform, NodeModelConfig} from './node_model';
import {builtConv} from './conv/graph_conv';
import {deviceStatus} from '../native/device';

export type GraphSageConfig = NodeModelConfig;

export class GraphSageClassifier extends BlockNodeClassifier {
  readonly kind = 'sage' as const;
  /** One sageConv per layer (mean aggregator, root weight), input layer first. */
  readonly convs: SageConv[];
  private readonly dense: tf.Variable[];
  private readonly kernels: tf.Variable[];

  constructor(config: GraphSageConfig) {
    super(config);
    this.convs = layerWidths(config, this.inputs.width).map(({inDim, units, last}, l) =>
      // Weights in sageConv's order: neighbours' kernel, root kernel, bias; each drawn as PyG's SAGEConv draws
      // its Linear layers (uniform in ±1 / sqrt(inDim)), so the model starts and learns as PyG's does.
      builtConv(sageConv({units, aggregator: 'mean', activation: last ? 'linear' : 'relu'}), inDim, () => [
        linearUniform([inDim, units], inDim, config.seed + 10 * l + 2),
        linearUniform([inDim, units], inDim, config.seed + 10 * l + 1),
        linearUniform([units], inDim, config.seed + 10 * l + 3),
      ]),
    );
    this.dense = this.convs.flatMap((c) => [c.variable('rootKernel'), c.variable('neighborKernel'), c.variable('bias')]);
    this.kernels = this.dense.filter((_, i) => i % 3 !== 2);
  }

  /** The dense layers' weights and biases (what data parallelism averages; saved in this order). */
  get denseVariables(): tf.Variable[] {
    return this.dense;
  }

  /** What weight decay applies to (the kernels, not the biases). */
  get weightVariables(): tf.Variable[] {
    return this.kernels;
  }

  protected override firstLayerOverTable(sub: SampledSubgraph, dropoutSeed?: number, source?: RowSource): tf.Tensor2D | undefined {
    // The batch's own table where it has one: an Embedding as wide as the model's input (else its x is read, and
    // checked by name); the model's features where it has none.
    const table =
      source === undefined ? this.inputs.features : source instanceof Embedding && source.dim === this.inputs.width ? source : undefined;
    const dropped = dropoutSeed !== undefined && this.config.dropout > 0;
    const layer = sub.layers[0];
    const sampled = isFixedLayer(layer) || (typeof layer === 'object' && 'block' in layer);
    if (this.inputs.embedding || !table || dropped || !sampled) return undefined;
    // The sampler's input layer as drawn where it left it so (no relabelling asked for), else its positions.
    const drawn = sub.inputVertices && this.convs[0].applyOverTable(table, sub.inputVertices);
    if (drawn) return drawn;
    const ids = sub.inputIds;
    if (ids instanceof tf.Tensor) return this.convs[0].applyOverTable(table, {ids, layer});
    // A host sampler's ids, read in place on the CPU (a GPU reads only rows a GPU sampler drew in place).
    return deviceStatus().gpu ? undefined : tf.tidy(() => this.convs[0].applyOverTable(table, {ids: tf.tensor1d(ids, 'int32'), layer}));
  }

  // Layer l over `graph` (a fixed fan-out: one fused native pass each way on the GPU), its input dropped
  // out first on a training pass.
  protected applyLayer(l: number, h: tf.Tensor2D, graph: GraphLayerInput, dropoutSeed?: number): tf.Tensor2D {
    const x =
      dropoutSeed !== undefined && this.config.dropout > 0 ? (dropout(h, this.config.dropout, dropoutSeed >>> 0) as tf.Tensor2D) : h;
    return this.convs[l].apply(x, {graph}) as tf.Tensor2D;
  }
}

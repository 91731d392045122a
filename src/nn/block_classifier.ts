// What the node classifiers share (GraphSAGE, GCN, GAT, MLP): the node-embedding table, training over
// a sampled subgraph's layers (each a block of edges or a fixed fan-out), evaluation over the whole
// graph as one block, layer-wise inference, saving.
import * as tf from '@tensorflow/tfjs-core';

import type {RowSource, SampledSubgraph} from '../graph/sampled_subgraph';
import type {GraphLayerInput} from './conv/graph_input';
import {dropout} from './dropout';
import {Embedding} from './embedding';
import {FullGraph, glorot, layerWidths, NodeModelConfig, predictedClasses} from './node_model';
import {NodeInputs} from './node_inputs';
import {classifierLayerwise, classifierPredictLayerwise, LayerwiseGraph, LayerwiseModel, LayerwiseOptions} from './layerwise';
import {saveNodeClassifier, SavedClassifierInfo} from './saved_classifier';

export abstract class BlockNodeClassifier {
  /** What the first layer reads: learnable embeddings (updated sparsely by step()), features, or both. */
  readonly inputs: NodeInputs;

  constructor(readonly config: NodeModelConfig) {
    this.inputs = new NodeInputs(config);
  }

  abstract readonly kind: 'sage' | 'gat' | 'gcn' | 'mlp';

  /** Writes the model to `dir` (wm.nn.loadNodeClassifier reads it back). */
  save(dir: string, info: {classNames?: string[]; data?: string} = {}): Promise<SavedClassifierInfo> {
    return saveNodeClassifier(this, dir, info);
  }

  /** The learnable node-embedding table (undefined for a features-only model). */
  get embedding(): Embedding | undefined {
    return this.inputs.embedding;
  }

  /** The dense parameters. */
  abstract get denseVariables(): tf.Variable[];

  /** What weight decay applies to. */
  abstract get weightVariables(): tf.Variable[];

  /** Layer l over `graph`, whose output rows are the first rows of h; a dropout seed makes it a training pass. */
  protected abstract applyLayer(l: number, h: tf.Tensor2D, graph: GraphLayerInput, dropoutSeed?: number): tf.Tensor2D;

  /** Layer l's input with the config's dropout applied on a training pass (a dropout seed), else as it is. */
  protected dropped(h: tf.Tensor2D, l: number, dropoutSeed?: number): tf.Tensor2D {
    return dropoutSeed !== undefined && this.config.dropout > 0
      ? (dropout(h, this.config.dropout, (dropoutSeed + l) >>> 0) as tf.Tensor2D)
      : h;
  }

  /** Dense parameters, plus the anchor that carries the table's sparse gradient. */
  get trainableVariables(): tf.Variable[] {
    return [...this.inputs.anchors, ...this.denseVariables];
  }

  /**
   * Logits [seeds, classes] from a sampled subgraph (any sampler's, a loader's batch): the input rows
   * read once (the features from the batch's x where a loader gathered them), then each layer over its
   * edges or fixed fan-out. With a dropout seed this is a training pass (seeded, reproducible dropout;
   * the embedding rows carry their sparse gradient).
   */
  forward(sub: SampledSubgraph, dropoutSeed?: number): tf.Tensor2D {
    if (!sub || !Array.isArray(sub.layers) || !('inputIds' in sub))
      throw new TypeError("forward: sub must be a sampled subgraph {inputIds, layers} (a sampler's result or a loader's batch)");
    if (sub.layers.length !== this.config.numLayers)
      throw new RangeError(`forward: the subgraph has ${sub.layers.length} layers, the model ${this.config.numLayers}`);
    // The first layer may read a table in place: the batch's source of x (a loader's features; x then never
    // gathered), or the model's own where the batch has no x. Else the input rows are read: x, or the tables.
    const first = sub.xSource !== undefined || sub.x === undefined ? this.firstLayerOverTable(sub, dropoutSeed, sub.xSource) : undefined;
    let h = first ?? this.inputs.lookup(sub.inputIds, sub.x);
    sub.layers.forEach((layer, l) => {
      if (l > 0 || !first) h = this.applyLayer(l, h, layer, dropoutSeed === undefined ? undefined : dropoutSeed + 1000 * l);
    });
    return h;
  }

  /**
   * The first layer's output read straight from the feature table at the subgraph's inputs (no matrix of the
   * input rows), where the model's first layer can (GraphSAGE over a sampled layer on the GPU, no input dropout);
   * `source`: the batch's features in place of the model's own table. Else undefined and forward gathers the rows first.
   */
  protected firstLayerOverTable(_sub: SampledSubgraph, _dropoutSeed?: number, _source?: RowSource): tf.Tensor2D | undefined {
    return undefined;
  }

  /**
   * Logits for every vertex, each layer over the whole graph: evaluation, or
   * with a dropout seed a full-batch training pass (the embedding rows then
   * carry their sparse gradient).
   */
  forwardFull(g: FullGraph, dropoutSeed?: number): tf.Tensor2D {
    let h = dropoutSeed === undefined ? this.inputs.read() : this.inputs.lookup(this.inputs.allIds);
    for (let l = 0; l < this.config.numLayers; ++l)
      h = this.applyLayer(l, h, g.block, dropoutSeed === undefined ? undefined : dropoutSeed + 1000 * l);
    return h;
  }

  /**
   * Every vertex's outputs of layer `o.layers` (default the last: logits), computed layer by layer
   * over full neighbourhoods (layerwise.ts): equal to forwardFull's, for graphs of any size. A table
   * the caller disposes.
   */
  inferLayerwise(graph: LayerwiseGraph, o: LayerwiseOptions & {layers?: number} = {}): Embedding {
    return classifierLayerwise(graph, this.config.numNodes, this.layerwiseModel(), o);
  }

  /**
   * The predicted class of every vertex, layer by layer over full neighbourhoods (inferLayerwise); the
   * last layer's logits are read a batch at a time, never kept.
   */
  predictLayerwise(graph: LayerwiseGraph, o: LayerwiseOptions = {}): Int32Array {
    return classifierPredictLayerwise(graph, this.config.numNodes, this.layerwiseModel(), o);
  }

  private layerwiseModel(): LayerwiseModel {
    const {numLayers, hiddenDim, numClasses} = this.config;
    return {
      widths: Array.from({length: numLayers}, (_, l) => (l === numLayers - 1 ? numClasses : hiddenDim)),
      inputs: (ids) => this.inputs.read(ids),
      layer: (l, h, block) => this.applyLayer(l, h, block),
    };
  }

  /** The predicted class of every vertex. */
  predict(g: FullGraph): Int32Array {
    return predictedClasses(() => this.forwardFull(g));
  }

  dispose(): void {
    tf.dispose(this.denseVariables);
    this.inputs.dispose();
  }
}

/** A block classifier whose layers are each a projection and a bias (MLP): Glorot weights, zero biases. */
export abstract class ProjectionClassifier extends BlockNodeClassifier {
  protected readonly layers: {w: tf.Variable; bias: tf.Variable}[];

  constructor(config: NodeModelConfig) {
    super(config);
    this.layers = layerWidths(config, this.inputs.width).map(({inDim, units}, l) =>
      tf.tidy(() => ({
        w: tf.variable(glorot([inDim, units], inDim, units, config.seed + 10 * l + 1)),
        bias: tf.variable(tf.zeros([units])),
      })),
    );
  }

  get denseVariables(): tf.Variable[] {
    return this.layers.flatMap((l) => [l.w, l.bias]);
  }

  /** The projections, not the biases. */
  get weightVariables(): tf.Variable[] {
    return this.layers.map((l) => l.w);
  }
}

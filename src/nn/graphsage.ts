// GraphSAGE (mean aggregator) over learnable node embeddings and/or features,
// trained on sampled neighbourhoods and evaluated on full ones: a stack of the
// public sageConv layer (over a fixed fan-out, one fused native op each way
// on the GPU), ReLU between layers, dropout on each layer's input.
import * as tf from '@tensorflow/tfjs-core';

import {CsrGraph} from '../graph/csr';
import type {SampledSubgraph} from '../graph/subgraph';
import type {FixedFanoutLayer, FixedFanoutSubgraph} from '../graph/fixed_subgraph';
import {dropout} from './dropout';
import {Embedding} from './embedding';
import {NodeInputs} from './node_inputs';
import {saveNodeClassifier, SavedClassifierInfo} from './saved_classifier';
import type {GraphLayerInput} from './conv/graph_input';
import {SageConv, sageConv} from './conv/sage_conv';
import {sampleNeighbors} from '../graph/native_sampling';
import {FullGraph, glorot, layerWidths, NodeModelConfig, predictedClasses} from './node_model';
import {builtConv} from './conv/graph_conv';
import {classifierLayerwise, classifierPredictLayerwise, LayerwiseGraph, LayerwiseModel, LayerwiseOptions} from './layerwise';
import {Rng} from '../util/random';

export type GraphSageConfig = NodeModelConfig;

/**
 * Vertex ids per depth: depth 0 are the seeds, depth l has fanouts[l-1] per
 * vertex of depth l-1 — on the host (sampleBlock) or on the GPU
 * (wm.graph.sampleFixedTree).
 */
export interface SampledBlock {
  depths: Array<Int32Array | tf.Tensor1D>;
  fanouts: number[];
}

/** Samples each layer's neighbours with the native sampler (seeded from rng, reproducible). */
export function sampleBlock(graph: CsrGraph, seeds: Int32Array, fanouts: number[], rng: Rng): SampledBlock {
  const depths = [seeds];
  for (const f of fanouts) {
    depths.push(sampleNeighbors(graph, depths[depths.length - 1], f, {seed: Math.floor(rng() * 2 ** 52)}).ids);
  }
  return {depths, fanouts};
}

export class GraphSageClassifier {
  readonly kind = 'sage' as const;
  /** What the first layer reads: learnable embeddings (updated sparsely by step()), features, or both. */
  readonly inputs: NodeInputs;
  /** One sageConv per layer (mean aggregator, root weight), input layer first. */
  readonly convs: SageConv[];
  private readonly trees = new Map<string, tf.Tensor1D>();
  private readonly dense: tf.Variable[];
  private readonly kernels: tf.Variable[];

  constructor(readonly config: GraphSageConfig) {
    this.inputs = new NodeInputs(config);
    this.convs = layerWidths(config, this.inputs.width).map(({inDim, units, last}, l) =>
      // Weights in sageConv's order: neighbours' kernel, root kernel, bias.
      builtConv(sageConv({units, aggregator: 'mean', activation: last ? 'linear' : 'relu'}), inDim, () => [
        glorot([inDim, units], inDim, units, config.seed + 10 * l + 2),
        glorot([inDim, units], inDim, units, config.seed + 10 * l + 1),
        tf.zeros([units]),
      ]),
    );
    this.dense = this.convs.flatMap((c) => [c.variable('rootKernel'), c.variable('neighborKernel'), c.variable('bias')]);
    this.kernels = this.dense.filter((_, i) => i % 3 !== 2);
  }

  /** The dense layers' weights and biases (what data parallelism averages; saved in this order). */
  get denseVariables(): tf.Variable[] {
    return this.dense;
  }

  /** Dense parameters, plus the anchor that carries the table's sparse gradient. */
  get trainableVariables(): tf.Variable[] {
    return [...this.inputs.anchors, ...this.denseVariables];
  }

  /** Writes the model to `dir` (wm.nn.loadNodeClassifier reads it back). */
  save(dir: string, info: {classNames?: string[]; data?: string} = {}): Promise<SavedClassifierInfo> {
    return saveNodeClassifier(this, dir, info);
  }

  /** The learnable node-embedding table (undefined for a features-only model). */
  get embedding(): Embedding | undefined {
    return this.inputs.embedding;
  }

  /** What weight decay applies to (the kernels, not the biases). */
  get weightVariables(): tf.Variable[] {
    return this.kernels;
  }

  // Layer l over `graph`, its input dropped out first on a training pass (a seed; one native pass each way).
  private applyLayer(l: number, h: tf.Tensor2D, graph: GraphLayerInput, dropoutSeed?: number): tf.Tensor2D {
    const x =
      dropoutSeed !== undefined && this.config.dropout > 0 ? (dropout(h, this.config.dropout, dropoutSeed >>> 0) as tf.Tensor2D) : h;
    return this.convs[l].apply(x, {graph}) as tf.Tensor2D;
  }

  /**
   * Logits [seeds, classes] from a sampled block (one fan-out per layer).
   * With a dropout seed this is a training pass (seeded, reproducible dropout).
   */
  forwardSampled(block: SampledBlock, training: boolean, dropoutSeed = 0): tf.Tensor2D {
    if (block.fanouts.length !== this.convs.length) {
      throw new Error(`forwardSampled: the block has ${block.fanouts.length} fan-outs, the model ${this.convs.length} layers`);
    }
    // Batches of other sizes add ranges; dropped between passes (a pass's backward reads its own).
    if (this.trees.size > 16) this.disposeTrees();
    let h: tf.Tensor2D[] = block.depths.map((ids) => this.inputs.lookup(ids));
    for (let l = 0; l < this.convs.length; ++l) {
      const next: tf.Tensor2D[] = [];
      for (let d = 0; d < h.length - 1; ++d) {
        // Depth d's rows, then their fan-out's: row i's neighbours are rows n + i * f ... n + i * f + f - 1.
        const n = h[d].shape[0],
          f = block.fanouts[d];
        const layer: FixedFanoutLayer = {numDst: n, fanout: f, neighbors: this.treeNeighbors(n, f)};
        next.push(this.applyLayer(l, tf.concat([h[d], h[d + 1]]), layer, training ? dropoutSeed + 1000 * d + l : undefined));
      }
      h = next;
    }
    return h[0];
  }

  // n, n + 1, ... n + n * f - 1, kept from step to step: the backward pass reads them after the forward's
  // tensors are gone, and a step's shapes repeat (its batch size and fan-outs).
  private treeNeighbors(n: number, f: number): tf.Tensor1D {
    const key = `${n}x${f}`;
    let t = this.trees.get(key);
    if (!t) {
      t = tf.keep(tf.range(n, n + n * f, 1, 'int32') as tf.Tensor1D);
      this.trees.set(key, t);
    }
    return t;
  }

  private disposeTrees(): void {
    tf.dispose([...this.trees.values()]);
    this.trees.clear();
  }

  /**
   * Logits [seeds, classes] from a compact sampled subgraph (sampleSubgraph):
   * each distinct vertex is computed once per layer, neighbours aggregated
   * by the native CSR product.
   */
  forwardSubgraph(sub: SampledSubgraph, training: boolean, dropoutSeed = 0): tf.Tensor2D {
    if (sub.layers.length !== this.convs.length) {
      throw new Error(`forwardSubgraph: the subgraph has ${sub.layers.length} layers, the model ${this.convs.length}`);
    }
    let h = this.inputs.lookup(sub.layers[0].src);
    sub.layers.forEach((layer, l) => {
      h = this.applyLayer(l, h, layer, training ? dropoutSeed + 1000 * l : undefined);
    });
    return h;
  }

  /** Logits [seeds, classes] from a fixed fan-out subgraph sampled where the graph lives (sampleFixedSubgraph). */
  forwardFixed(sub: FixedFanoutSubgraph, training: boolean, dropoutSeed = 0): tf.Tensor2D {
    if (sub.layers.length !== this.convs.length)
      throw new Error(`forwardFixed: the subgraph has ${sub.layers.length} layers, the model ${this.convs.length}`);
    let h = this.inputs.lookup(sub.inputIds);
    // Each layer one fused op each way on the GPU (sageConv over a fixed fan-out); tfjs ops elsewhere.
    sub.layers.forEach((layer, l) => {
      h = this.applyLayer(l, h, layer, training ? dropoutSeed + 1000 * l : undefined);
    });
    return h;
  }

  /**
   * Logits for every vertex with exact mean aggregation: evaluation, or with
   * a dropout seed a full-batch training pass (the embedding rows then carry
   * their sparse gradient).
   */
  forwardFull(g: FullGraph, dropoutSeed?: number): tf.Tensor2D {
    let h = dropoutSeed === undefined ? this.inputs.read() : this.inputs.lookup(this.inputs.allIds);
    for (let l = 0; l < this.convs.length; ++l) {
      h = this.applyLayer(l, h, g.block, dropoutSeed === undefined ? undefined : dropoutSeed + 1000 * l);
    }
    return h;
  }

  /**
   * Every vertex's outputs of layer `o.layers` (default the last: logits; one less: the vertex
   * embeddings before the output layer), computed layer by layer over full neighbourhoods
   * (layerwise.ts): equal to forwardFull's, for graphs of any size. A table the caller disposes.
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
    return {
      widths: this.convs.map((c) => c.units),
      inputs: (ids) => this.inputs.read(ids),
      layer: (l, h, block) => this.applyLayer(l, h, block),
    };
  }

  /** The predicted class of every vertex (full neighbourhoods). */
  predict(g: FullGraph): Int32Array {
    return predictedClasses(() => this.forwardFull(g));
  }

  dispose(): void {
    tf.dispose(this.denseVariables);
    this.disposeTrees();
    this.inputs.dispose();
  }
}

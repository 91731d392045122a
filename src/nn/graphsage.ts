// GraphSAGE (mean aggregator) over learnable node embeddings, trained on
// sampled neighbourhoods and evaluated on full ones.
import * as tf from '@tensorflow/tfjs-core';

import {aggregate} from '../graph/aggregate';
import {CsrGraph} from '../graph/csr';
import type {SampledSubgraph} from '../graph/subgraph';
import {FixedFanoutSubgraph, meanOfNeighbors} from '../graph/fixed_subgraph';
import {dropout} from './dropout';
import {Embedding} from './embedding';
import {NodeInputs} from './node_inputs';
import {saveNodeClassifier, SavedClassifierInfo} from './saved_classifier';
import {sageLayer} from './sage_layer';
import {sampleNeighbors} from '../graph/native_sampling';
import {FullGraph, glorot, NodeModelConfig, predictedClasses} from './node_model';
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

interface SageLayer {
  wSelf: tf.Variable;
  wNeigh: tf.Variable;
  bias: tf.Variable;
}

export class GraphSageClassifier {
  readonly kind = 'sage' as const;
  /** What the first layer reads: learnable embeddings (updated sparsely by step()), features, or both. */
  readonly inputs: NodeInputs;
  private readonly layers: SageLayer[] = [];

  constructor(readonly config: GraphSageConfig) {
    const {hiddenDim, numClasses, numLayers, seed} = config;
    this.inputs = new NodeInputs(config);
    for (let l = 0; l < numLayers; ++l) {
      const inDim = l === 0 ? this.inputs.width : hiddenDim;
      const outDim = l === numLayers - 1 ? numClasses : hiddenDim;
      this.layers.push(
        tf.tidy(() => ({
          wSelf: tf.variable(glorot([inDim, outDim], inDim, outDim, seed + 10 * l + 1)),
          wNeigh: tf.variable(glorot([inDim, outDim], inDim, outDim, seed + 10 * l + 2)),
          bias: tf.variable(tf.zeros([outDim])),
        })),
      );
    }
  }

  /** Dense parameters, plus the anchor that carries the table's sparse gradient. */
  /** The dense layers' weights and biases (what data parallelism averages). */
  get denseVariables(): tf.Variable[] {
    return this.layers.flatMap((l) => [l.wSelf, l.wNeigh, l.bias]);
  }

  get trainableVariables(): tf.Variable[] {
    return [...this.inputs.anchors, ...this.layers.flatMap((l) => [l.wSelf, l.wNeigh, l.bias])];
  }

  /** Writes the model to `dir` (wm.nn.loadNodeClassifier reads it back). */
  save(dir: string, info: {classNames?: string[]; data?: string} = {}): Promise<SavedClassifierInfo> {
    return saveNodeClassifier(this, dir, info);
  }

  /** The learnable node-embedding table (undefined for a features-only model). */
  get embedding(): Embedding | undefined {
    return this.inputs.embedding;
  }

  get weightVariables(): tf.Variable[] {
    return this.layers.flatMap((l) => [l.wSelf, l.wNeigh]);
  }

  private applyLayer(l: number, self: tf.Tensor2D, neighMean: tf.Tensor2D, dropoutSeed?: number): tf.Tensor2D {
    const layer = this.layers[l];
    let k = 0;
    // One native pass each way (wm.nn.dropout; tf.dropout's mask is drawn in JavaScript on the host).
    const drop = (t: tf.Tensor2D) =>
      dropoutSeed !== undefined && this.config.dropout > 0
        ? (dropout(t, this.config.dropout, (dropoutSeed + 2 * l + k++) >>> 0) as tf.Tensor2D)
        : t;
    const out = tf.add(tf.add(tf.matMul(drop(self), layer.wSelf), tf.matMul(drop(neighMean), layer.wNeigh)), layer.bias) as tf.Tensor2D;
    return l === this.layers.length - 1 ? out : tf.relu(out);
  }

  /**
   * Logits [seeds, classes] from a sampled block (one fan-out per layer).
   * With a dropout seed this is a training pass (seeded, reproducible dropout).
   */
  forwardSampled(block: SampledBlock, training: boolean, dropoutSeed = 0): tf.Tensor2D {
    if (block.fanouts.length !== this.layers.length) {
      throw new Error(`forwardSampled: the block has ${block.fanouts.length} fan-outs, the model ${this.layers.length} layers`);
    }
    let h: tf.Tensor2D[] = block.depths.map((ids) => this.inputs.lookup(ids));
    for (let l = 0; l < this.layers.length; ++l) {
      const next: tf.Tensor2D[] = [];
      for (let d = 0; d < h.length - 1; ++d) {
        const n = h[d].shape[0],
          f = block.fanouts[d],
          dim = h[d + 1].shape[1];
        const neighMean = tf.mean(tf.reshape(h[d + 1], [n, f, dim]), 1) as tf.Tensor2D;
        next.push(this.applyLayer(l, h[d], neighMean, training ? dropoutSeed + 1000 * d : undefined));
      }
      h = next;
    }
    return h[0];
  }

  /**
   * Logits [seeds, classes] from a compact sampled subgraph (sampleSubgraph):
   * each distinct vertex is computed once per layer, neighbours aggregated
   * by the native CSR product.
   */
  forwardSubgraph(sub: SampledSubgraph, training: boolean, dropoutSeed = 0): tf.Tensor2D {
    if (sub.layers.length !== this.layers.length) {
      throw new Error(`forwardSubgraph: the subgraph has ${sub.layers.length} layers, the model ${this.layers.length}`);
    }
    let h = this.inputs.lookup(sub.layers[0].src);
    sub.layers.forEach((layer, l) => {
      const self = tf.slice(h, [0, 0], [layer.dst.length, h.shape[1]]) as tf.Tensor2D;
      h = this.applyLayer(l, self, aggregate(h, layer.block, 'mean'), training ? dropoutSeed + 1000 * l : undefined);
    });
    return h;
  }

  /** Logits [seeds, classes] from a fixed fan-out subgraph sampled where the graph lives (sampleFixedSubgraph). */
  forwardFixed(sub: FixedFanoutSubgraph, training: boolean, dropoutSeed = 0): tf.Tensor2D {
    if (sub.layers.length !== this.layers.length)
      throw new Error(`forwardFixed: the subgraph has ${sub.layers.length} layers, the model ${this.layers.length}`);
    let h = this.inputs.lookup(sub.inputIds);
    const dropout = training && this.config.dropout > 0;
    sub.layers.forEach((layer, l) => {
      if (!dropout) {
        // One op each way on the GPU (sageLayer); tfjs ops elsewhere.
        const w = this.layers[l];
        h = sageLayer(h, layer, w.wSelf as tf.Tensor2D, w.wNeigh as tf.Tensor2D, w.bias as tf.Tensor1D, l < this.layers.length - 1);
        return;
      }
      const self = tf.slice(h, [0, 0], [layer.numDst, h.shape[1]]) as tf.Tensor2D;
      h = this.applyLayer(l, self, meanOfNeighbors(h, layer), dropoutSeed + 1000 * l);
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
    for (let l = 0; l < this.layers.length; ++l) {
      h = this.applyLayer(l, h, aggregate(h, g.block, 'mean'), dropoutSeed === undefined ? undefined : dropoutSeed + 1000 * l);
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
      widths: this.layers.map((w) => w.bias.shape[0]),
      inputs: (ids) => this.inputs.read(ids),
      layer: (l, h, block) => {
        const self = tf.slice(h, [0, 0], [block.numRows, h.shape[1]]) as tf.Tensor2D;
        return this.applyLayer(l, self, aggregate(h, block, 'mean'));
      },
    };
  }

  /** The predicted class of every vertex (full neighbourhoods). */
  predict(g: FullGraph): Int32Array {
    return predictedClasses(() => this.forwardFull(g));
  }

  dispose(): void {
    tf.dispose(this.layers.flatMap((l) => [l.wSelf, l.wNeigh, l.bias]));
    this.inputs.dispose();
  }
}

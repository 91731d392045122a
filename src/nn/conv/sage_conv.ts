// GraphSAGE's layer (Hamilton et al.; PyG's SAGEConv): act(x_self W_root + reduce(neighbours) W + b),
// optionally L2-normalised. Over a fixed fan-out or a sampled CSR block, mean aggregation with a root weight and a
// ReLU or no activation runs as wm.nn.sageLayer (one fused op each way on the GPU for a fixed fan-out and for a GPU
// sampler's block); the rest composes the neighbour reduction (the native sparse product over a CSR block) with tfjs ops.
import * as tf from '@tensorflow/tfjs-core';
import {LayerVariable, Shape} from '@tensorflow/tfjs-layers';

import {sageLayer, sageLayerOverTable, sageLayerOverVertices} from '../sage_layer';
import type {Embedding} from '../embedding';
import {dstDim, GraphConv, GraphConvArgs, GraphKwargs, lastDim} from './graph_conv';
import {blockIn, GraphLayerInput} from './graph_input';
import {BlockLayer, FixedFanoutLayer, InputVertices, isFixedLayer} from '../../graph/sampled_subgraph';
import {NEIGHBOR_REDUCES, NeighborReduce, reduceNeighbors} from './neighbor_reduce';

export interface SageConvArgs extends GraphConvArgs {
  /** How the neighbours' rows are combined (default 'mean'). */
  aggregator?: NeighborReduce;
  /** Adds the row's own input through a weight of its own (default true). */
  rootWeight?: boolean;
  /** L2-normalises each output row (default false). */
  normalize?: boolean;
}

export class SageConv extends GraphConv {
  static readonly className = 'WmSageConv';
  readonly aggregator: NeighborReduce;
  readonly rootWeight: boolean;
  readonly normalize: boolean;
  private wNeigh?: LayerVariable;
  private wRoot?: LayerVariable;
  private b?: LayerVariable;

  constructor(args: SageConvArgs) {
    super(args, 'sageConv');
    this.aggregator = args.aggregator ?? 'mean';
    if (!NEIGHBOR_REDUCES.includes(this.aggregator))
      throw new RangeError(`sageConv: aggregator must be one of ${NEIGHBOR_REDUCES.join(', ')}, got '${args.aggregator}'`);
    this.rootWeight = args.rootWeight ?? true;
    this.normalize = args.normalize ?? false;
  }

  override build(inputShape: Shape | Shape[]): void {
    const d = lastDim(inputShape, 'sageConv');
    this.wNeigh = this.kernel('neighborKernel', [d, this.units]);
    if (this.rootWeight) this.wRoot = this.kernel('rootKernel', [dstDim(inputShape, 'sageConv'), this.units]);
    this.b = this.biasWeight(this.units);
    this.built = true;
  }

  override call(inputs: tf.Tensor | tf.Tensor[], kwargs: GraphKwargs): tf.Tensor2D {
    return tf.tidy(() => {
      const {x, graph, ownRows, bipartite} = this.inputsOf(inputs, kwargs, 'sageConv');
      let y: tf.Tensor2D;
      // The fused op serves fixed fan-outs and a sampler's CSR blocks (over other blocks it composes the same tfjs
      // ops as below).
      const layer = bipartite || !this.fusable() ? undefined : sampledLayer(graph, x.shape[0]);
      if (layer) {
        y = sageLayer(
          x,
          layer,
          this.wRoot!.read() as tf.Tensor2D,
          this.wNeigh!.read() as tf.Tensor2D,
          this.b!.read() as tf.Tensor1D,
          this.activation === 'relu',
        );
      } else {
        y = tf.matMul(reduceNeighbors(x, graph, this.aggregator, 'sageConv'), this.wNeigh!.read() as tf.Tensor2D);
        if (this.wRoot) y = tf.add(y, tf.matMul(ownRows(), this.wRoot.read() as tf.Tensor2D));
        if (this.b) y = tf.add(y, this.b.read());
        y = this.activate(y);
      }
      return this.normalized(y);
    });
  }

  /**
   * The layer over the rows of a feature table at `ids`, read in place (sageLayerOverTable: no matrix of the
   * input rows), for a built layer whose aggregation the fused op serves, over a fixed fan-out or a sampled CSR
   * block (or a sampler's input layer as drawn: sageLayerOverVertices); undefined where that does not apply (the
   * caller gathers the rows and calls apply). What a model's first layer over features calls.
   */
  applyOverTable(
    table: Embedding,
    input: {ids: tf.Tensor1D; layer: FixedFanoutLayer | BlockLayer} | InputVertices,
  ): tf.Tensor2D | undefined {
    if (!this.built || !this.fusable()) return undefined;
    return tf.tidy(() => {
      const weights = [this.wRoot!.read() as tf.Tensor2D, this.wNeigh!.read() as tf.Tensor2D, this.b!.read() as tf.Tensor1D] as const;
      const relu = this.activation === 'relu';
      const y =
        'ids' in input
          ? sageLayerOverTable(table, input.ids, input.layer, ...weights, relu)
          : sageLayerOverVertices(table, input, ...weights, relu);
      return y && this.normalized(y);
    });
  }

  // Mean aggregation, a root weight, a bias, ReLU or no activation: what the fused native layer computes.
  private fusable(): boolean {
    return this.aggregator === 'mean' && !!this.wRoot && !!this.b && (this.activation === 'relu' || this.activation === 'linear');
  }

  // PyG's normalize: each row divided by its L2 norm (at least 1e-12), through the squared norm so a zero row's
  // gradient is zero, not NaN.
  private normalized(y: tf.Tensor2D): tf.Tensor2D {
    return this.normalize ? (tf.mul(y, tf.rsqrt(tf.maximum(tf.sum(tf.square(y), 1, true), 1e-24))) as tf.Tensor2D) : y;
  }

  override getConfig(): tf.serialization.ConfigDict {
    return {...super.getConfig(), aggregator: this.aggregator, rootWeight: this.rootWeight, normalize: this.normalize};
  }
}
tf.serialization.registerClass(SageConv);

/** GraphSAGE's layer (PyG's SAGEConv) as a tfjs layer: `sageConv({units, aggregator}).apply(x, {graph})`. */
export function sageConv(args: SageConvArgs): SageConv {
  return new SageConv(args);
}

// A sampled layer's edges as sageLayer takes them (a fixed fan-out, or a block of a sampler's layer or given alone,
// reading the input's `rows` rows, its outputs the first of them); undefined for anything else (the composed path
// names what does not fit).
function sampledLayer(g: GraphLayerInput, rows: number): FixedFanoutLayer | BlockLayer | undefined {
  if (isFixedLayer(g)) return g;
  const block = blockIn(g);
  return block && block.numCols === rows && block.numRows <= rows ? {block} : undefined;
}

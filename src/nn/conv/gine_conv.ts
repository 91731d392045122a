// GINE's layer (Hu et al., 2020; PyG's GINEConv with edge_dim): GIN whose neighbour sum adds each edge's
// features first, act(MLP((1 + eps) x_self + sum over edges of relu(x_source + W_e e + b_e))). The edge
// features come with the call (`{graph, edgeAttr}`: a row per entry of the block, in its entry order, as a
// batch of small graphs gives them); the messages are a gather, a ReLU and a segment sum (tfjs ops,
// differentiable in x, the edge features and the weights).
import * as tf from '@tensorflow/tfjs-core';
import {initializers, LayerVariable, Shape} from '@tensorflow/tfjs-layers';

import {GinConv, GinConvArgs} from './gin_conv';
import {GraphKwargs, lastDim} from './graph_conv';
import {blockOf, GraphLayerInput} from './graph_input';

export interface GineConvArgs extends GinConvArgs {
  /** Width of the edge features (projected to the input's width, as PyG's edge_dim). */
  edgeDim: number;
}

export interface GineKwargs extends GraphKwargs {
  /** [entries of the graph's block, edgeDim]: each entry's edge features. */
  edgeAttr?: tf.Tensor2D;
}

export class GineConv extends GinConv {
  static override readonly className: string = 'WmGineConv';
  readonly edgeDim: number;
  private edgeKernel?: LayerVariable;
  private edgeBias?: LayerVariable;

  constructor(args: GineConvArgs) {
    super(args, 'gineConv');
    if (!Number.isInteger(args.edgeDim) || args.edgeDim < 1)
      throw new RangeError(`gineConv: edgeDim must be a positive integer, got ${args.edgeDim}`);
    this.edgeDim = args.edgeDim;
  }

  override build(inputShape: Shape | Shape[]): void {
    const inDim = lastDim(inputShape, 'gineConv');
    this.edgeKernel = this.kernel('edgeKernel', [this.edgeDim, inDim]);
    this.edgeBias = this.addWeight('edgeBias', [inDim], 'float32', initializers.zeros(), undefined, true);
    super.build(inputShape);
  }

  protected override neighborSum(x: tf.Tensor2D, graph: GraphLayerInput, kwargs: GineKwargs): tf.Tensor2D {
    const block = blockOf(graph, 'gineConv');
    const {colIdx} = block.arrays;
    const attr = kwargs?.edgeAttr;
    if (!(attr instanceof tf.Tensor) || attr.rank !== 2 || attr.shape[0] !== colIdx.length || attr.shape[1] !== this.edgeDim)
      throw new RangeError(
        `gineConv: edgeAttr must be [${colIdx.length} entries, ${this.edgeDim}] (a row per entry of the graph's block), got ` +
          (attr instanceof tf.Tensor ? `[${attr.shape}]` : String(attr)),
      );
    const e = tf.add(tf.matMul(attr, this.edgeKernel!.read() as tf.Tensor2D), this.edgeBias!.read());
    const messages = tf.relu(tf.add(tf.gather(x, tf.tensor1d(colIdx, 'int32')), e));
    return tf.unsortedSegmentSum(messages, tf.tensor1d(block.entryRows, 'int32'), block.numRows) as tf.Tensor2D;
  }

  override getConfig(): tf.serialization.ConfigDict {
    return {...super.getConfig(), edgeDim: this.edgeDim};
  }
}
tf.serialization.registerClass(GineConv);

/** GINE's layer (PyG's GINEConv with edge_dim) as a tfjs layer: call it with `{graph, edgeAttr}`. */
export function gineConv(args: GineConvArgs): GineConv {
  return new GineConv(args);
}

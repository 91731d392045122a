// GIN's layer (Xu et al.; PyG's GINConv with a two-layer MLP): act(MLP((1 + eps) x_self + sum of
// neighbours)), MLP = Linear -> ReLU -> Linear; eps fixed or learned. The neighbour sum is the native
// sparse product (or the fixed fan-out's gather); with a ReLU or linear activation the rest is one op each
// way (gin_mlp.ts).
import * as tf from '@tensorflow/tfjs-core';
import {initializers, LayerVariable, Shape} from '@tensorflow/tfjs-layers';

import {GraphConv, GraphConvArgs, GraphKwargs, lastDim} from './graph_conv';
import type {GraphLayerInput} from './graph_input';
import {ginMlp, onePlusEps} from './gin_mlp';
import {reduceNeighbors} from './neighbor_reduce';

export interface GinConvArgs extends GraphConvArgs {
  /** The MLP's hidden width (default units). */
  hiddenUnits?: number;
  /** The weight of the row's own input is 1 + eps (default eps 0). */
  eps?: number;
  /** Learns eps (default false). */
  trainEps?: boolean;
}

export class GinConv extends GraphConv {
  static readonly className: string = 'WmGinConv';
  readonly hiddenUnits: number;
  readonly eps: number;
  readonly trainEps: boolean;
  private w1?: LayerVariable;
  private b1?: LayerVariable;
  private w2?: LayerVariable;
  private b2?: LayerVariable;
  private epsWeight?: LayerVariable;

  constructor(args: GinConvArgs, what = 'ginConv') {
    super(args, what);
    this.hiddenUnits = args.hiddenUnits ?? args.units;
    if (!Number.isInteger(this.hiddenUnits) || this.hiddenUnits < 1)
      throw new RangeError(`ginConv: hiddenUnits must be a positive integer, got ${args.hiddenUnits}`);
    this.eps = args.eps ?? 0;
    if (!Number.isFinite(this.eps)) throw new RangeError(`ginConv: eps must be a finite number, got ${args.eps}`);
    this.trainEps = args.trainEps ?? false;
  }

  override build(inputShape: Shape | Shape[]): void {
    this.w1 = this.kernel('kernel1', [lastDim(inputShape, 'ginConv'), this.hiddenUnits]);
    this.b1 = this.biasWeight(this.hiddenUnits);
    this.w2 = this.kernel('kernel2', [this.hiddenUnits, this.units]);
    if (this.useBias) this.b2 = this.addWeight('bias2', [this.units], 'float32', initializers.zeros(), undefined, true);
    if (this.trainEps) this.epsWeight = this.addWeight('eps', [1], 'float32', initializers.constant({value: this.eps}), undefined, true);
    this.built = true;
  }

  override call(inputs: tf.Tensor | tf.Tensor[], kwargs: GraphKwargs): tf.Tensor2D {
    return tf.tidy(() => {
      const {x, graph, ownRows} = this.inputsOf(inputs, kwargs, 'ginConv');
      const self = ownRows();
      if (self.shape[1] !== x.shape[1])
        throw new RangeError(
          `ginConv: sources and destinations must be as wide (their rows are added), got ${x.shape[1]} and ${self.shape[1]}`,
        );
      const agg = this.neighborSum(x, graph, kwargs);
      if (this.activation === 'relu' || this.activation === 'linear')
        return ginMlp(self, agg, {
          w1: this.w1!.read() as tf.Tensor2D,
          b1: this.b1?.read() as tf.Tensor1D | undefined,
          w2: this.w2!.read() as tf.Tensor2D,
          b2: this.b2?.read() as tf.Tensor1D | undefined,
          eps: this.epsWeight?.read(),
          fixedEps: this.eps,
          relu: this.activation === 'relu',
        });
      const h = tf.add(onePlusEps(self, this.epsWeight?.read(), this.eps), agg) as tf.Tensor2D;
      const hidden = tf.fused.matMul({a: h, b: this.w1!.read() as tf.Tensor2D, bias: this.b1?.read(), activation: 'relu'});
      return this.activate(tf.fused.matMul({a: hidden, b: this.w2!.read() as tf.Tensor2D, bias: this.b2?.read()}));
    });
  }

  /** The sum of each row's neighbours' inputs (GINE adds edge features to each first). */
  protected neighborSum(x: tf.Tensor2D, graph: GraphLayerInput, _kwargs: GraphKwargs): tf.Tensor2D {
    return reduceNeighbors(x, graph, 'sum', 'ginConv');
  }

  override getConfig(): tf.serialization.ConfigDict {
    return {...super.getConfig(), hiddenUnits: this.hiddenUnits, eps: this.eps, trainEps: this.trainEps};
  }
}
tf.serialization.registerClass(GinConv);

/** GIN's layer (PyG's GINConv over a two-layer MLP) as a tfjs layer. */
export function ginConv(args: GinConvArgs): GinConv {
  return new GinConv(args);
}

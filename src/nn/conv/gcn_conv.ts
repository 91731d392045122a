// GCN's layer (Kipf and Welling; PyG's GCNConv): act(Â x W + b), Â the graph with self loops under
// the symmetric normalisation D^-1/2 (A + I) D^-1/2 (or the plain sum of neighbours, normalize: false).
// One native sparse product each way (wm.graph.aggregate), the narrower side of W aggregated.
import * as tf from '@tensorflow/tfjs-core';
import {LayerVariable, Shape} from '@tensorflow/tfjs-layers';

import {aggregate} from '../../graph/aggregate';
import {GraphConv, GraphConvArgs, GraphKwargs, lastDim} from './graph_conv';
import {blockOf} from './graph_input';

export interface GcnConvArgs extends GraphConvArgs {
  /** GCN's normalisation with self loops (default true); false sums the neighbours as they are. */
  normalize?: boolean;
}

export class GcnConv extends GraphConv {
  static readonly className = 'WmGcnConv';
  readonly normalize: boolean;
  private w?: LayerVariable;
  private b?: LayerVariable;

  constructor(args: GcnConvArgs) {
    super(args, 'gcnConv');
    this.normalize = args.normalize ?? true;
  }

  override build(inputShape: Shape | Shape[]): void {
    this.w = this.kernel('kernel', [lastDim(inputShape, 'gcnConv'), this.units]);
    this.b = this.biasWeight(this.units);
    this.built = true;
  }

  override call(inputs: tf.Tensor | tf.Tensor[], kwargs: GraphKwargs): tf.Tensor2D {
    return tf.tidy(() => {
      const {x, graph, bipartite} = this.inputsOf(inputs, kwargs, 'gcnConv');
      if (bipartite)
        throw new TypeError(
          "gcnConv: edges between two vertex types (a pair of inputs) have no symmetric normalisation: use sageConv, ginConv or gatConv there, as PyG's GCNConv does",
        );
      const block = blockOf(graph, 'gcnConv');
      const reduce = this.normalize ? 'gcn' : 'sum';
      const w = this.w!.read() as tf.Tensor2D;
      // Â (x W) = (Â x) W: the product runs over the narrower of the two widths. Aggregating first, the
      // projection, bias and ReLU are one fused matMul (one kernel each way).
      if (w.shape[0] <= w.shape[1] && (this.activation === 'relu' || this.activation === 'linear'))
        return tf.fused.matMul({a: aggregate(x, block, reduce), b: w, bias: this.b?.read(), activation: this.activation}) as tf.Tensor2D;
      let y = w.shape[0] > w.shape[1] ? aggregate(tf.matMul(x, w), block, reduce) : tf.matMul(aggregate(x, block, reduce), w);
      if (this.b) y = tf.add(y, this.b.read());
      return this.activate(y);
    });
  }

  override getConfig(): tf.serialization.ConfigDict {
    return {...super.getConfig(), normalize: this.normalize};
  }
}
tf.serialization.registerClass(GcnConv);

/** GCN's layer (PyG's GCNConv) as a tfjs layer: `gcnConv({units}).apply(x, {graph})`. */
export function gcnConv(args: GcnConvArgs): GcnConv {
  return new GcnConv(args);
}

// Graph attention (Veličković et al.; PyG's GATConv): per head, feat = x W, each edge's weight the
// softmax over the row's entries of leakyRelu(a_src · feat_src + a_dst · feat_dst), the row's output
// the weighted sum of its sources' feat; heads concatenated or averaged, then the bias and activation.
// The edge softmax and weighted sum are one native op each way (wm.nn.gatAggregate).
import * as tf from '@tensorflow/tfjs-core';
import {LayerVariable, Shape} from '@tensorflow/tfjs-layers';

import {composite, gatAggregate} from '../gat';
import {GraphConv, GraphConvArgs, GraphKwargs, lastDim} from './graph_conv';
import {blockOf} from './graph_input';

export interface GatConvArgs extends GraphConvArgs {
  /** Attention heads (default 1); `units` is each head's width. */
  heads?: number;
  /** Concatenates the heads (default true: heads * units columns) or averages them (units columns). */
  concat?: boolean;
  /** The attention logits' LeakyReLU slope (default 0.2). */
  negativeSlope?: number;
  /**
   * Dropout on the attention coefficients while training (PyG's `dropout`; default 0). Training steps with
   * it take the coefficients from tfjs ops (the fused op computes them without a mask); inference is fused.
   */
  dropout?: number;
  /**
   * Adds each output row's own input through a weight of its own (PyG's `residual`; default false): sampled
   * blocks carry no self loops, so this is how a row keeps its own features there.
   */
  residual?: boolean;
  /**
   * Attends over each row's own input too: a self loop per row, any present replaced (PyG's
   * `add_self_loops`; default true). With false a row attends over its neighbours alone.
   */
  addSelfLoops?: boolean;
}

export class GatConv extends GraphConv {
  static readonly className = 'WmGatConv';
  readonly heads: number;
  readonly concat: boolean;
  readonly negativeSlope: number;
  readonly dropout: number;
  readonly residual: boolean;
  readonly addSelfLoops: boolean;
  private calls = 0;
  private w?: LayerVariable;
  private attSrc?: LayerVariable;
  private attDst?: LayerVariable;
  private res?: LayerVariable;
  private b?: LayerVariable;

  constructor(args: GatConvArgs) {
    super(args, 'gatConv');
    this.heads = args.heads ?? 1;
    if (!Number.isInteger(this.heads) || this.heads < 1)
      throw new RangeError(`gatConv: heads must be a positive integer, got ${args.heads}`);
    this.concat = args.concat ?? true;
    this.negativeSlope = args.negativeSlope ?? 0.2;
    if (!Number.isFinite(this.negativeSlope))
      throw new RangeError(`gatConv: negativeSlope must be a finite number, got ${args.negativeSlope}`);
    this.dropout = args.dropout ?? 0;
    if (!(typeof this.dropout === 'number' && this.dropout >= 0 && this.dropout < 1))
      throw new RangeError(`gatConv: dropout must be in [0, 1), got ${args.dropout}`);
    this.residual = args.residual ?? false;
    this.addSelfLoops = args.addSelfLoops ?? true;
  }

  /** A saved layer's config: one saved before addSelfLoops existed attended without self loops, and still does. */
  static override fromConfig<T extends tf.serialization.Serializable>(
    cls: tf.serialization.SerializableConstructor<T>,
    config: tf.serialization.ConfigDict,
  ): T {
    return new cls({addSelfLoops: false, ...config});
  }

  protected override outputWidth(): number {
    return this.concat ? this.heads * this.units : this.units;
  }

  override build(inputShape: Shape | Shape[]): void {
    this.w = this.kernel('kernel', [lastDim(inputShape, 'gatConv'), this.heads * this.units]);
    this.attSrc = this.kernel('attentionSource', [this.heads, this.units]);
    this.attDst = this.kernel('attentionTarget', [this.heads, this.units]);
    if (this.residual) this.res = this.kernel('residualKernel', [lastDim(inputShape, 'gatConv'), this.outputWidth()]);
    this.b = this.biasWeight(this.outputWidth());
    this.built = true;
  }

  override call(inputs: tf.Tensor | tf.Tensor[], kwargs: GraphKwargs): tf.Tensor2D {
    return tf.tidy(() => {
      const {x, graph, ownRows, bipartite} = this.inputsOf(inputs, kwargs, 'gatConv');
      const given = blockOf(graph, 'gatConv');
      if (bipartite && this.addSelfLoops)
        throw new TypeError(
          'gatConv: edges between two vertex types (a pair of inputs) have no self loops: make the layer with addSelfLoops: false',
        );
      const xDst = bipartite ? ownRows() : undefined;
      if (xDst && xDst.shape[1] !== x.shape[1])
        throw new RangeError(
          `gatConv: sources and destinations share one weight: they must be as wide, got ${x.shape[1]} and ${xDst.shape[1]}`,
        );
      const block = this.addSelfLoops ? given.withSelfLoops() : given;
      const {heads, units} = this;
      const w = this.w!.read() as tf.Tensor2D;
      const feat = tf.reshape(tf.matMul(x, w), [x.shape[0], heads, units]) as tf.Tensor3D;
      const src = tf.sum(tf.mul(feat, this.attSrc!.read()), 2) as tf.Tensor2D;
      const featDst = xDst
        ? tf.reshape(tf.matMul(xDst, w), [block.numRows, heads, units])
        : tf.slice(feat, [0, 0, 0], [block.numRows, heads, units]);
      const dst = tf.sum(tf.mul(featDst, this.attDst!.read()), 2) as tf.Tensor2D;
      if (block.weights)
        throw new TypeError('gatConv: the block has edge weights, which attention does not read; pass the block without them');
      // Each training call its own mask, the same sequence for the same seed.
      const drop = kwargs?.training === true && this.dropout > 0;
      const out = drop
        ? composite(block, feat, src, dst, this.negativeSlope, {
            rate: this.dropout,
            seed: Math.abs(this.seed ?? 0) * 1_000_003 + this.calls++,
          })
        : gatAggregate(block, feat, src, dst, {negativeSlope: this.negativeSlope});
      let y = (this.concat ? tf.reshape(out, [block.numRows, heads * units]) : tf.mean(out, 1)) as tf.Tensor2D;
      if (this.res) y = tf.add(y, tf.matMul(xDst ?? ownRows(), this.res.read() as tf.Tensor2D));
      if (this.b) y = tf.add(y, this.b.read());
      return this.activate(y);
    });
  }

  override getConfig(): tf.serialization.ConfigDict {
    return {
      ...super.getConfig(),
      heads: this.heads,
      concat: this.concat,
      negativeSlope: this.negativeSlope,
      dropout: this.dropout,
      residual: this.residual,
      addSelfLoops: this.addSelfLoops,
    };
  }
}
tf.serialization.registerClass(GatConv);

/** Graph attention (PyG's GATConv) as a tfjs layer: `gatConv({units, heads}).apply(x, {graph})`. */
export function gatConv(args: GatConvArgs): GatConv {
  return new GatConv(args);
}

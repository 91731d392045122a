// What every graph layer shares, in tfjs-layers' idiom: its weights are layer variables made with
// initializers and regularizers (getWeights / setWeights, model.save / tf.loadLayersModel through the
// registered classes), its output activation, its config. Each layer adds its message passing.
import * as tf from '@tensorflow/tfjs-core';
import {initializers, layers, LayerVariable, regularizers, Shape} from '@tensorflow/tfjs-layers';

import {firstRows, graphFor, GraphLayerInput, outputRows} from './graph_input';
import {tfSeed} from '../../util/random';

export type GraphActivation = 'linear' | 'relu' | 'elu' | 'tanh' | 'sigmoid' | 'leakyRelu';
export type GraphInitializer = 'glorotUniform' | 'glorotNormal' | 'heUniform' | 'heNormal' | 'zeros';

export interface GraphConvArgs {
  /** Output width (per head for gatConv). */
  units: number;
  /** Applied to the output (default 'linear'). */
  activation?: GraphActivation;
  /** Adds a bias before the activation (default true). */
  useBias?: boolean;
  /** The weights' initializer (default 'glorotUniform', as PyG's and DGL's layers). */
  kernelInitializer?: GraphInitializer;
  /**
   * Penalties on the weights (not the biases): `tf.addN(layer.calculateLosses())` is their sum. `l1` /
   * `l2` as tfjs means them (l2 adds l2 * sum(w^2): a gradient of 2 * l2 * w); `weightDecay` as PyTorch's
   * optimizers mean it (a gradient of weightDecay * w: the same as l2 = weightDecay / 2).
   */
  kernelRegularizer?: {l1?: number; l2?: number; weightDecay?: number};
  /** Seed of the initializer (a fixed seed gives the same weights). */
  seed?: number;
  /** The input's feature width, for the first layer of a tf.sequential (or batchInputShape, as tfjs-layers). */
  inputShape?: number[];
  batchInputShape?: (number | null)[];
  name?: string;
  trainable?: boolean;
}

/** The second argument of apply: this call's edges and whether it trains (dropout). */
export interface GraphKwargs {
  graph?: GraphLayerInput;
  training?: boolean;
}

const ACTIVATIONS: {[k in GraphActivation]: (x: tf.Tensor) => tf.Tensor} = {
  linear: (x) => x,
  relu: (x) => tf.relu(x),
  elu: (x) => tf.elu(x),
  tanh: (x) => tf.tanh(x),
  sigmoid: (x) => tf.sigmoid(x),
  leakyRelu: (x) => tf.leakyRelu(x, 0.2),
};

const INITIALIZERS: GraphInitializer[] = ['glorotUniform', 'glorotNormal', 'heUniform', 'heNormal', 'zeros'];

export abstract class GraphConv extends layers.Layer {
  readonly units: number;
  readonly activation: GraphActivation;
  readonly useBias: boolean;
  readonly kernelInitializer: GraphInitializer;
  readonly kernelRegularizer?: {l1?: number; l2?: number; weightDecay?: number};
  readonly seed?: number;
  private weightCount = 0;

  constructor(args: GraphConvArgs, what: string) {
    super({name: args?.name, trainable: args?.trainable, inputShape: args?.inputShape, batchInputShape: args?.batchInputShape});
    if (!args || !Number.isInteger(args.units) || args.units < 1)
      throw new RangeError(`${what}: units must be a positive integer, got ${args?.units}`);
    this.units = args.units;
    this.activation = args.activation ?? 'linear';
    if (!(this.activation in ACTIVATIONS))
      throw new RangeError(`${what}: activation must be one of ${Object.keys(ACTIVATIONS).join(', ')}, got '${args.activation}'`);
    this.useBias = args.useBias ?? true;
    this.kernelInitializer = args.kernelInitializer ?? 'glorotUniform';
    if (!INITIALIZERS.includes(this.kernelInitializer))
      throw new RangeError(`${what}: kernelInitializer must be one of ${INITIALIZERS.join(', ')}, got '${args.kernelInitializer}'`);
    const reg = args.kernelRegularizer;
    if (reg !== undefined)
      for (const k of ['l1', 'l2', 'weightDecay'] as const)
        if (reg[k] !== undefined && !(Number.isFinite(reg[k]) && reg[k]! >= 0))
          throw new RangeError(`${what}: kernelRegularizer.${k} must be a non-negative number, got ${reg[k]}`);
    this.kernelRegularizer = reg;
    if (args.seed !== undefined && !Number.isInteger(args.seed)) throw new RangeError(`${what}: seed must be an integer, got ${args.seed}`);
    this.seed = args.seed;
  }

  /** A trainable weight with the layer's initializer and regularizer (each weight its own seed). */
  protected kernel(name: string, shape: number[]): LayerVariable {
    const seed = this.seed === undefined ? undefined : tfSeed(this.seed + 7919 * this.weightCount++);
    type Init = ReturnType<typeof initializers.zeros>;
    const init: Init =
      this.kernelInitializer === 'zeros'
        ? initializers.zeros()
        : (initializers[this.kernelInitializer] as (a: {seed?: number}) => Init)({seed});
    const reg = this.kernelRegularizer
      ? regularizers.l1l2({
          l1: this.kernelRegularizer.l1 ?? 0,
          l2: (this.kernelRegularizer.l2 ?? 0) + (this.kernelRegularizer.weightDecay ?? 0) / 2,
        })
      : undefined;
    return this.addWeight(name, shape, 'float32', init, reg, true);
  }

  /** The variable behind weight `name` ('kernel', 'bias', ...): what an optimizer or data parallelism is given. */
  variable(name: string): tf.Variable {
    const w = this.weights.find((v) => v.originalName === name || v.originalName.endsWith(`/${name}`));
    if (!w) throw new RangeError(`${this.name}: no weight named '${name}'${this.built ? '' : ' (the layer is not built yet)'}`);
    return w.read() as tf.Variable;
  }

  protected biasWeight(size: number): LayerVariable | undefined {
    return this.useBias ? this.addWeight('bias', [size], 'float32', initializers.zeros(), undefined, true) : undefined;
  }

  protected activate(x: tf.Tensor): tf.Tensor2D {
    return ACTIVATIONS[this.activation](x) as tf.Tensor2D;
  }

  /**
   * The input matrix, this call's edges, and the destinations' own rows (ownRows, made when asked): one matrix x whose first rows
   * are the destinations (one vertex type), or [xSrc, xDst] for edges from one vertex type to another
   * (PyG's (x_src, x_dst) pair: the neighbours' rows, then the rows the layer computes, each type its width).
   */
  protected inputsOf(
    inputs: tf.Tensor | tf.Tensor[],
    kwargs: GraphKwargs,
    what: string,
  ): {x: tf.Tensor2D; graph: GraphLayerInput; ownRows: () => tf.Tensor2D; bipartite: boolean} {
    const list = Array.isArray(inputs) ? inputs : [inputs];
    if (list.length > 2)
      throw new TypeError(`${what}: the input must be a matrix or a pair [sources, destinations], got ${list.length} tensors`);
    const x = list[0] as tf.Tensor2D;
    if (!(x instanceof tf.Tensor) || x.rank !== 2) throw new TypeError(`${what}: the input must be a matrix [rows, features]`);
    const graph = graphFor(kwargs?.graph, what);
    const rows = outputRows(graph, what);
    if (list.length === 2) {
      const xDst = list[1] as tf.Tensor2D;
      if (!(xDst instanceof tf.Tensor) || xDst.rank !== 2)
        throw new TypeError(`${what}: the destinations' input (the pair's second) must be a matrix [rows, features]`);
      if (xDst.shape[0] !== rows)
        throw new RangeError(`${what}: the graph computes ${rows} rows, the destinations' input has ${xDst.shape[0]}`);
      return {x, graph, ownRows: () => xDst, bipartite: true};
    }
    if (rows > x.shape[0]) throw new RangeError(`${what}: the graph computes ${rows} rows, the input has only ${x.shape[0]}`);
    // Every row a destination (a whole graph, a batch of graphs): x itself, no slice (and no pad back) each way.
    return {
      x,
      graph,
      ownRows: () => firstRows(x, rows),
      bipartite: false,
    };
  }

  override computeOutputShape(inputShape: Shape | Shape[]): Shape {
    return [firstShape(inputShape)[0], this.outputWidth()];
  }

  /** The output's columns. */
  protected outputWidth(): number {
    return this.units;
  }

  override getConfig(): tf.serialization.ConfigDict {
    const c: tf.serialization.ConfigDict = {
      ...super.getConfig(),
      units: this.units,
      activation: this.activation,
      useBias: this.useBias,
      kernelInitializer: this.kernelInitializer,
    };
    if (this.kernelRegularizer) c.kernelRegularizer = {...this.kernelRegularizer};
    if (this.seed !== undefined) c.seed = this.seed;
    return c;
  }
}

/** The width of the last axis of a layer's input shape (the sources' with a pair of inputs). */
export function lastDim(inputShape: Shape | Shape[], what: string): number {
  const s = firstShape(inputShape);
  const d = s[s.length - 1];
  if (d === null || d === undefined) throw new RangeError(`${what}: the input's feature width must be known`);
  return d;
}

/** The destinations' width: the pair's second input's, or the one input's. */
export function dstDim(inputShape: Shape | Shape[], what: string): number {
  const pair = Array.isArray(inputShape[0]) && inputShape.length === 2;
  return pair ? lastDim((inputShape as Shape[])[1], what) : lastDim(inputShape, what);
}

/** The features' shape: a layer given [x] or x. */
function firstShape(inputShape: Shape | Shape[]): Shape {
  return (Array.isArray(inputShape[0]) ? inputShape[0] : inputShape) as Shape;
}

/**
 * `conv` built for inputs `inDim` wide, its weights set to `init()` (in the layer's order): the classifiers
 * keep their own seeded draws, so a seed gives the weights it always gave.
 */
export function builtConv<T extends GraphConv>(conv: T, inDim: number, init: () => tf.Tensor[]): T {
  conv.build([null, inDim]);
  const values = tf.tidy(init);
  try {
    conv.setWeights(values);
  } finally {
    tf.dispose(values);
  }
  return conv;
}

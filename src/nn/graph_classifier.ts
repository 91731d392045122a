// A classifier of whole small graphs (the GIN paper's model; PyG's GIN example): graph layers over a batch's
// block-diagonal graph, every layer's vertex outputs (the input's too) pooled per graph and joined (the
// paper's readout over all depths), then a two-layer MLP into the classes. With conv 'none' the edges are
// never read: the pooled inputs alone (DeepSets), the baseline that says what the edges add.
import * as tf from '@tensorflow/tfjs-core';

import type {GraphBatch} from '../graph/graph_batch';
import {batchNormTraining} from './batch_norm';
import {dropout} from './dropout';
import {GraphConv} from './conv/graph_conv';
import {ginConv} from './conv/gin_conv';
import {gineConv} from './conv/gine_conv';
import {gcnConv} from './conv/gcn_conv';
import {sageConv} from './conv/sage_conv';
import {globalAttentionPool, globalPool, GlobalPool} from './global_pool';
import {glorot} from './node_model';

export const GRAPH_CONVS = ['gin', 'gine', 'gcn', 'sage', 'none'] as const;
export type GraphPool = GlobalPool | 'attention';
export type GraphConvKind = (typeof GRAPH_CONVS)[number];

export interface GraphClassifierConfig {
  /** Width of each vertex's features (1 for graphs without features: a constant column). */
  inDim: number;
  /** Classes (at least 2); with `regression`, the targets predicted (at least 1). */
  numClasses: number;
  /** The outputs are values (a graph regression: forward's rows are predictions), not class logits. Default false. */
  regression?: boolean;
  /** 'gin' (learned eps, a two-layer MLP per layer), 'gine' (GIN with edge features), 'gcn', 'sage', or 'none' (the edges unused). */
  conv: GraphConvKind;
  /** Width of the graphs' edge features: what 'gine' reads (each batch's edgeAttr). */
  edgeDim?: number;
  /** How a graph's vertex rows become one row: 'add' (GIN's), 'mean', 'max', or 'attention' (a learned gate per depth). */
  pool: GraphPool;
  hiddenDim: number;
  /** Graph layers (0 with conv 'none'). */
  numLayers: number;
  /** Dropout before the MLP's output layer on a training pass. */
  dropout: number;
  /**
   * Batch normalisation of each graph layer's outputs (default true, as PyG's GIN): over the batch's vertex rows on
   * a training pass (the running mean and variance updated, momentum 0.1), by the running statistics otherwise.
   */
  batchNorm?: boolean;
  /**
   * A virtual node per graph (OGB's GIN-virtual): before each layer after the first, a row per graph, the sum of
   * the graph's rows and the previous virtual row through a linear map and a ReLU, added to every row of the
   * graph. Default false.
   */
  virtualNode?: boolean;
  seed: number;
}

interface Norm {
  gamma: tf.Variable;
  beta: tf.Variable;
  /** Not trained: the running statistics evaluation reads. */
  mean: tf.Variable;
  variance: tf.Variable;
}

const NORM_MOMENTUM = 0.1,
  NORM_EPSILON = 1e-5;

export class GraphClassifier {
  readonly convs: GraphConv[];
  private readonly head: {w1: tf.Variable; b1: tf.Variable; w2: tf.Variable; b2: tf.Variable};
  private readonly norms: Norm[];
  /** With pool 'attention': each depth's gate (a linear map of its rows to one score). */
  private readonly gates: {w: tf.Variable; b: tf.Variable}[];
  /** With virtualNode: the map of each layer after the first. */
  private readonly virtual: {w: tf.Variable; b: tf.Variable}[];

  constructor(readonly config: GraphClassifierConfig) {
    const {inDim, numClasses, conv, pool, hiddenDim, numLayers, dropout: rate, seed} = config;
    const positive = (v: number, name: string) => {
      if (!Number.isInteger(v) || v < 1) throw new RangeError(`GraphClassifier: ${name} must be a positive integer, got ${v}`);
    };
    positive(inDim, 'inDim');
    positive(hiddenDim, 'hiddenDim');
    const fewest = config.regression ? 1 : 2;
    if (!Number.isInteger(numClasses) || numClasses < fewest)
      throw new RangeError(
        `GraphClassifier: numClasses must be an integer of at least ${fewest}${config.regression ? ' (the targets)' : ''}, got ${numClasses}`,
      );
    if (!GRAPH_CONVS.includes(conv)) throw new RangeError(`GraphClassifier: conv must be one of ${GRAPH_CONVS.join(', ')}, got '${conv}'`);
    if (!['add', 'mean', 'max', 'attention'].includes(pool))
      throw new RangeError(`GraphClassifier: pool must be add, mean, max or attention, got '${pool}'`);
    const layers = conv === 'none' ? 0 : numLayers;
    if (conv !== 'none') positive(numLayers, 'numLayers');
    if (!(rate >= 0 && rate < 1)) throw new RangeError(`GraphClassifier: dropout must be in [0, 1), got ${rate}`);
    if (conv === 'gine') positive(config.edgeDim ?? 0, "edgeDim (the edge features' width 'gine' reads)");
    this.convs = Array.from({length: layers}, (_, l) => {
      const args = {units: hiddenDim, activation: 'relu' as const, seed: seed * 101 + l};
      const c: GraphConv =
        conv === 'gin'
          ? ginConv({...args, trainEps: true})
          : conv === 'gine'
            ? gineConv({...args, trainEps: true, edgeDim: config.edgeDim!})
            : conv === 'gcn'
              ? gcnConv(args)
              : sageConv({...args, aggregator: 'mean'});
      c.build([null, l === 0 ? inDim : hiddenDim]);
      return c;
    });
    this.norms =
      config.batchNorm === false
        ? []
        : this.convs.map(() =>
            tf.tidy(() => ({
              gamma: tf.variable(tf.ones([hiddenDim])),
              beta: tf.variable(tf.zeros([hiddenDim])),
              mean: tf.variable(tf.zeros([hiddenDim]), false),
              variance: tf.variable(tf.ones([hiddenDim]), false),
            })),
          );
    this.gates =
      pool === 'attention'
        ? [inDim, ...this.convs.map(() => hiddenDim)].map((width, d) =>
            tf.tidy(() => ({w: tf.variable(glorot([width, 1], width, 1, seed * 101 + 70 + d)), b: tf.variable(tf.zeros([1]))})),
          )
        : [];
    this.virtual = config.virtualNode
      ? this.convs.slice(1).map((_, l) =>
          tf.tidy(() => ({
            w: tf.variable(glorot([hiddenDim, hiddenDim], hiddenDim, hiddenDim, seed * 101 + 90 + l)),
            b: tf.variable(tf.zeros([hiddenDim])),
          })),
        )
      : [];
    const joined = inDim + layers * hiddenDim;
    this.head = tf.tidy(() => ({
      w1: tf.variable(glorot([joined, hiddenDim], joined, hiddenDim, seed * 101 + 50)),
      b1: tf.variable(tf.zeros([hiddenDim])),
      w2: tf.variable(glorot([hiddenDim, numClasses], hiddenDim, numClasses, seed * 101 + 51)),
      b2: tf.variable(tf.zeros([numClasses])),
    }));
  }

  /** Every trainable weight: the graph layers', then the MLP's. */
  get trainableVariables(): tf.Variable[] {
    const {w1, b1, w2, b2} = this.head;
    return [
      ...this.convs.flatMap((c) => c.trainableWeights.map((w) => w.read() as tf.Variable)),
      ...this.norms.flatMap((n) => [n.gamma, n.beta]),
      ...this.gates.flatMap((g) => [g.w, g.b]),
      ...this.virtual.flatMap((v) => [v.w, v.b]),
      w1,
      b1,
      w2,
      b2,
    ];
  }

  /**
   * Logits [numGraphs, numClasses] (with `regression`, the predicted values) of a batch of graphs (wm.graph.batchGraphs, a GraphLoader's batch; its
   * features, or a constant column where it has none). With a dropout seed this is a training pass.
   */
  forward(b: GraphBatch, dropoutSeed?: number): tf.Tensor2D {
    const dim = b.features ? b.dim : 1;
    if (dim !== this.config.inDim)
      throw new RangeError(`GraphClassifier.forward: the batch's vertices have ${dim} features, the model takes ${this.config.inDim}`);
    return tf.tidy(() => {
      let h = (b.features ? tf.tensor2d(b.features, [b.numVertices, dim]) : tf.ones([b.numVertices, 1])) as tf.Tensor2D;
      const pool = (rows: tf.Tensor2D, depth: number) =>
        this.config.pool === 'attention'
          ? globalAttentionPool(rows, tf.add(tf.matMul(rows, this.gates[depth].w), this.gates[depth].b) as tf.Tensor2D, b)
          : globalPool(rows, b, this.config.pool);
      const pooled = [pool(h, 0)];
      const edgeAttr = this.config.conv === 'gine' ? this.edgeAttrOf(b) : undefined;
      let virtualRows: tf.Tensor2D | undefined; // one per graph
      const graphOf = this.virtual.length ? tf.tensor1d(b.batch, 'int32') : undefined;
      this.convs.forEach((c, l) => {
        if (l > 0 && this.virtual.length) {
          const {w, b: bias} = this.virtual[l - 1];
          const summed = globalPool(h, b, 'add');
          virtualRows = tf.relu(tf.add(tf.matMul(virtualRows ? tf.add(summed, virtualRows) : summed, w), bias)) as tf.Tensor2D;
          h = tf.add(h, tf.gather(virtualRows, graphOf!)) as tf.Tensor2D;
        }
        h = c.apply(h, {graph: b.edges, edgeAttr}) as tf.Tensor2D;
        if (this.norms[l]) h = this.normalized(h, this.norms[l], dropoutSeed !== undefined);
        pooled.push(pool(h, l + 1));
      });
      const {w1, b1, w2, b2} = this.head;
      let z = tf.relu(tf.add(tf.matMul(pooled.length > 1 ? tf.concat(pooled, 1) : pooled[0], w1), b1)) as tf.Tensor2D;
      if (dropoutSeed !== undefined && this.config.dropout > 0) z = dropout(z, this.config.dropout, dropoutSeed >>> 0) as tf.Tensor2D;
      return tf.add(tf.matMul(z, w2), b2) as tf.Tensor2D;
    });
  }

  private edgeAttrOf(b: GraphBatch): tf.Tensor2D {
    if (!b.edgeAttr || b.edgeDim !== this.config.edgeDim)
      throw new RangeError(
        `GraphClassifier.forward: 'gine' reads edge features ${this.config.edgeDim} wide; the batch's graphs have ${b.edgeAttr ? `${b.edgeDim} wide` : 'none'}`,
      );
    return tf.tensor2d(b.edgeAttr, [b.edgeAttr.length / b.edgeDim, b.edgeDim]);
  }

  // Batch normalisation over the rows: the batch's statistics on a training pass (and the running ones moved
  // toward them), the running ones otherwise.
  private normalized(h: tf.Tensor2D, n: Norm, training: boolean): tf.Tensor2D {
    if (training && h.shape[0] > 1) {
      const running = {mean: n.mean, variance: n.variance, momentum: NORM_MOMENTUM};
      const {y, mean, variance} = batchNormTraining(h, n.gamma as tf.Tensor1D, n.beta as tf.Tensor1D, NORM_EPSILON, running);
      tf.dispose([mean, variance]);
      return y;
    }
    return tf.batchNorm(h, n.mean, n.variance, n.beta, n.gamma, NORM_EPSILON) as tf.Tensor2D;
  }

  dispose(): void {
    tf.dispose([
      ...this.convs.flatMap((c) => c.trainableWeights.map((w) => w.read())),
      ...Object.values(this.head),
      ...this.norms.flatMap((n) => Object.values(n)),
      ...this.gates.flatMap((g) => [g.w, g.b]),
      ...this.virtual.flatMap((v) => [v.w, v.b]),
    ]);
  }
}

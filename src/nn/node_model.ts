// What every node classifier shares (GraphSAGE, GAT, GCN, MLP): its configuration, the whole graph
// as one aggregation block for evaluation, the class of each row of logits, Glorot initialisation.
// Apart from the models so that the modules around them (their inputs, saving) need not import one.
import * as tf from '@tensorflow/tfjs-core';

import {CsrBlock} from '../graph/aggregate';
import type {CsrGraph} from '../graph/csr';
import type {Communicator} from '../memory/communicator';
import type {Embedding, EmbeddingMemory} from './embedding';
import type {SparseOptimizerConfig} from './sparse_optimizer';
import {tfSeed} from '../util/random';

/** What the node classifiers share: their inputs (features, a node-embedding table or both) and layer sizes. */
export interface NodeModelConfig {
  numNodes: number;
  numClasses: number;
  /** Width of the learnable node embeddings; 0 for none (then `features` must be given). */
  embeddingDim: number;
  /** A read-only feature table (wm.nn.featureTable) the first layer reads beside the embeddings; the caller owns it. */
  features?: Embedding;
  hiddenDim: number;
  /** Layers = hidden layers + the output layer (2 for the classic model). */
  numLayers: number;
  dropout: number;
  seed: number;
  /** Learning rate of the embedding table's sparse (lazy) Adam. */
  embeddingLearningRate: number;
  /** The table's sparse optimizer (default: lazy Adam at embeddingLearningRate; its two moments triple the table's memory). */
  embeddingOptimizer?: SparseOptimizerConfig;
  /** Where the table lives (default: the GPU if there is one, else host memory). */
  embeddingMemory?: EmbeddingMemory;
  /** The ranks sharing the table when it is WholeMemory ('continuous' / 'chunked'). */
  communicator?: Communicator;
}

/** The whole graph as one aggregation block (exact mean over every neighbour; evaluation). */
export interface FullGraph {
  numNodes: number;
  block: CsrBlock;
  dispose(): void;
}

/** Each row's highest logit's class, on the host. */
export function predictedClasses(logits: () => tf.Tensor2D): Int32Array {
  const pred = tf.tidy(() => tf.argMax(logits(), 1));
  const out = pred.dataSync() as Int32Array;
  pred.dispose();
  return out;
}

/** Each row's most probable class and its probability (the softmax of `logits`, made and freed inside). */
export function classesAndProbabilities(logits: () => tf.Tensor2D): [Int32Array, Float32Array] {
  const [c, p] = tf.tidy(() => {
    const probs = tf.softmax(logits());
    return [tf.argMax(probs, 1), tf.max(probs, 1)];
  });
  const out: [Int32Array, Float32Array] = [Int32Array.from(c.dataSync()), Float32Array.from(p.dataSync())];
  tf.dispose([c, p]);
  return out;
}

export function fullGraph(graph: CsrGraph): FullGraph {
  const block = CsrBlock.fromGraph(graph);
  return {numNodes: graph.numVertices, block, dispose: () => block.dispose()};
}

/**
 * Uniform in ±1 / sqrt(fanIn): PyTorch's nn.Linear default (kaiming_uniform with a = sqrt(5)) for weights and
 * biases alike, which PyG's SAGEConv keeps.
 */
export function linearUniform(shape: number[], fanIn: number, seed: number): tf.Tensor {
  const limit = 1 / Math.sqrt(Math.max(1, fanIn));
  return tf.randomUniform(shape, -limit, limit, 'float32', tfSeed(seed));
}

/** Glorot-uniform weights of `shape` for a layer from fanIn to fanOut units. */
export function glorot(shape: number[], fanIn: number, fanOut: number, seed: number): tf.Tensor {
  const limit = Math.sqrt(6 / (fanIn + fanOut));
  return tf.randomUniform(shape, -limit, limit, 'float32', tfSeed(seed));
}

/** Each layer's input and output widths over inputs `inputWidth` wide: hidden layers hiddenDim wide, the last numClasses. */
export function layerWidths(c: NodeModelConfig, inputWidth: number): {inDim: number; units: number; last: boolean}[] {
  return Array.from({length: c.numLayers}, (_, l) => {
    const last = l === c.numLayers - 1;
    return {inDim: l === 0 ? inputWidth : c.hiddenDim, units: last ? c.numClasses : c.hiddenDim, last};
  });
}

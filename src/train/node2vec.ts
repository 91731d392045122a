// Unsupervised node embeddings by random walks and skip-gram (DeepWalk with
// p = q = 1, node2vec otherwise): each step walks from a batch of start
// vertices (natively, on the GPU when there is one), takes every pair of
// vertices at most `window` apart as positives and uniform random vertices as
// negatives, and trains a center and a context table with sparse lazy Adam.
// The embeddings are then judged by a logistic regression on a labelled split.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {CsrGraph} from '../graph/csr';
import {DeviceCsr} from '../graph/device_csr';
import {markValid, validRows} from '../backend/index_validation';
import {checkGraph, randomVertices, randomWalks, walkBias, walkPairs, walkTensor} from '../graph/random_walk';
import {randomSplit} from '../graph/split';
import type {Communicator} from '../memory/communicator';
import {Embedding, EmbeddingMemory} from '../nn/embedding';
import {softmaxCrossEntropy} from '../nn/softmax_cross_entropy';
import {adam as sparseAdam} from '../nn/sparse_optimizer';
import {predictedClasses} from '../nn/node_model';
import {rowDots} from '../nn/row_dots';
import {seededRng, shuffle} from '../util/random';
import {accuracy} from './node_classification';
import {adam} from '../optimizers/fused_adam';
import {sumOverRanks} from './rank_totals';

export interface Node2VecOptions {
  dim: number;
  /** Vertices per walk, the start included. */
  walkLength: number;
  /** Walks from every vertex per epoch. */
  walksPerVertex: number;
  /** Positives: vertex pairs at most this far apart in a walk. */
  window: number;
  /** Uniform random negatives per positive. */
  negatives: number;
  p: number;
  q: number;
  /** Walks per step (one from each start vertex of the step). */
  batchSize: number;
  epochs: number;
  learningRate: number;
  memory?: EmbeddingMemory;
  /**
   * Ranks training one pair of tables together: with memory 'continuous' or 'chunked' every rank
   * walks its share of each epoch's starts (step k on rank k mod size) and updates the shared tables
   * in place; the epoch's loss is the mean over all ranks' steps.
   */
  communicator?: Communicator;
  seed: number;
}

export const DEFAULT_NODE2VEC: Node2VecOptions = {
  dim: 64,
  walkLength: 20,
  walksPerVertex: 10,
  window: 5,
  negatives: 1,
  p: 1,
  q: 1,
  batchSize: 1024,
  epochs: 3,
  learningRate: 0.01,
  seed: 0,
};

export interface Node2VecEpoch {
  epoch: number;
  loss: number;
  seconds: number;
  pairsPerSecond: number;
}

export interface Node2VecResult {
  /** The center table (the embeddings); the caller frees it. */
  embedding: Embedding;
  epochs: Node2VecEpoch[];
}

/** Walks from host start vertices as an int32 tensor [n, length], on the GPU when there is one. */
class Walker {
  private readonly device?: DeviceCsr;

  constructor(
    private readonly graph: CsrGraph,
    private readonly o: Node2VecOptions,
  ) {
    checkGraph(graph, o, 'node2vec');
    const b = tf.backend();
    if (b instanceof WholeMemoryBackend && b.gpu) this.device = new DeviceCsr(graph);
  }

  walk(starts: Int32Array, seed: number): tf.Tensor2D {
    const opts = {p: this.o.p, q: this.o.q, seed};
    if (!this.device)
      return walkTensor(randomWalks(this.graph, starts, this.o.walkLength, opts), this.o.walkLength, this.graph.numVertices);
    const t = tf.tensor1d(starts, 'int32');
    try {
      return this.device.randomWalks(t, this.o.walkLength, opts);
    } finally {
      t.dispose();
    }
  }

  dispose(): void {
    this.device?.dispose();
  }
}

/** The positives' contexts, then the negatives ([negatives, pairs] row-major): one lookup for both. */
export function contextIds(context: tf.Tensor1D, negatives: tf.Tensor1D): tf.Tensor1D {
  const ids = tf.concat([context, negatives]) as tf.Tensor1D;
  const rows = validRows(context);
  if (rows !== undefined && validRows(negatives) === rows) markValid(ids, rows);
  return ids;
}

/**
 * Skip-gram with negative sampling, per positive pair: -log sigmoid(c . x) -
 * sum over its negatives of log sigmoid(-c . n). Each table is looked up once
 * (contexts: contextIds' positives then negatives), the centers broadcast
 * over them, so each table's step gets one block of row gradients.
 */
export function skipGramLoss(
  center: Embedding,
  context: Embedding,
  centers: tf.Tensor1D,
  contexts: tf.Tensor1D,
  negatives: number,
): tf.Scalar {
  const pairs = centers.size;
  const rows = center.lookup(centers) as tf.Tensor2D;
  const ctx = tf.reshape(context.lookup(contexts), [1 + negatives, pairs, center.dim]) as tf.Tensor3D;
  const scores = rowDots(rows, ctx);
  // softplus(-score) for the positives (the first block), softplus(score) for the negatives.
  const sign = tf.tensor2d(
    Float32Array.from({length: 1 + negatives}, (_, i) => (i === 0 ? -1 : 1)),
    [1 + negatives, 1],
  );
  return tf.div(tf.sum(tf.softplus(tf.mul(scores, sign))), pairs) as tf.Scalar;
}

/** onEpoch gets each epoch's figures and the center table as it stands (to evaluate it; awaited). */
export async function trainNode2Vec(
  graph: CsrGraph,
  options: Partial<Node2VecOptions>,
  onEpoch: (m: Node2VecEpoch, embedding: Embedding) => void | Promise<void> = () => {},
): Promise<Node2VecResult> {
  const o = {...DEFAULT_NODE2VEC, ...options};
  for (const k of ['dim', 'walkLength', 'walksPerVertex', 'window', 'negatives', 'batchSize', 'epochs'] as const) {
    if (!Number.isInteger(o[k]) || o[k] < 1) throw new RangeError(`node2vec: ${k} must be a positive integer, got ${o[k]}`);
  }
  if (o.walkLength < 2) throw new RangeError(`node2vec: walkLength must be at least 2 to make pairs, got ${o.walkLength}`);
  walkBias('node2vec', o.walkLength, o); // p, q and seed checked before anything is made
  const n = graph.numVertices;
  const comm = o.communicator,
    rank = comm?.rank ?? 0,
    ranks = comm?.size ?? 1;
  if (ranks > 1 && o.memory !== 'continuous' && o.memory !== 'chunked') {
    throw new RangeError(
      `node2vec: ${ranks} ranks share their tables in WholeMemory: memory must be 'continuous' or 'chunked', got ${o.memory}`,
    );
  }
  const walker = new Walker(graph, o);
  const rng = seededRng(o.seed * 7919 + 3);
  const table = (seed: number, scale: number) =>
    new Embedding({
      rows: n,
      dim: o.dim,
      memory: o.memory,
      communicator: comm,
      optimizer: sparseAdam({lr: o.learningRate}),
      init: {type: 'normal', scale, seed},
    });
  // word2vec's two tables: contexts start near zero, so the first steps move the centers apart.
  const center = table(o.seed + 1, 1 / Math.sqrt(o.dim)),
    context = table(o.seed + 2, 1e-3);
  const opt = tf.train.sgd(0); // carries the tables' gradients; there are no dense parameters
  const epochs: Node2VecEpoch[] = [];
  let walkSeed = o.seed * 1000003;
  try {
    for (let epoch = 1; epoch <= o.epochs; ++epoch) {
      const started = Date.now();
      const starts = shuffle(
        Int32Array.from({length: n * o.walksPerVertex}, (_, i) => i % n),
        rng,
      );
      let lossSum: tf.Tensor = tf.scalar(0);
      let pairs = 0,
        steps = 0;
      for (let b = 0, step = 0; b < starts.length; b += o.batchSize, ++step, ++walkSeed) {
        if (step % ranks !== rank) continue; // every rank shuffled the same starts; step k is rank k mod size's
        const walks = walker.walk(starts.subarray(b, Math.min(starts.length, b + o.batchSize)), walkSeed);
        const {center: c, context: x} = walkPairs(walks, o.window);
        walks.dispose();
        const k = c.size * o.negatives;
        const negIds = randomVertices(k, n, {seed: walkSeed + 1});
        const contexts = contextIds(x, negIds);
        const loss = opt.minimize(() => skipGramLoss(center, context, c, contexts, o.negatives), true, [center.anchor, context.anchor])!;
        center.step();
        context.step();
        const next = tf.add(lossSum, loss);
        tf.dispose([lossSum, loss, c, x, negIds, contexts]);
        lossSum = next;
        pairs += c.size;
        ++steps;
      }
      // Every rank's steps are in the tables once all are here; the loss is the mean over all steps.
      const all = sumOverRanks(comm, {loss: (await lossSum.data())[0], steps, pairs}, 'node2vec epoch');
      lossSum.dispose();
      const seconds = (Date.now() - started) / 1000;
      const m = {epoch, loss: all.loss / Math.max(all.steps, 1), seconds, pairsPerSecond: all.pairs / seconds};
      epochs.push(m);
      await onEpoch(m, center);
      if (comm && ranks > 1) comm.barrier(); // no rank writes while another evaluates the epoch
    }
  } catch (e) {
    center.dispose();
    throw e;
  } finally {
    context.dispose();
    walker.dispose();
    opt.dispose();
  }
  return {embedding: center, epochs};
}

export interface ProbeResult {
  trainAcc: number;
  testAcc: number;
}

/**
 * Node classification from frozen embeddings: a multinomial logistic
 * regression (Adam, L2) on a random split of the labelled vertices.
 */
export async function logisticProbe(
  emb: Embedding,
  labels: Int32Array,
  numClasses: number,
  opts: {trainFraction?: number; seed?: number; steps?: number} = {},
): Promise<ProbeResult> {
  // Only labelled vertices (label >= 0) are split: the others have no class to predict.
  const labelled = Int32Array.from(labels.keys()).filter((v) => labels[v] >= 0);
  if (labelled.length < 4) throw new Error(`logisticProbe: ${labelled.length} labelled vertices; the probe needs at least 4`);
  const picked = randomSplit(labelled.length, opts.trainFraction ?? 0.5, 0, seededRng((opts.seed ?? 0) * 31 + 7));
  const split = {train: picked.train.map((i) => labelled[i]), test: picked.test.map((i) => labelled[i])};
  const all = Int32Array.from({length: labels.length}, (_, i) => i);
  const x = tf.tidy(() => {
    const e = emb.read(all);
    // Standardised features: the regression's step size then suits any embedding scale.
    const {mean, variance} = tf.moments(e, 0);
    return tf.div(tf.sub(e, mean), tf.sqrt(tf.add(variance, 1e-6)));
  });
  const [w, bias] = tf.tidy(() => [tf.variable(tf.zeros([emb.dim, numClasses])), tf.variable(tf.zeros([numClasses]))]);
  const trainIds = tf.tensor1d(split.train, 'int32'),
    y = tf.tensor1d(
      Int32Array.from(split.train, (v) => labels[v]),
      'int32',
    );
  const xTrain = tf.gather(x, trainIds);
  const opt = adam(0.05);
  try {
    for (let s = 0; s < (opts.steps ?? 200); ++s) {
      opt.minimize(
        () => tf.add(softmaxCrossEntropy(y, tf.add(tf.matMul(xTrain, w), bias)), tf.mul(1e-3, tf.sum(tf.square(w)))) as tf.Scalar,
        false,
        [w, bias],
      );
    }
    const predicted = predictedClasses(() => tf.add(tf.matMul(x, w), bias) as tf.Tensor2D);
    return {trainAcc: accuracy(predicted, labels, split.train), testAcc: accuracy(predicted, labels, split.test)};
  } finally {
    tf.dispose([x, w, bias, trainIds, y, xTrain]);
    opt.dispose();
  }
}

// Training knowledge-graph embeddings: shuffled batches of training triples, each batch cut into chunks
// that share one draw of negative entities (the batch corrupts tails on even steps, heads on odd ones, as
// DGL-KE alternates them), the model's loss over the positives' and the negatives' scores plus an optional
// L2 or N3 regularizer of the positives' rows, and one sparse step of each table. Several ranks train one
// model together with the tables in WholeMemory: each step's batch is shared out among the ranks and their
// gradients are applied in one collective, summed at each row's owner (synchronous data parallelism; continuous
// and chunked tables are read directly, distributed ones through their owners).
import * as tf from '@tensorflow/tfjs-core';

import {NegativeDistribution, NegativeSampler} from '../graph/kge_negatives';
import {markValid} from '../backend/index_validation';
import {concatArrays} from '../util/arrays';
import {seededPermutation} from '../graph/permutation';
import {checkKnowledgeGraph, KnowledgeGraph, tripleCount} from '../graph/triples';
import type {Communicator} from '../memory/communicator';
import {EmbeddingDType, EmbeddingMemory} from '../nn/embedding';
import {kgeModel} from '../nn/kge/index';
import {chunkLoss, chunkLossIsNative, stepRowsGradients} from '../nn/kge/chunk_loss';
import {checkKgeLoss, KgeLossName} from '../nn/kge/kge_loss';
import {KgeModel, KgeModelName, KgeSide} from '../nn/kge/kge_model';
import {adagrad, adam, rowAdagrad, sgd} from '../nn/sparse_optimizer';
import {hasCheckpoint, loadCheckpoint, saveCheckpoint} from './checkpoint';
import {evaluateKge, RankingMetrics} from './kge_ranking';
import {sumOverRanks} from './rank_totals';

export interface KgeTrainOptions {
  model: KgeModelName;
  dim: number;
  /** gamma of the distance models (see KgeOptions.margin); default the model's. */
  margin?: number;
  pNorm?: 1 | 2;
  /** Positives per step. */
  batchSize: number;
  /** Negatives per chunk, shared by its positives. */
  negatives: number;
  /** Positives per chunk (at most batchSize; the batch is a whole number of chunks). */
  chunkSize: number;
  negativeDistribution: NegativeDistribution;
  loss: KgeLossName;
  adversarialTemperature: number;
  lossMargin: number;
  regularization: 'none' | 'l2' | 'n3';
  regularizationWeight: number;
  /** 'rowAdagrad': one state per row (a float per entity instead of dim): PyTorch-BigGraph's and DGL-KE's choice for tables of millions of entities. */
  optimizer: 'adam' | 'adagrad' | 'rowAdagrad' | 'sgd';
  learningRate: number;
  epochs: number;
  /** Evaluate on the validation split every this many epochs (0: never); filtered, a sample of evalTriples. */
  evalEvery: number;
  evalTriples: number;
  memory?: EmbeddingMemory;
  dtype?: EmbeddingDType;
  communicator?: Communicator;
  /**
   * Saves both tables (rows and optimizer state) into `dir` every `every` epochs (saveCheckpoint: each rank
   * its shard, committed as one); with `resume`, training continues after the newest checkpoint there.
   */
  checkpoint?: {dir: string; every: number; resume?: boolean};
  /** With several ranks: how long the others wait at an epoch's end while one evaluates or reports (default 10 minutes). */
  leadWorkMs?: number;
  seed: number;
}

export const DEFAULT_KGE: KgeTrainOptions = {
  model: 'rotatE',
  dim: 200,
  batchSize: 1024,
  negatives: 256,
  chunkSize: 256,
  negativeDistribution: 'uniform',
  loss: 'logistic',
  adversarialTemperature: 1,
  lossMargin: 1,
  regularization: 'none',
  regularizationWeight: 0,
  optimizer: 'adagrad',
  learningRate: 0.05,
  epochs: 50,
  evalEvery: 0,
  evalTriples: 1000,
  seed: 0,
};

export interface KgeEpoch {
  epoch: number;
  loss: number;
  seconds: number;
  triplesPerSecond: number;
  /**
   * Gradient elements this rank's sparse steps skipped in the epoch because they were NaN or infinite (scores
   * that overflowed, a diverging learning rate): the rows they belong to keep their values. 0 in a healthy run.
   */
  skippedGradients: number;
  valid?: RankingMetrics;
}

export interface KgeTrainResult {
  /** The trained model; the caller disposes it. */
  model: KgeModel;
  epochs: KgeEpoch[];
}

function checkOptions(o: KgeTrainOptions): void {
  const what = 'trainKge';
  for (const k of ['dim', 'batchSize', 'negatives', 'chunkSize', 'epochs', 'evalTriples'] as const) {
    if (!Number.isInteger(o[k]) || o[k] < 1) throw new RangeError(`${what}: ${k} must be a positive integer, got ${o[k]}`);
  }
  if (!Number.isInteger(o.evalEvery) || o.evalEvery < 0)
    throw new RangeError(`${what}: evalEvery must be a non-negative integer, got ${o.evalEvery}`);
  if (!['none', 'l2', 'n3'].includes(o.regularization))
    throw new RangeError(`${what}: regularization must be 'none', 'l2' or 'n3', got ${o.regularization}`);
  if (!(Number.isFinite(o.regularizationWeight) && o.regularizationWeight >= 0))
    throw new RangeError(`${what}: regularizationWeight must be a finite number >= 0, got ${o.regularizationWeight}`);
  if (o.checkpoint !== undefined) {
    const c = o.checkpoint;
    if (typeof c.dir !== 'string' || c.dir === '')
      throw new RangeError(`${what}: checkpoint.dir must be a folder, got ${JSON.stringify(c.dir)}`);
    if (!Number.isInteger(c.every) || c.every < 1)
      throw new RangeError(`${what}: checkpoint.every must be a positive integer, got ${c.every}`);
  }
  if (o.leadWorkMs !== undefined && !(Number.isFinite(o.leadWorkMs) && o.leadWorkMs > 0))
    throw new RangeError(`${what}: leadWorkMs must be a finite number > 0, got ${o.leadWorkMs}`);
  if (!['adam', 'adagrad', 'rowAdagrad', 'sgd'].includes(o.optimizer))
    throw new RangeError(`${what}: optimizer must be 'adam', 'adagrad', 'rowAdagrad' or 'sgd', got ${o.optimizer}`);
  if (!(Number.isFinite(o.learningRate) && o.learningRate > 0))
    throw new RangeError(`${what}: learningRate must be a finite number > 0, got ${o.learningRate}`);
  checkKgeLoss(o, what);
}

/** The sizes of one epoch's steps: positives per step (a whole number of chunks), chunk size, steps. */
export function kgeSteps(
  triples: number,
  o: Pick<KgeTrainOptions, 'batchSize' | 'chunkSize'>,
): {batch: number; chunk: number; steps: number} {
  const chunk = Math.min(o.chunkSize, o.batchSize, triples);
  const batch = Math.floor(Math.min(o.batchSize, triples) / chunk) * chunk;
  return {batch, chunk, steps: Math.floor(triples / batch)};
}

/**
 * Trains a model on kg.train. An epoch is floor(train / batch) steps over a new shuffle (the few
 * triples past the last whole batch wait for the next shuffle). onEpoch gets each epoch's figures.
 */
export async function trainKge(
  kg: KnowledgeGraph,
  options: Partial<KgeTrainOptions>,
  onEpoch: (m: KgeEpoch, model: KgeModel) => void | Promise<void> = () => {},
): Promise<KgeTrainResult> {
  const o = {...DEFAULT_KGE, ...options};
  checkOptions(o);
  checkKnowledgeGraph(kg, 'trainKge');
  const comm = o.communicator,
    rank = comm?.rank ?? 0,
    ranks = comm?.size ?? 1;
  if (ranks > 1 && !['continuous', 'chunked', 'distributed', 'hierarchical'].includes(o.memory ?? '')) {
    throw new RangeError(
      `trainKge: ${ranks} ranks share their tables in WholeMemory: memory must be 'continuous', 'chunked', 'distributed' or 'hierarchical', got ${o.memory}`,
    );
  }
  // Every rank's step is applied in one collective (each row's owner sums every rank's gradients for it), so the
  // ranks step together: each step one batch of batchSize triples, a share of it (whole chunks) per rank, as many
  // updates an epoch as one process makes.
  const n = tripleCount(kg.train);
  const sizes = kgeSteps(n, o);
  const chunk = sizes.chunk;
  const batch = Math.floor(sizes.batch / (ranks * chunk)) * chunk; // each rank's share of a step (whole chunks)
  if (batch === 0)
    throw new RangeError(
      `trainKge: ${ranks} ranks step together with a share of each batch of whole chunks: batchSize (${o.batchSize}) must be at least ranks x chunkSize (${ranks} x ${chunk})`,
    );
  const steps = Math.floor(n / (batch * ranks)); // steps of every rank together
  const optimizer = {adam, adagrad, rowAdagrad, sgd}[o.optimizer]({lr: o.learningRate});
  const model = kgeModel(o.model, {
    numEntities: kg.numEntities,
    numRelations: kg.numRelations,
    dim: o.dim,
    margin: o.margin,
    pNorm: o.pNorm,
    memory: o.memory,
    dtype: o.dtype,
    communicator: comm,
    optimizer,
    seed: o.seed,
  });
  const negatives = new NegativeSampler(kg.numEntities, o.negativeDistribution, kg.train);
  // The triples as rows of heads, tails and relations: a step's are one gather of its columns, whose first two rows
  // are the step's entity ids [heads; tails] as they are (a view on the GPU) and whose last its relations.
  const triples = tf.tensor2d(
    concatArrays([kg.train.heads, kg.train.tails, kg.train.relations], (m) => new Int32Array(m)),
    [3, n],
    'int32',
  );
  const epochs: KgeEpoch[] = [];
  const tables = {entity: model.entity, relation: model.relation};
  try {
    let first = 1;
    if (o.checkpoint?.resume && hasCheckpoint(o.checkpoint.dir)) {
      const {extra} = await loadCheckpoint(o.checkpoint.dir, {embeddings: tables, communicator: comm});
      const saved = extra as {epoch?: unknown; model?: unknown};
      if (saved?.model !== o.model)
        throw new RangeError(`trainKge: the checkpoint in ${o.checkpoint.dir} holds a ${String(saved?.model)} model, not ${o.model}`);
      if (!Number.isInteger(saved.epoch)) throw new RangeError(`trainKge: the checkpoint in ${o.checkpoint.dir} records no epoch`);
      first = (saved.epoch as number) + 1;
    }
    const skipped = () => model.entity.skippedGradients() + model.relation.skippedGradients();
    let skippedBefore = skipped();
    for (let epoch = first; epoch <= o.epochs; ++epoch) {
      const started = Date.now();
      // Each epoch's shuffle and negatives from the seed and the epoch alone: a resumed run draws what a whole one does.
      const order = tf.tensor1d(seededPermutation(n, o.seed * 7919 + 11 + epoch * 104729), 'int32');
      markValid(order, n); // a permutation of 0 .. n - 1
      const draw = o.seed * 1000003 + (epoch - 1) * steps * ranks; // a draw per rank and step
      let lossSum: tf.Tensor = tf.scalar(0);
      const losses: tf.Tensor[] = [];
      let done = 0;
      // Step s: rank r trains on its share of the step's slice of the order, all ranks on the same side, each with a
      // draw of negatives of its own, from the tables as the last step left them; the step's updates applied together.
      // Each share's mean counts 1/ranks of the step's: the shares' gradients sum to one process's.
      const weight = 1 / ranks;
      try {
        for (let s = 0; s < steps; ++s) {
          const loss = tf.tidy(() => {
            const at = tf.slice(order, (s * ranks + rank) * batch, batch);
            const side: KgeSide = s % 2 === 0 ? 'tail' : 'head';
            const [ht, rel] = tf.split(tf.gather(triples, at, 1), [2, 1]); // one kernel: the three columns
            const ends = tf.reshape(ht, [2 * batch]) as tf.Tensor1D,
              r = tf.reshape(rel, [batch]) as tf.Tensor1D;
            // checkKnowledgeGraph checked the ids: a step's need no check (on a GPU, a wait) of their own.
            markValid(ends, kg.numEntities);
            markValid(r, kg.numRelations);
            const neg = negatives.draw((batch / chunk) * o.negatives, draw + s * ranks + rank);
            const scored: KgeStep = {ends, relation: r, negatives: neg, side, chunk};
            const written = stepGradients(model, o, scored, weight);
            if (written) return written;
            // The tables' row gradients reach them through their anchors (kept for step()); the anchors' own are zeros.
            return tf.variableGrads(() => tf.mul(stepLoss(model, o, scored), weight), [model.entity.anchor, model.relation.anchor]).value;
          });
          // The steps' losses summed 64 at a time (one kernel for 64 steps, not one a step).
          losses.push(loss);
          if (losses.length === 64 || s === steps - 1) {
            const next = tf.addN([lossSum, ...losses]);
            tf.dispose([lossSum, ...losses.splice(0)]);
            lossSum = next;
          }
          done += batch;
          model.entity.stepTogether();
          model.relation.stepTogether();
        }
      } catch (e) {
        tf.dispose([lossSum, ...losses]);
        throw e;
      } finally {
        order.dispose();
      }
      const all = sumOverRanks(
        comm,
        // A step is the ranks' shares summed: counted once (by rank 0), its loss the shares' sum.
        {loss: (await lossSum.data())[0], steps: rank === 0 ? steps : 0, triples: done},
        'trainKge epoch',
      );
      lossSum.dispose();
      const seconds = (Date.now() - started) / 1000;
      const skippedNow = skipped();
      const m: KgeEpoch = {
        epoch,
        loss: all.loss / Math.max(all.steps, 1),
        seconds,
        triplesPerSecond: all.triples / seconds,
        skippedGradients: skippedNow - skippedBefore,
      };
      skippedBefore = skippedNow;
      if (o.evalEvery > 0 && epoch % o.evalEvery === 0 && tripleCount(kg.valid) > 0) {
        m.valid = evaluateKge(model, kg.valid, {filter: [kg.train, kg.valid, kg.test], maxTriples: o.evalTriples, seed: o.seed});
      }
      epochs.push(m);
      await onEpoch(m, model);
      if (comm && ranks > 1) comm.barrier(Math.max(o.leadWorkMs ?? 600_000, comm.timeoutMs)); // no rank writes while another evaluates the epoch
      if (o.checkpoint && (epoch % o.checkpoint.every === 0 || epoch === o.epochs))
        await saveCheckpoint(o.checkpoint.dir, {step: epoch, embeddings: tables, extra: {epoch, model: o.model}, communicator: comm});
    }
  } catch (e) {
    model.dispose();
    throw e;
  } finally {
    triples.dispose();
    negatives.dispose();
  }
  return {model, epochs};
}

/**
 * What a training step scores: its positives' entity ids (heads, then as many tails), their relations' ids, its
 * negatives, the side they fill (the other side's rows are composed with the relations into queries), its chunk size.
 */
export interface KgeStep {
  ends: tf.Tensor1D;
  relation: tf.Tensor1D;
  negatives: tf.Tensor1D;
  side: KgeSide;
  chunk: number;
}

type KgeStepOptions = Pick<
  KgeTrainOptions,
  'loss' | 'adversarialTemperature' | 'lossMargin' | 'regularization' | 'regularizationWeight' | 'negatives'
>;

/**
 * One step's loss as stepLoss computes it, times `weight`, its row gradients written out and kept for the tables'
 * step() (no tape: a step of few small ops is mostly the tape's bookkeeping otherwise). s.relation goes to the relation
 * table with its gradients, as it is: the caller leaves it alone until the tables step. Undefined where the native
 * loss does not run (another backend) or with a regularizer: stepLoss then goes through the tape.
 */
export function stepGradients(model: KgeModel, o: KgeStepOptions, s: KgeStep, weight: number): tf.Scalar | undefined {
  const {ends, relation, negatives, side, chunk} = s;
  if ((o.regularization !== 'none' && o.regularizationWeight > 0) || !chunkLossIsNative(relation.size)) return undefined;
  const ids = tf.concat([ends, negatives]);
  const rows = model.entity.read(ids) as tf.Tensor2D;
  const r = model.relation.read(relation) as tf.Tensor2D;
  // The weight goes into the native op's coefficients: every gradient is linear in them.
  const made = stepRowsGradients(model, {rows, relation: r, side, chunk}, o, weight)!;
  // Handed over: ids and the gradients are made here; s.relation the caller leaves alone until the tables step.
  model.entity.handOverGradients(ids, made.dRows);
  model.relation.handOverGradients(relation, made.dRelation);
  return made.loss;
}

/**
 * One step's loss: the queries of (fixed, relation) scored against their own candidates (the
 * positives) and against their chunk's negatives (chunkLoss: one native op with its gradients). All
 * entity rows come from one lookup, so the entity table's step gets one block of row gradients.
 */
export function stepLoss(model: KgeModel, o: KgeStepOptions, s: KgeStep): tf.Scalar {
  const {ends, relation, negatives, side, chunk} = s;
  const b = relation.size,
    g = b / chunk,
    k = o.negatives;
  const rows = model.entity.lookup(tf.concat([ends, negatives])) as tf.Tensor2D;
  const [heads, tails, negRows] = tf.split(rows, [b, b, g * k], 0) as tf.Tensor2D[];
  const [f, c] = side === 'tail' ? [heads, tails] : [tails, heads];
  const r = model.relation.lookup(relation) as tf.Tensor2D;
  let loss = chunkLoss(model, model.query(f, r, side), c, negRows, chunk, o);
  if (o.regularization !== 'none' && o.regularizationWeight > 0) {
    const reg = tf.add(
      tf.add(model.regularizer(f, o.regularization), model.regularizer(c, o.regularization)),
      model.regularizer(r, o.regularization),
    );
    loss = tf.add(loss, tf.mul(o.regularizationWeight / b, reg));
  }
  return loss;
}

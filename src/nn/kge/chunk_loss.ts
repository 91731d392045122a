// A training step's scores, loss and gradients for knowledge-graph embeddings as one native op
// (`kgeChunkLoss`, native/src/embedding/kge_chunk_loss.*): the queries scored against their own
// candidates and against their chunk's negatives, the loss, and the gradients with respect to the
// queries, the own candidates and the negatives, without the [batch, negatives, width] differences the
// tfjs ops would hold. Differentiable through tfjs (the gradients are made with the loss and handed
// back); other backends get the same function composed of tfjs ops. A training step without the tape goes
// further in one op (`kgeStep`): from the rows it read, the queries composed, scored and carried back.
import * as tf from '@tensorflow/tfjs-core';

import {nativeBackend, WholeMemoryBackend} from '../../backend/backend_wholememory';
import {embeddingNative} from '../../native/domains';
import {kgeLoss, KgeLossOptions} from './kge_loss';
import {KgeModel, KgeSide, rotationScale, rowWidths} from './kge_model';

/** The native op's scorer code of a model: 0 dot, 1 L1, 2 L2, 3 sum of complex moduli. */
export function scorerOf(model: KgeModel): number {
  switch (model.name) {
    case 'distMult':
    case 'complEx':
      return 0;
    case 'transE':
      return model.config.pNorm === 1 ? 1 : 2;
    case 'rotatE':
      return 3;
  }
}

/**
 * The loss of queries q [b, w] against their own candidates own [b, w] (the positives) and against the
 * negatives neg [b / chunk * k, w] of their chunk (chunk positives share k negatives).
 */
export function chunkLoss(
  model: KgeModel,
  q: tf.Tensor2D,
  own: tf.Tensor2D,
  neg: tf.Tensor2D,
  chunk: number,
  o: KgeLossOptions,
): tf.Scalar {
  const k = checkChunk(q, own, neg, chunk);
  const be = nativeFor(q.shape[0]);
  if (!be) return composite(model, q, own, neg, chunk, k, o);
  const [b, w] = q.shape;
  const args = nativeArgs(model, b, w, chunk, k, o, 1);
  // One native op: the loss and its gradients with respect to q, own and neg, saved for the backward pass.
  const f = tf.customGrad(((x: tf.Tensor2D, y: tf.Tensor2D, z: tf.Tensor2D, save: tf.GradSaveFunc) => {
    const [loss, ...grads] = be.nativeOutputs([x, y, z], [[b], [b, w], [b, w], z.shape], ([pq, po, pn], [l, g, go, gn]) =>
      embeddingNative().kgeChunkLoss(...args, pq, po, pn, l, g, go, gn),
    );
    save(grads);
    return {value: summed(loss), gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => saved.map((g) => tf.mul(g, dy))};
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return f(q, own, neg) as tf.Scalar;
}

/** How a model composes its queries, as kgeStep takes it: [0 translate, 1 diagonal, 2 complex product, 3 rotate; the phase scale]. */
function composerOf(model: KgeModel): [number, number] {
  switch (model.name) {
    case 'transE':
      return [0, 0];
    case 'distMult':
      return [1, 0];
    case 'complEx':
      return [2, 0];
    case 'rotatE':
      return [3, rotationScale(model.config)];
  }
}

/** A training step's entity rows, as one gather reads them, and its relations' rows. */
export interface KgeStepRows {
  /** [heads; tails; negatives]: positives heads, as many tails, then every chunk's negatives, [2 b + b / chunk x k, entity width]. */
  rows: tf.Tensor2D;
  /** The positives' relations' rows, [b, relation width]. */
  relation: tf.Tensor2D;
  /** The side the candidates fill: the other side's rows are composed with the relations into queries. */
  side: KgeSide;
  chunk: number;
}

/**
 * A training step's loss (chunkLoss of the model's queries) times `weight`, with the gradients of every entity row
 * it read (laid out as s.rows) and of its relations' rows, from one native op (`kgeStep`, native/src/embedding/
 * kge_step.*): the queries composed, scored and carried back without the tape. Undefined where the op is not
 * native (another backend, or no positives).
 */
export function stepRowsGradients(
  model: KgeModel,
  s: KgeStepRows,
  o: KgeLossOptions,
  weight = 1,
): {loss: tf.Scalar; dRows: tf.Tensor2D; dRelation: tf.Tensor2D} | undefined {
  const {rows, relation, side, chunk} = s;
  const [b, rw] = relation.shape;
  const [ew, wantRw] = rowWidths(model.name, model.config.dim);
  if (rows.rank !== 2 || rows.shape[1] !== ew || relation.rank !== 2 || rw !== wantRw)
    throw new RangeError(
      `kgeStep: rows must be [n, ${ew}] and relation [b, ${wantRw}] (${model.name}'s widths), got [${rows.shape}] and [${relation.shape}]`,
    );
  if (!Number.isInteger(chunk) || chunk < 1 || b % chunk !== 0)
    throw new RangeError(`kgeStep: chunk must be a positive divisor of ${b}, got ${chunk}`);
  const n = rows.shape[0] - 2 * b;
  const k = b > 0 ? n / (b / chunk) : 0;
  if (n < 0 || !Number.isInteger(k) || (b > 0 && k < 1))
    throw new RangeError(
      `kgeStep: rows must hold ${b} heads, ${b} tails and k >= 1 negatives for each of ${b / chunk} chunks, got ${rows.shape[0]} rows`,
    );
  const be = nativeFor(b);
  if (!be) return undefined;
  if (!Number.isFinite(weight)) throw new RangeError(`kgeStep: weight must be finite, got ${weight}`);
  const args = nativeArgs(model, b, ew, chunk, k, o, weight);
  const [compose, scale] = composerOf(model);
  const head = side === 'head';
  const [loss, dRows, dRelation] = be.nativeOutputs([rows, relation], [[b], rows.shape, [b, rw]], ([x, y], [l, dr, drel]) =>
    embeddingNative().kgeStep(...args, compose, head, scale, x, y, l, dr, drel),
  );
  return {loss: summed(loss), dRows: dRows as tf.Tensor2D, dRelation: dRelation as tf.Tensor2D};
}

// The shapes chunkLoss takes, checked; the negatives per chunk.
function checkChunk(q: tf.Tensor2D, own: tf.Tensor2D, neg: tf.Tensor2D, chunk: number): number {
  const [b, w] = q.shape;
  if (own.shape[0] !== b || own.shape[1] !== w) throw new RangeError(`chunkLoss: own must be [${b}, ${w}] like q, got [${own.shape}]`);
  if (!Number.isInteger(chunk) || chunk < 1 || b % chunk !== 0)
    throw new RangeError(`chunkLoss: chunk must be a positive divisor of ${b}, got ${chunk}`);
  const groups = b / chunk;
  const k = groups > 0 ? neg.shape[0] / groups : 0;
  if (neg.shape[1] !== w || !Number.isInteger(k) || (groups > 0 && k < 1))
    throw new RangeError(`chunkLoss: neg must be [${groups} x k, ${w}] (k negatives per chunk), got [${neg.shape}]`);
  return k;
}

/** Whether the loss of `positives` queries runs as the native op here (our backend on a GPU or its host kernels). */
export function chunkLossIsNative(positives: number): boolean {
  return nativeFor(positives) !== undefined;
}

function nativeFor(positives: number): WholeMemoryBackend | undefined {
  return positives > 0 ? nativeBackend() : undefined;
}

function nativeArgs(model: KgeModel, b: number, w: number, chunk: number, k: number, o: KgeLossOptions, weight: number): NativeArgs {
  const lossKind = o.loss === 'logistic' ? 0 : 1;
  return [scorerOf(model), lossKind, b, chunk, k, w, model.config.margin, o.adversarialTemperature, o.lossMargin, weight];
}

// The op's arguments before its arrays (kgeChunkLoss in native/ops.ts).
type NativeArgs = readonly [number, number, number, number, number, number, number, number, number, number];

// The per-positive losses the native ops write, summed (the loss), the parts freed.
function summed(loss: tf.Tensor): tf.Scalar {
  const sum = tf.sum(loss) as tf.Scalar;
  loss.dispose();
  return sum;
}

/** The same loss from tfjs ops: the model's pair and group scores, then kgeLoss. */
export function composite(
  model: KgeModel,
  q: tf.Tensor2D,
  own: tf.Tensor2D,
  neg: tf.Tensor2D,
  chunk: number,
  k: number,
  o: KgeLossOptions,
): tf.Scalar {
  const [b, w] = q.shape,
    groups = b / chunk;
  const pos = model.pairScore(q, own);
  const scores = tf.reshape(model.groupScores(tf.reshape(q, [groups, chunk, w]), tf.reshape(neg, [groups, k, w])), [b, k]) as tf.Tensor2D;
  return kgeLoss(pos, scores, o);
}

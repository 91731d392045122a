// What every knowledge-graph embedding model shares: an entity table and a relation table (embedding
// tables in any memory, any storage type, with a sparse optimizer), and a score written as a query and
// its candidates. A triple (h, r, t) is scored by composing the fixed side with the relation into a
// query — (h, r) when tails are the candidates, (t, r) when heads are — and comparing the query with
// the candidate's row; higher is more plausible. Written this way, one model scores a batch of
// positives, each against its own candidate (`pairScore`), and chunks of positives against a shared
// set of negatives or every entity (`groupScores`) with the same two functions, whichever side is
// corrupted.
import * as tf from '@tensorflow/tfjs-core';

import type {Communicator} from '../../memory/communicator';
import {Embedding, EmbeddingDType, EmbeddingMemory} from '../embedding';
import {adam, SparseOptimizerConfig} from '../sparse_optimizer';
import {checkSeed} from '../../util/random';
import {complexModuli} from './complex_rows';

export type KgeModelName = 'transE' | 'distMult' | 'complEx' | 'rotatE';
export const KGE_MODELS: readonly KgeModelName[] = ['transE', 'distMult', 'complEx', 'rotatE'];

/** Which side the candidates fill: 'tail' scores (h, r, ?), 'head' scores (?, r, t). */
export type KgeSide = 'head' | 'tail';

export interface KgeOptions {
  numEntities: number;
  numRelations: number;
  /** The embedding dimension; complEx and rotatE store 2 x dim numbers per entity (real and imaginary parts), as PyG does. */
  dim: number;
  /** gamma: the score of a distance model is margin - distance (DGL-KE's and RotatE's gamma); it also sets the initial range. Default 12 (transE), 6 (rotatE), 12 otherwise. */
  margin?: number;
  /** transE's distance: 1 (default) or 2. */
  pNorm?: 1 | 2;
  memory?: EmbeddingMemory;
  dtype?: EmbeddingDType;
  communicator?: Communicator;
  /** The sparse optimizer of both tables (default Adam, lr 0.001). */
  optimizer?: SparseOptimizerConfig;
  /**
   * Initial values are uniform in +-initScale: by default (margin + 2) / dim (DGL-KE's and RotatE's range), and
   * 2 / dim for complEx (chosen on two generated graphs with planted patterns, validation MRR against the wider
   * start: 0.388 / 0.124 and 0.386 / 0.384 with one negative per positive, PyG's setting; 0.595 / 0.601 and
   * 0.561 / 0.544 with the default chunked negatives).
   */
  initScale?: number;
  seed?: number;
}

export interface KgeConfig {
  name: KgeModelName;
  numEntities: number;
  numRelations: number;
  dim: number;
  margin: number;
  pNorm: 1 | 2;
  initScale: number;
}

/** The widths of a model's rows: [entity, relation]. */
export function rowWidths(name: KgeModelName, dim: number): [number, number] {
  switch (name) {
    case 'transE':
    case 'distMult':
      return [dim, dim];
    case 'complEx':
      return [2 * dim, 2 * dim];
    case 'rotatE':
      return [2 * dim, dim];
  }
}

export function defaultMargin(name: KgeModelName): number {
  return name === 'rotatE' ? 6 : 12;
}

/** rotatE's phases of stored relation rows r are r * rotationScale: pi / initScale (RotatE's scaling, initial phases in [-pi, pi]). */
export function rotationScale(config: KgeConfig): number {
  return Math.PI / config.initScale;
}

/** The options checked and completed. */
export function kgeConfig(name: KgeModelName, o: KgeOptions): KgeConfig {
  const what = `kge.${name}`;
  if (!KGE_MODELS.includes(name)) throw new RangeError(`kge: model must be one of ${KGE_MODELS.join(', ')}, got ${name}`);
  for (const k of ['numEntities', 'numRelations', 'dim'] as const) {
    if (!Number.isInteger(o[k]) || o[k] < 1 || o[k] > 2 ** 31 - 1)
      throw new RangeError(`${what}: ${k} must be an integer in [1, 2^31), got ${o[k]}`);
  }
  const margin = o.margin ?? defaultMargin(name);
  if (!Number.isFinite(margin) || margin < 0) throw new RangeError(`${what}: margin must be a finite number >= 0, got ${o.margin}`);
  const pNorm = o.pNorm ?? 1;
  if (pNorm !== 1 && pNorm !== 2) throw new RangeError(`${what}: pNorm must be 1 or 2, got ${o.pNorm}`);
  if (o.pNorm !== undefined && name !== 'transE') throw new RangeError(`${what}: pNorm is transE's option; ${name} has its own distance`);
  const initScale = o.initScale ?? (name === 'complEx' ? 2 : margin + 2) / o.dim;
  if (!(initScale > 0 && Number.isFinite(initScale)))
    throw new RangeError(`${what}: initScale must be a finite number > 0, got ${o.initScale}`);
  return {name, numEntities: o.numEntities, numRelations: o.numRelations, dim: o.dim, margin, pNorm, initScale};
}

export abstract class KgeModel {
  readonly config: KgeConfig;
  readonly entity: Embedding;
  readonly relation: Embedding;

  protected constructor(name: KgeModelName, o: KgeOptions) {
    this.config = kgeConfig(name, o);
    const seed = checkSeed(`kge.${name}`, o.seed ?? 0);
    const [ew, rw] = rowWidths(name, o.dim);
    const optimizer = o.optimizer ?? adam({lr: 0.001});
    const table = (rows: number, dim: number, s: number) =>
      new Embedding({
        rows,
        dim,
        dtype: o.dtype,
        memory: o.memory,
        communicator: o.communicator,
        optimizer,
        init: {type: 'uniform', scale: this.config.initScale, seed: s},
      });
    this.entity = table(o.numEntities, ew, 2 * seed + 1);
    try {
      this.relation = table(o.numRelations, rw, 2 * seed + 2);
    } catch (e) {
      this.entity.dispose();
      throw e;
    }
  }

  get name(): KgeModelName {
    return this.config.name;
  }

  /** The query of each fixed row with its relation row: [n, entity width] from [n, entity width] and [n, relation width]. */
  abstract query(fixed: tf.Tensor2D, relation: tf.Tensor2D, side: KgeSide): tf.Tensor2D;

  /** Each query's score against its own candidate: q, c [n, w] to [n]. */
  abstract pairScore(q: tf.Tensor2D, c: tf.Tensor2D): tf.Tensor1D;

  /** Each query of a group against every candidate of that group: q [g, n, w], c [g, k, w] to [g, n, k]. */
  abstract groupScores(q: tf.Tensor3D, c: tf.Tensor3D): tf.Tensor3D;

  /** Bytes groupScores holds per (query, candidate) pair beyond its output (broadcast differences), to size blocks. */
  abstract pairBytes(): number;

  /**
   * The regularizer's sum over rows: 'l2' their squares, 'n3' their cubed absolute values (Lacroix et al.,
   * 2018); rows of complex numbers (complEx's, rotatE's entities) by each complex number's modulus.
   */
  regularizer(rows: tf.Tensor2D, kind: 'l2' | 'n3'): tf.Scalar {
    if (kind === 'l2') return tf.sum(tf.square(rows));
    const complex = (this.name === 'complEx' || this.name === 'rotatE') && rows.shape[1] === 2 * this.config.dim;
    return tf.sum(tf.pow(complex ? complexModuli(rows) : tf.abs(rows), 3));
  }

  /** Scores of triples (no gradient): heads, relations and tails as ids. */
  score(
    heads: tf.Tensor1D | ArrayLike<number>,
    relations: tf.Tensor1D | ArrayLike<number>,
    tails: tf.Tensor1D | ArrayLike<number>,
  ): tf.Tensor1D {
    const h = this.entity.read(heads) as tf.Tensor2D,
      r = this.relation.read(relations) as tf.Tensor2D,
      t = this.entity.read(tails) as tf.Tensor2D;
    try {
      if (h.shape[0] !== r.shape[0] || h.shape[0] !== t.shape[0])
        throw new RangeError(`kge.score: heads, relations and tails must be equally long, got ${h.shape[0]}, ${r.shape[0]}, ${t.shape[0]}`);
      return tf.tidy(() => this.pairScore(this.query(h, r, 'tail'), t));
    } finally {
      tf.dispose([h, r, t]);
    }
  }

  /** Frees both tables. */
  dispose(): void {
    this.entity.dispose();
    this.relation.dispose();
  }
}

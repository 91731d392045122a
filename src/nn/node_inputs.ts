// What a node classifier's first layer reads for a vertex: its learnable
// embedding (a table updated sparsely, only the rows a batch touched), its
// features (a read-only table the caller owns: any memory type and storage
// dtype an embedding table has, gathered by the same kernels), or both side
// by side.
import * as tf from '@tensorflow/tfjs-core';

import type {NodeClassificationData, VertexFeatures} from '../graph/dataset';
import {NativeFeatures} from '../graph/native_features';
import {structureFeatures} from '../graph/structure_features';
import {rowNormalized} from '../graph/transforms';
import type {Communicator} from '../memory/communicator';
import {int32Of} from '../util/arrays';
import type {FeatureSource} from './feature_source';
import {Embedding, EmbeddingDType, EmbeddingMemory} from './embedding';
import type {NodeModelConfig} from './node_model';
import {adam} from './sparse_optimizer';

export interface FeatureTableOptions {
  memory?: EmbeddingMemory;
  dtype?: EmbeddingDType;
  communicator?: Communicator;
  /**
   * Told how the fill goes, every 10 s while it lasts (rows written, rows/s, ETA) and once at its end when it
   * lasted longer: a table of many gigabytes takes minutes.
   */
  onProgress?: (line: string) => void;
}

export class NodeInputs {
  /** The learnable table (absent when embeddingDim is 0). */
  readonly embedding?: Embedding;
  /** The read-only feature table (absent without features). */
  readonly features?: Embedding;
  /** Width of what lookup() / read() return: feature width + embedding width. */
  readonly width: number;
  readonly allIds: tf.Tensor1D;

  constructor(c: NodeModelConfig) {
    if (!(c.embeddingDim >= 0) || !Number.isInteger(c.embeddingDim))
      throw new RangeError(`embeddingDim must be a non-negative integer, got ${c.embeddingDim}`);
    if (c.embeddingDim === 0 && !c.features)
      throw new RangeError('a node classifier needs features, learnable embeddings (embeddingDim > 0), or both');
    if (c.features && c.features.rows !== c.numNodes) {
      throw new RangeError(`the feature table has ${c.features.rows} rows for ${c.numNodes} nodes`);
    }
    this.features = c.features;
    if (c.embeddingDim > 0) {
      this.embedding = new Embedding({
        rows: c.numNodes,
        dim: c.embeddingDim,
        memory: c.embeddingMemory,
        communicator: c.communicator,
        optimizer: c.embeddingOptimizer ?? adam({lr: c.embeddingLearningRate}),
        init: {type: 'normal', scale: 0.1, seed: c.seed},
      });
    }
    this.width = (this.features?.dim ?? 0) + c.embeddingDim;
    this.allIds = tf.tensor1d(
      Int32Array.from({length: c.numNodes}, (_, i) => i),
      'int32',
    );
  }

  /**
   * Training input for `ids`: the embedding rows carry their sparse gradient, the features none. `x`: the
   * features of `ids` gathered already (a loader's batch.x), read in place of the feature table.
   */
  lookup(ids: tf.Tensor | Int32Array, x?: tf.Tensor2D): tf.Tensor2D {
    return this.join(this.embedding?.lookup(ids), ids, x);
  }

  /** Evaluation input for `ids` (every vertex when omitted). */
  read(ids: tf.Tensor | Int32Array = this.allIds): tf.Tensor2D {
    return this.join(this.embedding?.read(ids), ids);
  }

  private join(emb: tf.Tensor | undefined, ids: tf.Tensor | Int32Array, x?: tf.Tensor2D): tf.Tensor2D {
    if (x !== undefined) checkGiven(x, ids, this.features?.dim);
    if (!this.features) return emb as tf.Tensor2D;
    const f = x ?? (this.features.read(ids) as tf.Tensor2D);
    return emb ? (tf.concat([f, emb as tf.Tensor2D], 1) as tf.Tensor2D) : f;
  }

  /** The anchor that carries the learnable table's sparse gradient (none without one). */
  get anchors(): tf.Variable[] {
    return this.embedding ? [this.embedding.anchor] : [];
  }

  /** Applies the learnable table's sparse step (nothing without one). */
  step(): void {
    this.embedding?.step();
  }

  /** Disposes what this made; the feature table is the caller's. */
  dispose(): void {
    this.embedding?.dispose();
    this.allIds.dispose();
  }
}

// A batch's x against the rows it stands for: one row per id, the feature table's width.
function checkGiven(x: tf.Tensor, ids: tf.Tensor | Int32Array, width: number | undefined): void {
  const n = ids instanceof tf.Tensor ? ids.size : ids.length;
  if (width === undefined) throw new TypeError("forward: the batch has features (x) and the model none; leave the loader's features out");
  if (x.rank !== 2 || x.shape[0] !== n || x.shape[1] !== width)
    throw new RangeError(
      `forward: the batch's x must be [${n}, ${width}] (a row per input id, the model's feature width), got [${x.shape}]`,
    );
}

/**
 * A read-only feature table for node classifiers: the rows in an embedding table of any memory type and
 * storage dtype (float16 / bfloat16 halve it), written once; the caller disposes it. The rows come from
 * `values` [rows, dim], or from a dataset's features in either form (`data.features`: a Float32Array, or
 * NativeFeatures read a window at a time, so a table past what JavaScript arrays hold is filled without one).
 * With a communicator (memory shared by the ranks) it is collective: every rank passes the same rows and
 * writes its own share of them, in the same number of calls, then all meet at a barrier.
 */
export function featureTable(features: NativeFeatures | VertexFeatures, opts?: FeatureTableOptions): Embedding;
export function featureTable(values: Float32Array, rows: number, dim: number, opts?: FeatureTableOptions): Embedding;
export function featureTable(
  source: Float32Array | NativeFeatures | VertexFeatures,
  rowsOrOpts?: number | FeatureTableOptions,
  dimArg?: number,
  optsArg?: FeatureTableOptions,
): Embedding {
  let rows: number, dim: number, opts: FeatureTableOptions;
  let read: (first: number, count: number) => Float32Array;
  if (source instanceof NativeFeatures) {
    ({rows, dim} = source);
    opts = (rowsOrOpts as FeatureTableOptions | undefined) ?? {};
    read = (first, count) => source.read(first, count);
  } else {
    const values = source instanceof Float32Array ? source : source.values;
    [rows, dim] = source instanceof Float32Array ? [rowsOrOpts as number, dimArg as number] : [values.length / source.dim, source.dim];
    opts = (source instanceof Float32Array ? optsArg : (rowsOrOpts as FeatureTableOptions | undefined)) ?? {};
    if (!Number.isInteger(rows) || !Number.isInteger(dim) || values.length !== rows * dim)
      throw new RangeError(`featureTable: ${values.length} values for ${rows} rows of ${dim}`);
    read = (first, count) => values.subarray(first * dim, (first + count) * dim);
  }
  const comm = opts.communicator;
  const table = new Embedding({rows, dim, memory: opts.memory, dtype: opts.dtype, communicator: comm, init: {type: 'zeros'}});
  try {
    const [rank, size] = comm ? [comm.rank, comm.size] : [0, 1];
    const first = Math.floor((rows * rank) / size),
      last = Math.floor((rows * (rank + 1)) / size);
    // Every rank makes as many calls as the largest share needs (writes to distributed memory are collective).
    // Windows of 32M values (128 MB as float32): a generated source makes a window's rows on every host thread.
    const chunk = Math.max(1, Math.floor((1 << 25) / Math.max(1, dim)));
    const calls = Math.ceil(Math.ceil(rows / size) / chunk);
    const started = Date.now();
    let told = started;
    for (let c = 0; c < calls; ++c) {
      const begin = Math.min(last, first + c * chunk),
        end = Math.min(last, begin + chunk);
      table.write(
        int32Of(end - begin, (i) => begin + i),
        read(begin, end - begin),
      );
      const now = Date.now();
      if (opts.onProgress && (now - told >= 10000 || (c === calls - 1 && now - started >= 10000))) {
        told = now;
        const done = end - first,
          seconds = (now - started) / 1000;
        const rate = done / seconds;
        opts.onProgress(
          `feature table: ${done} of ${last - first} rows of ${dim} written, ${rate.toFixed(0)} rows/s` +
            (end < last ? `, ETA ${((last - end) / rate).toFixed(0)} s` : ` in ${seconds.toFixed(1)} s`),
        );
      }
    }
    comm?.barrier();
  } catch (e) {
    table.dispose();
    throw e;
  }
  return table;
}

/** The feature rows a model with this source reads for `data` (saved models record the source, so predictions read the same). */
export function inputFeatures(data: NodeClassificationData, source: FeatureSource): {values: Float32Array; dim: number} {
  if (source.from === 'structure') return structureFeatures(data.graph, {seed: 1});
  if (!data.features) throw new Error(`${data.name} has no node features`);
  return {values: source.normalized ? rowNormalized(data.features) : data.features.values, dim: data.features.dim};
}

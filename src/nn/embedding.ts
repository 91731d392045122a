// Embedding tables for tfjs training: the forward is a native row gather;
// the backward never builds a dense [rows, dim] gradient. It keeps (indices,
// row gradients), and step() merges duplicates and lets the sparse optimizer
// update only the touched rows, in place, in the table's own memory.
//
//   const emb = wm.nn.embedding({rows, dim: 64, optimizer: wm.nn.adam({lr: 0.01})});
//   opt.minimize(() => loss(emb.lookup(ids)));   // dense parameters as usual
//   emb.step();                                   // the table's sparse update
//
// The gradient reaches the table through `anchor`, a trainable scalar that
// minimize() includes by default (pass it in varList if you list variables).
import * as tf from '@tensorflow/tfjs-core';

import {checkIndexArray, checkIndexTensor, knownValid} from '../backend/index_validation';
import type {NativeOptimizerParams} from '../native/addon';
import {deviceStatus} from '../native/device';
import type {Communicator} from '../memory/communicator';
import {optimizerCode, sgd, SparseOptimizerConfig, stateCount, stateWidth, stepParams} from './sparse_optimizer';
import {int32Ids} from '../util/arrays';
import {checkSeed} from '../util/random';
import {checkCapacity, checkRows} from '../memory/capacity';
import {allocateTable, TableMemory} from './table/allocate_table';
import {cacheBytes, CacheStats} from './table/row_cache';
import {embeddingNative} from '../native/domains';
import type {NeighborLists, TableStorage} from './table/table_storage';
import {listEntries} from '../graph/sampled_subgraph';

// add(): the SGD rule with lr = -1 and no weight decay (w - (-1) g is w + g exactly).
const ADD_RULE = {code: optimizerCode(sgd()), params: {...stepParams(sgd(), 1), lr: -1, weightDecay: 0}};

export type EmbeddingDType = 'float32' | 'float16' | 'bfloat16';
export type EmbeddingMemory = TableMemory;

export interface EmbeddingInit {
  type?: 'uniform' | 'normal' | 'zeros';
  scale?: number;
  seed?: number;
}

export interface EmbeddingOptions {
  rows: number;
  dim: number;
  /** Storage type; arithmetic is float32 either way. */
  dtype?: EmbeddingDType;
  /**
   * Default: 'device' with a GPU, else 'host'. With a GPU, 'host' is pinned
   * host memory the GPU reads over the bus, and 'managed' is CUDA managed
   * memory (subject to wm.setManagedBudget); without one both are plain host memory.
   */
  memory?: EmbeddingMemory;
  init?: EmbeddingInit;
  optimizer?: SparseOptimizerConfig;
  /**
   * For 'continuous', 'chunked', 'distributed' and 'hierarchical': the group sharing the
   * table (default: this process alone). A distributed or hierarchical table's reads, writes
   * and steps are collectives: every rank calls them, with its own indices. 'hierarchical':
   * split between the group's hosts, chunked over each host's GPUs (host memory without them).
   */
  communicator?: Communicator;
  /** A cache of the hottest rows in GPU memory, in front of a 'host', 'managed', 'continuous' or 'hierarchical' table (see Embedding.cache). */
  cache?: EmbeddingCacheOptions;
}

/**
 * Whether a table in `memory` that several ranks share is read by collectives (every rank calls each read, with its
 * own rows): 'distributed' and 'hierarchical' tables; the others are read by each rank alone.
 */
export function readsAreCollective(memory: EmbeddingMemory | undefined): boolean {
  return memory === 'distributed' || memory === 'hierarchical';
}

/**
 * Which rows a table keeps in its cache, and how many. The rows live in GPU memory; a cached row is
 * read, written and stepped there, so a trainable table stays exact. Without a GPU the cache is a
 * second host array (the same results, nothing faster). In front of a 'continuous' table shared by a
 * group, each rank's cache is its own copy of rows (those its batches read most, most of them on other
 * GPUs): the table is then read-only on that rank (features), and emptying the cache copies nothing back.
 */
export interface EmbeddingCacheOptions {
  /** Candidate rows, hottest first (wm.nn.hottestRows ranks degrees or access counts); cut to the budget. */
  rows: Int32Array | ArrayLike<number>;
  /** Bytes for the cache: its rows, a 4-byte slot per table row, a 4-byte id per cached row. */
  bytes?: number;
  /** Or a share of the table's rows, in [0, 1]. With neither, every listed row is cached. */
  fraction?: number;
}

const STORAGE = {float32: 0, float16: 1, bfloat16: 2} as const;
const INIT_KIND = {uniform: 0, normal: 1, zeros: 2} as const;

let anchors = 0;

export class Embedding {
  readonly rows: number;
  readonly dim: number;
  readonly dtype: EmbeddingDType;
  readonly memory: EmbeddingMemory;
  readonly optimizer?: SparseOptimizerConfig;
  /** Carries the table's gradient through tfjs' optimizers (see the file comment). */
  readonly anchor: tf.Variable;
  private store: TableStorage | undefined;
  private pending: {ids: tf.Tensor; grads: tf.Tensor}[] = [];
  private steps = 0;

  constructor(o: EmbeddingOptions) {
    for (const k of ['rows', 'dim'] as const) {
      if (!Number.isInteger(o[k]) || o[k] < 0) throw new RangeError(`embedding: ${k} must be a non-negative integer, got ${o[k]}`);
    }
    this.rows = o.rows;
    this.dim = o.dim;
    this.dtype = o.dtype ?? 'float32';
    if (!(this.dtype in STORAGE)) throw new TypeError(`embedding: dtype must be float32, float16 or bfloat16, got ${this.dtype}`);
    const gpu = deviceStatus().gpu;
    this.memory = o.memory ?? (gpu ? 'device' : 'host');
    this.optimizer = o.optimizer;
    checkRows('embedding', this.rows);
    this.checkFits(o, gpu);
    const elementBytes = this.dtype === 'float32' ? 4 : 2;
    const states = this.optimizer ? stateCount(this.optimizer) : 0;
    const width = this.optimizer ? stateWidth(this.optimizer, this.dim) : this.dim;
    const request = {rows: this.rows, dim: this.dim, storage: STORAGE[this.dtype], elementBytes, states, stateWidth: width};
    this.store = allocateTable(request, this.memory, gpu, tf.backend(), o.communicator);
    const init = o.init ?? {};
    const kind = INIT_KIND[init.type ?? 'normal'];
    if (kind === undefined) throw new RangeError(`embedding: init.type must be uniform, normal or zeros, got ${init.type}`);
    const scale = init.scale ?? 0.1;
    if (typeof scale !== 'number' || !(scale >= 0 && scale < Infinity))
      throw new RangeError(`embedding: init.scale must be a finite non-negative number, got ${scale}`);
    const seed = checkSeed('embedding: init', init.seed ?? 1);
    // Shared tables: each rank fills its own rows, then everyone waits (nobody writes rows before every
    // rank has initialised its own).
    this.store.init(kind, scale, seed);
    this.store.group?.barrier();
    this.anchor = tf.tidy(() => tf.variable(tf.scalar(0), true, `wm_embedding_anchor_${anchors++}`));
    if (o.cache) {
      try {
        this.cache(o.cache);
      } catch (e) {
        this.dispose();
        throw e;
      }
    }
  }

  /**
   * Keeps the first rows of `o.rows` that fit the budget in the cache, replacing what it held (its rows
   * go back to the table first); null empties it. Returns the new cache's counts. Tables in 'host',
   * 'managed' or 'continuous' memory have a cache; 'device' tables need none; 'chunked' and
   * 'distributed' ones have none. Not collective: a shared table's cache is this rank's alone, and
   * while it holds rows the table is read-only on this rank (write, add and steps are refused): keep
   * rows there that no rank writes meanwhile. A 'hierarchical' table's cache keeps this rank's copies of
   * the listed rows other hosts hold; filling or emptying it is a collective (every rank calls, with its rows).
   * A cache of every row but one run (each rank of a 'continuous' table caching every row the others hold:
   * `hottestRows(counts, rows, t.localRows())` with no fraction) finds a row's slot without its row map, so a
   * first layer's neighbour mean reads it about as fast as a table in the GPU's own memory.
   */
  cache(o: EmbeddingCacheOptions | null): CacheStats | undefined {
    const s = this.live('cache');
    const gpu = deviceStatus().gpu;
    if (!s.cache || (gpu && this.memory === 'device')) {
      const why =
        this.memory === 'device'
          ? 'its rows are in GPU memory already'
          : this.memory === 'chunked'
            ? 'its rows are in one address range per rank; continuous memory has a cache'
            : 'its rows move by collectives';
      throw new Error(
        `embedding.cache: a cache goes in front of a 'host', 'managed', 'continuous' or 'hierarchical' table; this one is '${this.memory}' (${why})`,
      );
    }
    if (o === null) {
      s.cache.set(null, 'embedding.cache');
      return undefined;
    }
    const listed = int32Ids(o.rows, 'embedding.cache: rows');
    let k = listed.length;
    const rowBytes = this.dim * (this.dtype === 'float32' ? 4 : 2);
    if (o.fraction !== undefined) {
      if (!(o.fraction >= 0 && o.fraction <= 1)) throw new RangeError(`embedding.cache: fraction must be in [0, 1], got ${o.fraction}`);
      k = Math.min(k, Math.floor(o.fraction * this.rows));
    }
    if (o.bytes !== undefined) {
      const map = cacheBytes(0, this.rows, rowBytes);
      if (!(o.bytes >= map) || !Number.isFinite(o.bytes))
        throw new RangeError(
          `embedding.cache: bytes must be a finite number of at least ${map} (the row map of ${this.rows} rows), got ${o.bytes}`,
        );
      k = Math.min(k, Math.floor((o.bytes - map) / (rowBytes + 4)));
    }
    s.cache.set(listed.subarray(0, k), 'embedding.cache');
    return s.cache.stats();
  }

  /** The cache's counts (rows held, bytes, lookups, hits, hit rate), or undefined without a cache. */
  cacheStats(): CacheStats | undefined {
    return this.store?.cache?.stats();
  }

  /** Starts the cache's lookup and hit counts again (after a warm-up, say). */
  resetCacheCounts(): void {
    this.store?.cache?.resetCounts();
  }

  // Table and optimizer state against the memory they go to: a GPU holds its
  // rank's part of a group's table; host shared memory holds all of it.
  private checkFits(o: EmbeddingOptions, gpu: boolean): void {
    if (this.memory === 'hierarchical') return; // its host's share is checked where the hosts are known (allocate_table.ts)
    const states = this.optimizer ? stateCount(this.optimizer) : 0;
    const width = this.optimizer ? stateWidth(this.optimizer, this.dim) : this.dim;
    const total = this.rows * (this.dim * (this.dtype === 'float32' ? 4 : 2) + 4 * states * width);
    const grouped = this.memory === 'continuous' || this.memory === 'chunked' || this.memory === 'distributed';
    const where = !gpu || this.memory === 'host' ? 'host' : this.memory === 'managed' ? 'managed' : 'device';
    const share = grouped && (where === 'device' || this.memory === 'distributed') ? Math.ceil(total / (o.communicator?.size ?? 1)) : total;
    checkCapacity(`embedding (${this.rows} x ${this.dim} ${this.dtype}, memory '${this.memory}')`, share, where);
  }

  private live(what: string): TableStorage {
    if (this.store === undefined) throw new Error(`embedding.${what}: the table was disposed`);
    return this.store;
  }

  // A shared table's cache holds this rank's copies of rows: a write here would miss the other ranks'
  // reads of them (and theirs this rank's copies), so the table is read-only while the cache holds rows.
  private writable(what: string): TableStorage {
    const s = this.live(what);
    if (s.cache?.readOnly) {
      throw new Error(
        `embedding.${what}: this rank holds a cache of the shared '${this.memory}' table, which is read-only here while it does; empty it first (cache(null))`,
      );
    }
    return s;
  }

  private indices(ids: tf.Tensor | ArrayLike<number>, what: string): tf.Tensor {
    const t = ids instanceof tf.Tensor ? ids : tf.tensor1d(int32Ids(ids, `embedding.${what}`), 'int32');
    if (t.dtype !== 'int32') throw new TypeError(`embedding.${what}: indices must be int32, got ${t.dtype}`);
    return t;
  }

  /**
   * Whether read() may run on the GPU's side stream (a loader reading a batch's rows ahead): every memory but
   * 'distributed' and 'hierarchical', whose reads are collectives.
   */
  get readsAhead(): boolean {
    return !readsAreCollective(this.memory);
  }

  /** Rows at `ids` (shape [...ids.shape, dim]), no gradient. */
  read(ids: tf.Tensor | ArrayLike<number>): tf.Tensor {
    const s = this.live('read');
    const idx = this.indices(ids, 'read');
    try {
      return s.gather(idx, [...idx.shape, this.dim], 'embedding.read');
    } finally {
      if (idx !== ids) idx.dispose();
    }
  }

  /**
   * Rows at `ids`, differentiable: inside optimizer.minimize (or tf.grads
   * over `anchor`) the row gradients are kept for step().
   */
  lookup(ids: tf.Tensor | ArrayLike<number>): tf.Tensor {
    const idx = this.indices(ids, 'lookup');
    // The gather runs before tfjs' customGrad: a bad id then throws with
    // nothing recorded, where a throw inside customGrad leaves a tensor behind.
    let rows: tf.Tensor;
    try {
      rows = this.read(idx);
    } catch (e) {
      if (idx !== ids) idx.dispose();
      throw e;
    }
    const f = tf.customGrad(((anchor: tf.Tensor, save: tf.GradSaveFunc) => {
      save([idx]);
      return {
        value: tf.reshape(rows, rows.shape),
        gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
          this.addGradients(saved[0], dy);
          return tf.zerosLike(anchor);
        },
      };
    }) as unknown as Parameters<typeof tf.customGrad>[0]);
    const out = f(this.anchor);
    rows.dispose();
    if (idx !== ids) idx.dispose();
    return out;
  }

  /**
   * @internal The rows of the first `numDst` of `ids` and, for each, the mean of its neighbours' rows (`lists`:
   * positions in ids, a fixed fan-out or a CSR block's offsets and columns; or rows themselves), read in place
   * (TableStorage.neighborRows: on the GPU through the cache where one is in front, its lookups counted as a gather of
   * `ids` would; without a GPU, from a float32 table's own array); undefined where this table is not read so (managed
   * memory on a GPU, host tables on a machine with one, float16 host storage, rows moved by collectives) or, on the
   * GPU, `ids` (and rows given as lists) are not known to be valid rows (a sampler's are), so the caller gathers the
   * rows instead.
   */
  neighborRows(ids: tf.Tensor1D, lists: NeighborLists, numDst: number): [tf.Tensor2D, tf.Tensor2D] | undefined {
    const s = this.live('neighborRows');
    if (!s.neighborRows) return undefined;
    if (s.where === 'device') {
      const inPlace = this.memory === 'device' || this.memory === 'chunked' || this.memory === 'continuous';
      if (!inPlace || !knownValid(ids, this.rows)) return undefined;
      if (lists.rows && !knownValid(listEntries(lists), this.rows)) return undefined;
    }
    if (numDst > ids.size) throw new RangeError(`embedding.neighborRows: ${numDst} rows, but only ${ids.size} ids`);
    if ('fanout' in lists) {
      const {neighbors, fanout} = lists;
      if (neighbors.dtype !== 'int32' || neighbors.size !== numDst * fanout)
        throw new RangeError(
          `embedding.neighborRows: neighbors must be ${numDst} x ${fanout} int32 positions in ${ids.size} ids, got ${neighbors.size} ${neighbors.dtype}`,
        );
    } else if (lists.rowPtr.dtype !== 'int32' || lists.rowPtr.size !== numDst + 1 || lists.colIdx.dtype !== 'int32') {
      throw new RangeError(
        `embedding.neighborRows: a block's rowPtr must be ${numDst + 1} int32 offsets and its colIdx int32, got ${lists.rowPtr.size} ${lists.rowPtr.dtype} and ${lists.colIdx.dtype}`,
      );
    }
    return s.neighborRows(ids, lists, numDst);
  }

  /** Overwrites rows with float32 values [n, dim] (rounded to the storage type). */
  write(ids: tf.Tensor | ArrayLike<number>, values: tf.Tensor | Float32Array): void {
    const s = this.writable('write');
    const idx = this.indices(ids, 'write');
    try {
      const n = idx.size;
      // Distributed tables check indices inside the collective (every rank fails together).
      if (!s.checksInCollective) checkIndexArray(idx.dataSync(), this.rows, 'embedding.write');
      const vals = values instanceof tf.Tensor ? values : tf.tensor(values, [n, this.dim]);
      if (vals.size !== n * this.dim) throw new RangeError(`embedding.write: values hold ${vals.size} elements, need ${n} x ${this.dim}`);
      s.write(idx, vals, 'embedding.write');
      if (vals !== values) vals.dispose();
    } finally {
      if (idx !== ids) idx.dispose();
    }
  }

  /** One optimizer step with explicit sparse gradients: grads [n, dim] for ids [n]. */
  applyGradients(ids: tf.Tensor | ArrayLike<number>, grads: tf.Tensor): void {
    this.live('applyGradients');
    if (!this.optimizer) throw new Error('embedding.applyGradients: the table was created without an optimizer');
    this.updateRows(ids, grads, 'applyGradients', optimizerCode(this.optimizer), stepParams(this.optimizer, this.steps + 1), true);
    ++this.steps;
  }

  /**
   * Scatter-add: adds float32 values [n, dim] to the rows at ids [n] in place
   * (values of repeated ids are summed first; rounded once to the storage
   * type). No optimizer needed, its state is left alone. Non-finite values
   * are skipped and counted as skippedGradients() counts gradients.
   */
  add(ids: tf.Tensor | ArrayLike<number>, values: tf.Tensor): void {
    this.updateRows(ids, values, 'add', ADD_RULE.code, ADD_RULE.params, false);
  }

  private updateRows(
    ids: tf.Tensor | ArrayLike<number>,
    grads: tf.Tensor,
    what: string,
    code: number,
    params: NativeOptimizerParams,
    withState: boolean,
  ): void {
    const s = this.writable(what);
    const idx = this.indices(ids, what);
    try {
      if (grads.size !== idx.size * this.dim || grads.dtype !== 'float32') {
        const arg = what === 'add' ? 'values' : 'grads';
        throw new RangeError(
          `embedding.${what}: ${arg} must be float32 with ${idx.size} x ${this.dim} elements, got ${grads.dtype} ${grads.shape}`,
        );
      }
      // Validate every index before any row changes (free when lookup() already did);
      // distributed tables check inside the collective.
      if (!s.checksInCollective) checkIndexTensor(idx, this.rows, `embedding.${what}`);
      s.apply(idx, grads, code, params, withState, `embedding.${what}`);
    } finally {
      if (idx !== ids) idx.dispose();
    }
  }

  /**
   * Keeps row gradients for step(), as a lookup's backward pass does: grads [n, dim] (float32) for the rows at
   * ids [n], checked ids (a table's own reads). For training steps that write their backward pass out.
   */
  addGradients(ids: tf.Tensor, grads: tf.Tensor): void {
    this.collect(ids, grads, 'addGradients', false);
  }

  /**
   * addGradients taking the tensors themselves (ids 1-D, grads [ids, dim]): the caller hands them over and neither
   * reads nor disposes them after; the step releases them. Saves the two views addGradients makes of a caller's.
   */
  handOverGradients(ids: tf.Tensor1D, grads: tf.Tensor2D): void {
    this.collect(ids, grads, 'handOverGradients', true);
  }

  // A step's gradients checked and kept for step(): handed over in their final shapes, as they are; else views (the
  // caller may dispose its own).
  private collect(ids: tf.Tensor, grads: tf.Tensor, what: string, handedOver: boolean): void {
    this.live(what);
    if (ids.dtype !== 'int32' || grads.dtype !== 'float32' || grads.size !== ids.size * this.dim)
      throw new RangeError(
        `embedding.${what}: ids must be int32 and grads float32 with ${ids.size} x ${this.dim} elements, got ${ids.dtype} [${ids.shape}] and ${grads.dtype} [${grads.shape}]`,
      );
    const asThey = handedOver && ids.rank === 1 && grads.rank === 2 && grads.shape[1] === this.dim;
    this.pending.push({
      ids: tf.keep(asThey ? ids : tf.reshape(ids, [-1])),
      grads: tf.keep(asThey ? grads : tf.reshape(grads, [-1, this.dim])),
    });
  }

  /** Applies the gradients the lookups since the last step() collected (one optimizer step). */
  step(): void {
    if (this.pending.length === 0) return;
    this.withPending((ids, grads) => this.applyGradients(ids, grads));
  }

  // The gradients collected since the last step, as one block of ids and one of rows (none: empty blocks), handed
  // to f and released after it.
  private withPending(f: (ids: tf.Tensor, grads: tf.Tensor) => void): void {
    const pending = this.pending;
    this.pending = [];
    // Parts already checked make a checked whole (the concatenation keeps their check): no second pass over them.
    const one = (parts: tf.Tensor[], empty: () => tf.Tensor) =>
      parts.length === 0 ? empty() : parts.length === 1 ? parts[0] : tf.concat(parts);
    const ids = one(
      pending.map((p) => p.ids),
      () => tf.zeros([0], 'int32'),
    );
    const grads = one(
      pending.map((p) => p.grads),
      () => tf.zeros([0, this.dim]),
    );
    try {
      f(ids, grads);
    } finally {
      if (pending.length !== 1) tf.dispose([ids, grads]);
      pending.forEach((p) => tf.dispose([p.ids, p.grads]));
    }
  }

  /**
   * step() for data parallelism over a table the ranks share: a collective of the table's group in which every
   * rank's collected gradients (or none) are summed at each row's owner and applied there once (one update per row,
   * as one process would make from all of them). Continuous and chunked WholeMemory is read directly by every rank,
   * so only the gradients travel (NCCL on GPUs), and reads after the call follow every owner's writes; 'distributed'
   * tables step this way always. SGD without weight decay on GPUs whose atomics reach each other: each rank adds its
   * own rows' steps to the table instead (atomic adds between two orderings of every rank's reads and writes), equal
   * up to the order of the additions. Tables of one process: step().
   */
  stepTogether(): void {
    const s = this.writable('stepTogether');
    if (!s.group || s.group.size === 1) return this.step();
    const opt = this.optimizer;
    if (!opt) throw new Error('embedding.stepTogether: the table was created without an optimizer');
    this.withPending((ids, grads) =>
      s.applyAtOwners(ids, grads, optimizerCode(opt), stepParams(opt, this.steps + 1), true, 'embedding.stepTogether'),
    );
    ++this.steps;
  }

  /** Rows this process owns in a checkpoint: all, or its slice of a shared WholeMemory table. */
  localRows(): {first: number; count: number} {
    const s = this.live('localRows');
    return {first: s.first, count: s.count};
  }

  /** The table's rows (as float32) and optimizer state for this process's rows, for checkpoints. */
  exportState(): {rows: Float32Array; states: Float32Array[]; steps: number; skipped: number} {
    const s = this.live('exportState');
    const t = this.read(Int32Array.from({length: s.count}, (_, i) => s.first + i));
    const rows = t.dataSync() as Float32Array;
    t.dispose();
    const states = Array.from({length: s.stateCount}, (_, i) => s.readState(i));
    return {rows, states, steps: this.steps, skipped: this.skippedGradients()};
  }

  /** What exportState() returns here, without reading it: values of the rows, optimizer states, values of each state. */
  exportStateShape(): {elements: number; states: number; stateElements: number} {
    const s = this.live('exportStateShape');
    const width = this.optimizer ? stateWidth(this.optimizer, this.dim) : this.dim;
    return {elements: s.count * this.dim, states: s.stateCount, stateElements: s.count * width};
  }

  /** Restores what exportState() returned (same rows, dim, optimizer). */
  importState(state: {rows: Float32Array; states: Float32Array[]; steps: number}): void {
    const s = this.live('importState');
    if (state.rows.length !== s.count * this.dim)
      throw new RangeError(`embedding.importState: ${state.rows.length} values for ${s.count} rows of ${this.dim}`);
    if (state.states.length !== s.stateCount)
      throw new RangeError(`embedding.importState: ${state.states.length} optimizer states, the table has ${s.stateCount}`);
    const {stateElements} = this.exportStateShape();
    state.states.forEach((v, i) => {
      if (v.length !== stateElements)
        throw new RangeError(`embedding.importState: optimizer state ${i} holds ${v.length} values, the table's hold ${stateElements}`);
    });
    this.write(
      Int32Array.from({length: s.count}, (_, i) => s.first + i),
      state.rows,
    );
    state.states.forEach((v, i) => s.writeState(i, v));
    this.steps = state.steps;
    if (s.where === 'device') embeddingNative().synchronize();
    s.group?.barrier();
  }

  /** Gradient elements skipped because they were NaN or infinite, since creation. */
  skippedGradients(): number {
    return this.store ? this.store.skipped() : 0;
  }

  get stepCount(): number {
    return this.steps;
  }

  /** Frees the table, its optimizer state and the anchor. */
  dispose(): void {
    this.pending.forEach((p) => tf.dispose([p.ids, p.grads]));
    this.pending = [];
    this.store?.release();
    this.store = undefined;
    this.anchor.dispose();
  }
}

export function embedding(o: EmbeddingOptions): Embedding {
  return new Embedding(o);
}

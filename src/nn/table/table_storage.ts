// Where an embedding table's rows and optimizer state live, one implementation per kind of memory
// (as WholeGraph's gather_op_impl_* per memory type): host arrays or host WholeMemory
// (host_table.ts), GPU buffers or GPU WholeMemory (device_table.ts), a rank's part of a distributed
// table (distributed_table.ts), a host's part of a table split between hosts (hierarchical_table.ts). `Embedding` (../embedding.ts) keeps the API and validation and calls
// one of these; allocate_table.ts picks it.
import * as tf from '@tensorflow/tfjs-core';

import type {NativeDeviceMemory, NativeHostMemory, NativeOptimizerParams, NativeTable} from '../../native/addon';
import type {Communicator} from '../../memory/communicator';
import type {LayerLists} from '../../graph/sampled_subgraph';
import {sendFloatRows} from '../../memory/distributed_rows';
import {embeddingNative} from '../../native/domains';
import type {WholeMemoryBackend} from '../../backend/backend_wholememory';
import {CacheStats, TableCache} from './row_cache';

/** What every kind of storage is made from. */
export interface TableRequest {
  rows: number;
  dim: number;
  /** 0 float32, 1 float16, 2 bfloat16 (wm/embedding.h). */
  storage: number;
  /** Bytes per stored element (4 or 2). */
  elementBytes: number;
  /** Optimizer state arrays (float32): 0, 1 or 2. */
  states: number;
  /** Floats per row in each state array: dim, or 1 for a row-wise optimizer. */
  stateWidth: number;
  /** The row of a larger table this storage's row 0 is (a part of one: its initial values are the larger table's). */
  rowBase?: number;
}

/** A state array: a device address (0: none), a host array (null: none), or WholeMemory. */
export type StateBuffer = number | Float32Array | NativeHostMemory | NativeDeviceMemory | null;

/**
 * A sampled layer's neighbour lists, positions in its input ids: `fanout` a row (`neighbors` [numDst * fanout]), or
 * a CSR block's int32 offsets [numDst + 1] and columns on the GPU (a row may have none: its mean is zero). With
 * `rows` the entries are the table's rows themselves (a sampler's vertex ids, not relabelled into positions).
 */
export type NeighborLists = LayerLists & {rows?: boolean};

export interface TableStorage {
  /** Where the kernels run: 'device' (the table is addressed by the GPU) or 'host' (the C++ CPU core). */
  readonly where: 'device' | 'host';
  /** Rows this process owns (in checkpoints): all, or its part of a shared table. */
  readonly first: number;
  readonly count: number;
  /** The group a shared table lives in (barriers after collective writes), if any. */
  readonly group?: Communicator;
  /** Whether indices are checked inside a collective (every rank fails together) rather than before the call. */
  readonly checksInCollective: boolean;
  /** Fills this process's rows (kind 0 uniform, 1 normal, 2 zeros) and waits for the writes. */
  init(kind: number, scale: number, seed: number): void;
  /** Rows at int32 indices `idx` as a float32 tensor of `shape`; throws naming `what` on an index out of range. */
  gather(idx: tf.Tensor, shape: number[], what: string): tf.Tensor;
  /**
   * Tables read in place (on the GPU: device memory, GPU WholeMemory, `ids` valid rows and `lists` checked by the
   * caller; on the host: float32 arrays of this process, everything checked here): the rows of the first `numDst` of
   * `ids` and, for each, the mean of its neighbours' rows (`lists`: positions in ids, or rows), as float32 [numDst, dim]
   * tensors: a sampled layer's inputs without a copy of every row it reads. Undefined where this table is not read so.
   */
  neighborRows?(ids: tf.Tensor1D, lists: NeighborLists, numDst: number): [tf.Tensor2D, tf.Tensor2D] | undefined;
  /** Overwrites rows (float32 values, rounded to the storage type). */
  write(idx: tf.Tensor, values: tf.Tensor, what: string): void;
  /** One sparse optimizer rule over rows (the state arrays when withState); returns the skipped non-finite elements (host). */
  apply(idx: tf.Tensor, grads: tf.Tensor, code: number, params: NativeOptimizerParams, withState: boolean, what: string): void;
  /**
   * apply() as a collective of the table's group: every rank's (idx, grads) reach the rows' owners, each owner
   * applying what arrived (duplicates from every rank merged: one update per row) to its own rows, and no read
   * after the call sees a row half updated. For tables a group shares (`group` set).
   */
  applyAtOwners(idx: tf.Tensor, grads: tf.Tensor, code: number, params: NativeOptimizerParams, withState: boolean, what: string): void;
  /** The state arrays in use (optimizer states), each readable and writable by this process's rows. */
  readonly stateCount: number;
  readState(i: number): Float32Array;
  writeState(i: number, values: Float32Array): void;
  /** Gradient elements skipped because they were NaN or infinite. */
  skipped(): number;
  /** The row cache's place: absent where the memory cannot have one (chunked WholeMemory, distributed tables). */
  readonly cache?: CachePlace;
  release(): void;
}

/**
 * What Embedding.cache drives: a table's cache of rows (row_cache.ts' TableCache; a hierarchical table's copies of
 * other hosts' rows). `set` keeps rows (null: none); while `readOnly`, writes and steps are refused on this rank.
 */
export interface CachePlace {
  set(ids: Int32Array | null, what: string): void;
  readonly readOnly: boolean;
  stats(): CacheStats | undefined;
  resetCounts(): void;
  release(): void;
}

/** What apply() and applyAtOwners() take. */
export type ApplyArgs = Parameters<TableStorage['apply']>;

/**
 * What the tables one process addresses whole share (host arrays or host WholeMemory, GPU buffers or
 * GPU WholeMemory): the rows it owns, the state arrays, the row cache (a table in one address range has
 * one: a buffer, or continuous WholeMemory, whose cache is this process's own and read-only; `cacheOn`:
 * the backend whose GPU holds it, or none for a host cache), and releasing them.
 */
export abstract class AddressedTable {
  readonly checksInCollective = false;
  readonly first: number;
  readonly count: number;
  readonly stateCount: number;
  readonly cache?: TableCache;

  protected constructor(
    protected readonly r: TableRequest,
    protected readonly table: NativeTable,
    protected readonly states: StateBuffer[],
    private readonly freeAll: () => void,
    cacheOn: WholeMemoryBackend | undefined,
    readonly group?: Communicator,
    memoryType?: number,
  ) {
    const mem = table.memory;
    this.first = mem ? mem.localFirstRow : 0;
    this.count = mem ? mem.localRowCount : r.rows;
    this.stateCount = r.states;
    // WholeMemory type 0 is continuous: one address range, like a buffer (chunked is one range per rank).
    if (!mem || memoryType === 0) this.cache = new TableCache(table, r, cacheOn, mem !== undefined);
  }

  /** The native table the kernels read (for collectives that read it at its owners). */
  get kernelTable(): NativeTable {
    return this.table;
  }

  readState(i: number): Float32Array {
    return readStateRows(this.states[i], this.r.stateWidth, this.first, this.count);
  }

  writeState(i: number, values: Float32Array): void {
    writeStateRows(this.states[i], this.r.stateWidth, this.first, values);
  }

  release(): void {
    this.cache?.release();
    this.freeAll();
  }
}

/**
 * Collective over `group`: each rank's rows (`ids`, float32 `values` `dim` wide) sent through the communicator to the
 * rows' owners (rank q owns rows [q * rowsPerRank, ...) of `rows`); `atOwner` gets what arrived at this rank, as row
 * ids and float32 rows; then the ranks meet, so no read after it sees a row half changed.
 */
export function sendToOwners(
  group: Communicator,
  rows: number,
  dim: number,
  rowsPerRank: number,
  ids: Int32Array,
  values: Float32Array,
  atOwner: (ids: Int32Array, values: Float32Array) => void,
  what: string,
): void {
  const first = group.rank * rowsPerRank;
  const layout = {comm: group, rows, rowsPerRank, rowBytes: dim * 4, noun: 'table' as const};
  const arrived = (local: Int32Array, v: Float32Array) =>
    atOwner(
      local.map((i) => i + first),
      v,
    );
  sendFloatRows(layout, ids, values, arrived, what);
  group.barrier();
}

/** sendToOwners for a table's step: each rank's (idx, grads) applied at the rows' owners by `applyOwn`. */
export function applyThroughGroup(
  group: Communicator,
  r: TableRequest,
  rowsPerRank: number,
  idx: tf.Tensor,
  grads: tf.Tensor,
  applyOwn: (ids: Int32Array, grads: Float32Array) => void,
  what: string,
): void {
  sendToOwners(group, r.rows, r.dim, rowsPerRank, asInt32(idx.dataSync()), asFloat32(grads.dataSync()), applyOwn, what);
}

/** The NativeTable the kernels take for a request. */
export function nativeTable(r: TableRequest, rows = r.rows, rowBase = r.rowBase): NativeTable {
  return rowBase === undefined ? {rows, dim: r.dim, storage: r.storage} : {rows, dim: r.dim, storage: r.storage, rowBase};
}

/** Rows [first, first + count) of a state array `width` floats a row, as float32. */
export function readStateRows(st: StateBuffer, width: number, first: number, count: number): Float32Array {
  const out = new Float32Array(count * width);
  if (typeof st === 'number') embeddingNative().download(st + first * width * 4, out);
  else if (st instanceof Float32Array) out.set(st.subarray(first * width, (first + count) * width));
  else if (st !== null) st.readLocal(out);
  return out;
}

export function writeStateRows(st: StateBuffer, width: number, first: number, v: Float32Array): void {
  if (typeof st === 'number') embeddingNative().upload(st + first * width * 4, v);
  else if (st instanceof Float32Array) st.set(v, first * width);
  else if (st !== null) st.writeLocal(v);
}

// dataSync() of a float32 tensor is a Float32Array already; copy only if not.
export const asFloat32 = (v: ArrayLike<number>): Float32Array => (v instanceof Float32Array ? v : Float32Array.from(v));
export const asInt32 = (v: ArrayLike<number>): Int32Array => (v instanceof Int32Array ? v : Int32Array.from(v));

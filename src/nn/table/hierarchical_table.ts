// A table split between hosts and shared within each (memory 'hierarchical', WholeGraph's hierarchical memory):
// host h of H (hosts in the order of their names) holds rows [h * rowsPerHost, ...) in memory its ranks share
// (chunked WholeMemory over its GPUs; continuous host memory without one). How a read is routed: each host's rows are
// asked of the rank that holds the reader's place on that host (the `across` group, one rank a host; the reader itself
// for its own host), which reads them from its host's memory (over NVLink between GPUs) and answers: on GPUs in one
// NCCL gather over `across` (each host's chunked table its owner's part, the rows landing on the reader's GPU);
// without GPUs this host's rows are read directly and the others' come through the communicators' sockets. Rows
// this rank holds copies of (its cache) are read from them. An update goes to the owning host through the sockets,
// whose ranks then apply what reached them together (applyAtOwners: one update per row). Reads, writes and steps are
// collectives of the whole group.
import * as tf from '@tensorflow/tfjs-core';

import type {WholeMemoryBackend} from '../../backend/backend_wholememory';
import type {NativeOptimizerParams, NativeTable} from '../../native/addon';
import type {Communicator} from '../../memory/communicator';
import {bytesOf, failTogether, firstBadIndex, readRows, RowLayout, sendFloatRows} from '../../memory/distributed_rows';
import {embeddingNative} from '../../native/domains';
import {ncclGather} from './distributed_table';
import {cacheBytes, CacheStats, checkCacheIds} from './row_cache';
import {asFloat32, asInt32, CachePlace, sendToOwners, TableStorage} from './table_storage';
import {tidyValues} from '../../util/tidy_values';
import {markValid} from '../../backend/index_validation';

const int = (v: number) => tf.scalar(v, 'int32');

/** `t`, indices known to lie in [0, rows): gathers by them need no check (none that waits for the device). */
function checkedIndices<T extends tf.Tensor>(t: T, rows: number): T {
  markValid(t, rows);
  return t;
}

/** How the rows of a table of `rows` rows split between `hosts` hosts: host h holds [first, first + count). */
export function hostShare(rows: number, hosts: number, h: number): {rowsPerHost: number; first: number; count: number} {
  const rowsPerHost = Math.max(1, Math.ceil(rows / hosts));
  const first = Math.min(rows, h * rowsPerHost);
  return {rowsPerHost, first, count: Math.max(0, Math.min(rows, first + rowsPerHost) - first)};
}

export class HierarchicalTable implements TableStorage {
  readonly checksInCollective = true;
  readonly where: 'device' | 'host';
  readonly first: number;
  readonly count: number;
  readonly stateCount: number;
  private readonly hostFirst: number;
  private readonly hostCount: number;
  private readonly layout: RowLayout;
  readonly cache: RemoteRowCache;

  /**
   * `inner`: this host's rows (a table of `share.count` rows the ranks of `host` share); `across`: the ranks that
   * hold this rank's place on every host, its rank the host's index.
   */
  constructor(
    private readonly rows: number,
    private readonly dim: number,
    readonly group: Communicator,
    private readonly host: Communicator,
    private readonly across: Communicator,
    private readonly inner: TableStorage,
    private readonly onRelease: () => void,
    /** On GPUs: the backend and the host's table as the kernels read it, for reads of other hosts through NCCL. */
    private readonly device?: {b: WholeMemoryBackend; table: NativeTable},
  ) {
    const share = hostShare(rows, across.size, across.rank);
    this.hostFirst = share.first;
    this.hostCount = share.count;
    this.where = inner.where;
    this.first = this.hostFirst + inner.first;
    this.count = this.hostCount === 0 ? 0 : inner.count;
    this.stateCount = inner.stateCount;
    this.layout = {comm: across, rows, rowsPerRank: share.rowsPerHost, rowBytes: dim * 4, noun: 'table'};
    this.cache = new RemoteRowCache(rows, dim, device !== undefined, (ids, what) => {
      const remote = ids.filter((id) => !this.ownHost(id));
      this.checked(remote, what);
      return {ids: remote, rows: this.readRemoteBlocks(remote, what)};
    });
  }

  /**
   * Float32 bytes a collective read of rows from other hosts moves at most when a cache is filled: the rows go a
   * block at a time (a message and a typed array each, far below their limits), into one tensor at the end.
   */
  static fillBlockBytes = 1 << 28;

  /** Collective over the group: the rows at `remote` (every one on another host) as a tensor, read a block at a time. */
  private readRemoteBlocks(remote: Int32Array, what: string): tf.Tensor2D | undefined {
    const per = Math.max(1, Math.floor(HierarchicalTable.fillBlockBytes / (this.dim * 4)));
    // Every rank reads as many blocks as the rank with the most (the reads are collectives); a rank out of rows asks for none.
    const blocks = Math.max(...this.group.allgatherJson(Math.ceil(remote.length / per), `${what} (blocks)`));
    const parts: tf.Tensor2D[] = [];
    try {
      for (let b = 0; b < blocks; ++b) {
        const block = remote.subarray(b * per, (b + 1) * per);
        const rows = this.remoteRows(block, what);
        if (block.length > 0) parts.push(rows);
        else rows.dispose();
      }
      if (parts.length <= 1) return parts.pop();
      const all = tf.concat(parts) as tf.Tensor2D;
      tf.dispose(parts);
      return all;
    } catch (e) {
      tf.dispose(parts);
      throw e;
    }
  }

  init(kind: number, scale: number, seed: number): void {
    // The inner table's row 0 is this host's first row: its values are the whole table's (TableRequest.rowBase).
    this.inner.init(kind, scale, seed);
  }

  /** Every rank learns whether any passed an index outside the table; all throw together, naming the first. */
  private checked(ids: Int32Array, what: string): void {
    const bad = firstBadIndex(ids, this.rows);
    this.agreed(bad, ids[bad], 0, what);
  }

  /**
   * After this rank's check (`value` at position `bad`, -1: none) and count of the rows it must ask of other hosts
   * (`crossing`): every rank learns whether any failed, and all throw; else whether any rank asks another host for
   * rows (when none does, no rank takes part in a read across: each reads its host's memory and its cache).
   */
  private agreed(bad: number, value: number, crossing: number, what: string): boolean {
    const all = this.group.allgatherJson([bad, crossing], `${what} (indices)`);
    failTogether(
      what,
      bad,
      value,
      all.findIndex(([b]) => b >= 0),
      this.rows,
      'table',
    );
    return all.some(([, c]) => c > 0);
  }

  private ownHost(id: number): boolean {
    return id >= this.hostFirst && id < this.hostFirst + this.hostCount;
  }

  gather(idx: tf.Tensor, shape: number[], what: string): tf.Tensor {
    return this.device ? this.gatherOnDevice(idx, shape, what) : this.gatherOnHost(idx, shape, what);
  }

  /**
   * On GPUs: every position's row through one NCCL gather over `across` (this host's rows answered here, the others'
   * by their host), except those this rank holds copies of, read from its cache; the indices checked over the group
   * first (four numbers read from the GPU), so every rank fails together. When no rank of the group asks another host
   * for a row, none takes part in the gather: each reads its host's rows from its memory.
   */
  private gatherOnDevice(idx: tf.Tensor, shape: number[], what: string): tf.Tensor {
    const n = idx.size;
    const c = this.cache;
    return tf.tidy(() => {
      const ids = tf.reshape(idx, [n]) as tf.Tensor1D;
      // Each id's cache slot (-1: none; an id outside the table, refused below, reads row 0's).
      const slots = c.slotsOnDevice
        ? tf.gather(c.slotsOnDevice, checkedIndices(tf.maximum(tf.minimum(ids, int(this.rows - 1)), int(0)), this.rows))
        : undefined;
      const crossing = this.checkedOnDevice(ids, slots, what);
      if (!slots) return tf.reshape(crossing ? this.throughAcross(ids) : this.ownRows(ids), shape);
      const hit = tf.greaterEqual(slots, int(0));
      c.counted(n, tf.sum(tf.cast(hit, 'int32')) as tf.Scalar);
      // In a cached row's place the read asks for one of this host's (answered here, nothing sent).
      const asked = tf.where(hit, tf.fill([n], this.hostCount > 0 ? this.hostFirst : 0, 'int32'), ids) as tf.Tensor1D;
      const read = crossing ? this.throughAcross(asked) : this.ownRows(asked);
      const copies = tf.gather(c.rows!, checkedIndices(tf.maximum(slots, int(0)), c.rows!.shape[0]));
      return tf.reshape(tf.where(tf.reshape(hit, [n, 1]), copies, read), shape);
    });
  }

  /**
   * Every rank learns whether any passed an index outside the table (device indices and `slots`, their cache slots:
   * four numbers read), and all throw together; else whether any rank asks another host for a row.
   */
  private checkedOnDevice(ids: tf.Tensor1D, slots: tf.Tensor1D | undefined, what: string): boolean {
    let bad = -1,
      value = 0,
      crossing = 0;
    if (ids.size > 0) {
      const [any, at, v, away] = tidyValues(() => {
        const outside = tf.cast(tf.logicalOr(tf.less(ids, int(0)), tf.greaterEqual(ids, int(this.rows))), 'int32');
        const first = tf.argMax(outside);
        let elsewhere = tf.logicalOr(tf.less(ids, int(this.hostFirst)), tf.greaterEqual(ids, int(this.hostFirst + this.hostCount)));
        if (slots) elsewhere = tf.logicalAnd(elsewhere, tf.less(slots, int(0)));
        return tf.stack([
          tf.max(outside),
          first,
          tf.reshape(tf.gather(ids, tf.reshape(first, [1])), []),
          tf.sum(tf.cast(elsewhere, 'int32')),
        ]);
      });
      if (any > 0) [bad, value] = [at, v];
      crossing = away;
    }
    return this.agreed(bad, value, crossing, what);
  }

  /** On GPUs: the rows at device indices `ids`, every one this host's, read from its memory. */
  private ownRows(ids: tf.Tensor1D): tf.Tensor2D {
    const local = this.hostCount > 0 ? tf.sub(ids, int(this.hostFirst)) : tf.zerosLike(ids);
    return this.inner.gather(checkedIndices(local, Math.max(this.hostCount, 1)), [ids.size, this.dim], 'embedding') as tf.Tensor2D;
  }

  /** Collective over `across`, on GPUs: the rows at device indices `ids` (any host's) through NCCL, as float32. */
  private throughAcross(ids: tf.Tensor1D): tf.Tensor2D {
    const {b, table} = this.device!;
    return ncclGather(b, this.across, table, this.layout.rowsPerRank, this.rows, ids, [ids.size, this.dim]) as tf.Tensor2D;
  }

  /** Without GPUs: the positions split by where their rows are (this host, this rank's copies, other hosts). */
  private gatherOnHost(idx: tf.Tensor, shape: number[], what: string): tf.Tensor {
    const ids = asInt32(idx.dataSync());
    const n = ids.length;
    const own = new Int32Array(n),
      cached = new Int32Array(n),
      remote = new Int32Array(n);
    let nOwn = 0,
      nCached = 0,
      nRemote = 0;
    const slots = this.cache.slotOf;
    const lo = this.hostFirst,
      hi = this.hostFirst + this.hostCount;
    // The first index outside the table (-1: none) found in the same pass: such an index is neither this host's nor cached.
    let bad = -1;
    for (let i = 0; i < n; ++i) {
      const id = ids[i];
      if (id >= lo && id < hi) own[nOwn++] = i;
      else if (slots && slots[id] >= 0) cached[nCached++] = i;
      else {
        remote[nRemote++] = i;
        if (bad < 0 && !(id >= 0 && id < this.rows)) bad = i;
      }
    }
    const crossing = this.agreed(bad, ids[bad], nRemote, what);
    this.cache.counted(n, nCached);
    const pick = (at: Int32Array, count: number, f: (id: number) => number) => {
      const out = new Int32Array(count);
      for (let k = 0; k < count; ++k) out[k] = f(ids[at[k]]);
      return out;
    };
    return tf.tidy(() => {
      // Other hosts' rows through `across` (a collective of the group even when this rank wants none, unless none does).
      const remoteRows = crossing
        ? this.remoteRows(
            pick(remote, nRemote, (id) => id),
            what,
          )
        : undefined;
      // This host's rows from its shared memory, this rank's copies of other hosts' rows, and the rows other hosts
      // sent: each position's row put back in the caller's order.
      const parts: tf.Tensor[] = [
        this.inner.gather(
          tf.tensor1d(
            pick(own, nOwn, (id) => id - lo),
            'int32',
          ),
          [nOwn, this.dim],
          what,
        ),
      ];
      if (nCached)
        parts.push(
          tf.gather(
            this.cache.rows!,
            tf.tensor1d(
              pick(cached, nCached, (id) => slots![id]),
              'int32',
            ),
          ),
        );
      if (nRemote) parts.push(remoteRows!);
      if (parts.length === 1) return tf.reshape(parts[0], shape);
      const order = new Int32Array(n);
      let k = 0;
      for (const [at, count] of [
        [own, nOwn],
        [cached, nCached],
        [remote, nRemote],
      ] as const)
        for (let j = 0; j < count; ++j) order[at[j]] = k++;
      return tf.reshape(tf.gather(tf.concat(parts), tf.tensor1d(order, 'int32')), shape);
    });
  }

  /**
   * Collective over `across`: the rows at `ids` (every one on another host) as a float32 tensor where this rank
   * computes: through NCCL on GPUs, through the sockets without them.
   */
  private remoteRows(ids: Int32Array, what: string): tf.Tensor2D {
    const shape: [number, number] = [ids.length, this.dim];
    if (this.across.size === 1) return tf.zeros(shape);
    if (this.device) {
      const idx = tf.tensor1d(ids, 'int32');
      try {
        return this.throughAcross(idx);
      } finally {
        idx.dispose();
      }
    }
    const bytes = readRows(this.layout, ids, (local) => this.readOwn(local, what), what);
    return tf.tensor2d(new Float32Array(bytes.buffer, bytes.byteOffset, ids.length * this.dim), shape);
  }

  /** This host's rows at local indices, as float32 bytes: what another host's rank asked this rank for. */
  private readOwn(local: Int32Array, what: string): Uint8Array {
    return bytesOf(asFloat32(tidyValues(() => this.inner.gather(tf.tensor1d(local, 'int32'), [local.length, this.dim], what))));
  }

  /**
   * Sends (row, values) pairs to the hosts that hold the rows; what reached this rank (as indices local to its host)
   * goes to `atHost`, called on every rank (with none when nothing arrived).
   */
  private toHosts(ids: Int32Array, values: Float32Array, atHost: (local: Int32Array, values: Float32Array) => void, what: string): void {
    if (this.across.size === 1)
      return atHost(
        Int32Array.from(ids, (id) => id - this.hostFirst),
        values,
      );
    sendFloatRows(this.layout, ids, values, atHost, what);
  }

  write(idx: tf.Tensor, values: tf.Tensor, what: string): void {
    const ids = asInt32(idx.dataSync());
    this.checked(ids, what);
    // Rows that reached this host are written by their chunk's owner among its ranks (later ranks' writes win), so no
    // two ranks write one row at once.
    this.toHosts(
      ids,
      asFloat32(values.dataSync()),
      (local, v) => {
        const rows = Math.max(this.hostCount, 1);
        const write = (mine: Int32Array, w: Float32Array) =>
          tf.tidy(() => this.inner.write(tf.tensor1d(mine, 'int32'), tf.tensor2d(w, [mine.length, this.dim]), what));
        sendToOwners(this.host, rows, this.dim, Math.ceil(rows / this.host.size), local, v, write, what);
      },
      what,
    );
    // GPU writes are queued on each rank's stream: done before any rank reads past the barrier.
    if (this.where === 'device') embeddingNative().synchronize();
    this.group.barrier();
  }

  apply(idx: tf.Tensor, grads: tf.Tensor, code: number, params: NativeOptimizerParams, withState: boolean, what: string): void {
    const ids = asInt32(idx.dataSync());
    this.checked(ids, what);
    // The gradients reach the owning host; its ranks then apply them together, one update per row.
    this.toHosts(
      ids,
      asFloat32(grads.dataSync()),
      (local, g) =>
        tf.tidy(() =>
          this.inner.applyAtOwners(tf.tensor1d(local, 'int32'), tf.tensor2d(g, [local.length, this.dim]), code, params, withState, what),
        ),
      what,
    );
    this.group.barrier();
  }

  /** Every update is applied at the rows' owners already. */
  applyAtOwners(idx: tf.Tensor, grads: tf.Tensor, code: number, params: NativeOptimizerParams, withState: boolean, what: string): void {
    this.apply(idx, grads, code, params, withState, what);
  }

  readState(i: number): Float32Array {
    return this.count === 0 ? new Float32Array(0) : this.inner.readState(i);
  }

  writeState(i: number, values: Float32Array): void {
    if (this.count > 0) this.inner.writeState(i, values);
  }

  skipped(): number {
    return this.inner.skipped();
  }

  release(): void {
    this.cache.release();
    this.inner.release();
    this.across.destroy();
    this.host.destroy();
    this.onRelease();
  }
}

/**
 * A hierarchical table's cache: this rank's copies of rows other hosts hold (those its batches read most), read
 * where the rank computes (its GPU, or host memory) instead of asked of their host. Filling it is a collective (every
 * rank calls Embedding.cache, with its rows or null): the copies come through one read. While it holds rows the table
 * is read-only on this rank (features), and emptying it copies nothing back.
 */
class RemoteRowCache implements CachePlace {
  rows?: tf.Tensor2D;
  slotOf?: Int32Array;
  /** On GPUs, slotOf where the rank computes (int32, a slot or -1 per row of the table). */
  slotsOnDevice?: tf.Tensor1D;
  private lookups = 0;
  private hits = 0;
  // Hits counted on the GPU, a scalar a read, added in here a batch at a time (one wait for the device a batch).
  private pendingHits: tf.Scalar[] = [];

  constructor(
    private readonly tableRows: number,
    private readonly dim: number,
    private readonly onDevice: boolean,
    private readonly fill: (ids: Int32Array, what: string) => {ids: Int32Array; rows: tf.Tensor2D | undefined},
  ) {}

  set(ids: Int32Array | null, what: string): void {
    this.release();
    if (ids) checkCacheIds(ids, this.tableRows, what);
    // Every rank fills (a collective); an empty cache, or none of the rows on other hosts, leaves no rows.
    const got = this.fill(ids ?? new Int32Array(0), what);
    if (got.rows === undefined) return;
    this.rows = tf.keep(got.rows);
    this.slotOf = new Int32Array(this.tableRows).fill(-1);
    got.ids.forEach((id, k) => (this.slotOf![id] = k));
    if (this.onDevice) this.slotsOnDevice = tf.keep(tf.tensor1d(this.slotOf, 'int32'));
  }

  get readOnly(): boolean {
    return this.rows !== undefined;
  }

  /** A read of `n` rows, `hit` of them copies here (a count, or an int32 scalar on the GPU, kept until counted). */
  counted(n: number, hit: number | tf.Scalar): void {
    if (!this.rows) return;
    this.lookups += n;
    if (typeof hit === 'number') this.hits += hit;
    else {
      this.pendingHits.push(tf.keep(hit));
      if (this.pendingHits.length >= 64) this.addPending();
    }
  }

  private addPending(): void {
    if (this.pendingHits.length === 0) return;
    const sum = tf.tidy(() => tf.sum(tf.stack(this.pendingHits)));
    this.hits += sum.dataSync()[0];
    sum.dispose();
    tf.dispose(this.pendingHits);
    this.pendingHits = [];
  }

  stats(): CacheStats | undefined {
    if (!this.rows) return undefined;
    this.addPending();
    const slots = this.rows.shape[0];
    return {
      slots,
      bytes: cacheBytes(slots, this.tableRows, this.dim * 4),
      lookups: this.lookups,
      hits: this.hits,
      hitRate: this.lookups > 0 ? this.hits / this.lookups : 0,
    };
  }

  resetCounts(): void {
    this.lookups = 0;
    this.hits = 0;
    tf.dispose(this.pendingHits);
    this.pendingHits = [];
  }

  release(): void {
    this.rows?.dispose();
    this.rows = undefined;
    this.slotsOnDevice?.dispose();
    this.slotsOnDevice = undefined;
    this.slotOf = undefined;
    this.resetCounts();
  }
}

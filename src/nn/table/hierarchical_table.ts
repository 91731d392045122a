// A table split between hosts and shared within each (memory 'hierarchical', WholeGraph's hierarchical memory):
// host h of H (hosts in the order of their names) holds rows [h * rowsPerHost, ...) in memory its ranks share
// (chunked WholeMemory over its GPUs; continuous host memory without one). How a read is routed: a row of the
// reader's own host is read from that memory directly (over NVLink between GPUs); a row of another host goes to
// the rank that holds the reader's place on that host (the `across` group, one rank a host), which reads it from
// its host's memory and answers. An update goes the same way to the owning host, whose ranks then apply what
// reached them together (applyAtOwners: one update per row). Between hosts, rows and gradients move through the
// communicators' sockets. Reads, writes and steps are collectives of the whole group.
import * as tf from '@tensorflow/tfjs-core';

import type {NativeOptimizerParams} from '../../native/addon';
import type {Communicator} from '../../memory/communicator';
import {bytesOf, failTogether, firstBadIndex, readRows, RowLayout, sendFloatRows} from '../../memory/distributed_rows';
import {embeddingNative} from '../../native/domains';
import {cacheBytes, CacheStats, checkCacheIds} from './row_cache';
import {asFloat32, asInt32, CachePlace, sendToOwners, TableStorage} from './table_storage';
import {tidyValues} from '../../util/tidy_values';

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
  ) {
    const share = hostShare(rows, across.size, across.rank);
    this.hostFirst = share.first;
    this.hostCount = share.count;
    this.where = inner.where;
    this.first = this.hostFirst + inner.first;
    this.count = this.hostCount === 0 ? 0 : inner.count;
    this.stateCount = inner.stateCount;
    this.layout = {comm: across, rows, rowsPerRank: share.rowsPerHost, rowBytes: dim * 4, noun: 'table'};
    this.cache = new RemoteRowCache(rows, dim, (ids, what) => {
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
        const bytes = this.readRemote(block, what);
        if (block.length > 0)
          parts.push(tf.tensor2d(new Float32Array(bytes.buffer, bytes.byteOffset, block.length * this.dim), [block.length, this.dim]));
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
    const all = this.group.allgatherJson(bad, `${what} (indices)`);
    failTogether(
      what,
      ids,
      bad,
      all.findIndex((b) => b >= 0),
      this.rows,
      'table',
    );
  }

  private ownHost(id: number): boolean {
    return id >= this.hostFirst && id < this.hostFirst + this.hostCount;
  }

  gather(idx: tf.Tensor, shape: number[], what: string): tf.Tensor {
    const ids = asInt32(idx.dataSync());
    this.checked(ids, what);
    const own: number[] = [],
      cached: number[] = [],
      remote: number[] = [];
    const slots = this.cache.slotOf;
    ids.forEach((id, i) => (this.ownHost(id) ? own : slots && slots[id] >= 0 ? cached : remote).push(i));
    this.cache.counted(ids.length, cached.length);
    // Other hosts' rows through `across` (a collective of the group even when this rank wants none).
    const remoteBytes = this.readRemote(
      Int32Array.from(remote, (i) => ids[i]),
      what,
    );
    return tf.tidy(() => {
      // This host's rows from its shared memory (on the GPU for GPU tables), this rank's copies of other hosts' rows,
      // and the rows other hosts sent: each position's row put back in the caller's order.
      const parts: tf.Tensor[] = [
        this.inner.gather(
          tf.tensor1d(
            Int32Array.from(own, (i) => ids[i] - this.hostFirst),
            'int32',
          ),
          [own.length, this.dim],
          what,
        ),
      ];
      if (cached.length)
        parts.push(
          tf.gather(
            this.cache.rows!,
            tf.tensor1d(
              Int32Array.from(cached, (i) => slots![ids[i]]),
              'int32',
            ),
          ),
        );
      if (remote.length)
        parts.push(
          tf.tensor2d(new Float32Array(remoteBytes.buffer, remoteBytes.byteOffset, remote.length * this.dim), [remote.length, this.dim]),
        );
      if (parts.length === 1) return tf.reshape(parts[0], shape);
      const order = new Int32Array(ids.length);
      [own, cached, remote].flat().forEach((i, k) => (order[i] = k));
      return tf.reshape(tf.gather(tf.concat(parts), tf.tensor1d(order, 'int32')), shape);
    });
  }

  /** Collective over `across`: the rows at `ids` (every one on another host) as float32 bytes. */
  private readRemote(ids: Int32Array, what: string): Uint8Array {
    if (this.across.size === 1) return new Uint8Array(0);
    return readRows(this.layout, ids, (local) => this.readOwn(local, what), what);
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
  private lookups = 0;
  private hits = 0;

  constructor(
    private readonly tableRows: number,
    private readonly dim: number,
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
  }

  get readOnly(): boolean {
    return this.rows !== undefined;
  }

  /** A read of `n` rows, `hit` of them copies here. */
  counted(n: number, hit: number): void {
    if (!this.rows) return;
    this.lookups += n;
    this.hits += hit;
  }

  stats(): CacheStats | undefined {
    if (!this.rows) return undefined;
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
  }

  release(): void {
    this.rows?.dispose();
    this.rows = undefined;
    this.slotOf = undefined;
    this.resetCounts();
  }
}

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
import {bytesOf, readRows, RowLayout, sendRows} from '../../memory/distributed_rows';
import {indexError} from '../../backend/index_validation';
import {embeddingNative} from '../../native/domains';
import {asFloat32, asInt32, TableStorage} from './table_storage';

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
  }

  init(kind: number, scale: number, seed: number): void {
    // The inner table's row 0 is this host's first row: its values are the whole table's (TableRequest.rowBase).
    this.inner.init(kind, scale, seed);
  }

  /** Every rank learns whether any passed an index outside the table; all throw together, naming the first. */
  private checked(ids: Int32Array, what: string): void {
    let bad = -1;
    for (let i = 0; i < ids.length && bad < 0; ++i) if (!(ids[i] >= 0 && ids[i] < this.rows)) bad = i;
    const all = this.group.allgatherJson(bad, `${what} (indices)`);
    if (bad >= 0) throw indexError(what, ids[bad], bad, this.rows);
    const other = all.findIndex((b) => b >= 0);
    if (other >= 0) throw new RangeError(`${what}: rank ${other} passed an index outside the table's ${this.rows} rows`);
  }

  private ownHost(id: number): boolean {
    return id >= this.hostFirst && id < this.hostFirst + this.hostCount;
  }

  gather(idx: tf.Tensor, shape: number[], what: string): tf.Tensor {
    const ids = asInt32(idx.dataSync());
    this.checked(ids, what);
    const own: number[] = [],
      remote: number[] = [];
    ids.forEach((id, i) => (this.ownHost(id) ? own : remote).push(i));
    // This host's rows from its shared memory, read where the inner table lives (the GPU for GPU tables).
    const ownIdx = tf.tensor1d(
      Int32Array.from(own, (i) => ids[i] - this.hostFirst),
      'int32',
    );
    let ownRows: tf.Tensor;
    try {
      ownRows = this.inner.gather(ownIdx, [own.length, this.dim], what);
    } finally {
      ownIdx.dispose();
    }
    // Other hosts' rows through `across` (a collective of the group even when this rank wants none).
    const remoteBytes =
      this.across.size === 1
        ? new Uint8Array(0)
        : readRows(
            this.layout,
            Int32Array.from(remote, (i) => ids[i]),
            (local) => this.readOwn(local, what),
            what,
          );
    if (remote.length === 0) {
      const out = tf.reshape(ownRows, shape);
      if (out !== ownRows) ownRows.dispose();
      return out;
    }
    return tf.tidy(() => {
      const remoteRows = tf.tensor2d(new Float32Array(remoteBytes.buffer, remoteBytes.byteOffset, remote.length * this.dim), [
        remote.length,
        this.dim,
      ]);
      // Each position's row: own rows first, then the remote ones, put back in the caller's order.
      const order = new Int32Array(ids.length);
      own.forEach((i, k) => (order[i] = k));
      remote.forEach((i, k) => (order[i] = own.length + k));
      const both = tf.concat([ownRows, remoteRows]);
      ownRows.dispose();
      return tf.reshape(tf.gather(both, tf.tensor1d(order, 'int32')), shape);
    });
  }

  /** This host's rows at local indices, as float32 bytes: what another host's rank asked this rank for. */
  private readOwn(local: Int32Array, what: string): Uint8Array {
    const v = tf.tidy(() => this.inner.gather(tf.tensor1d(local, 'int32'), [local.length, this.dim], what).dataSync());
    return bytesOf(asFloat32(v));
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
    sendRows(
      this.layout,
      ids,
      bytesOf(values),
      (local, v) => atHost(local, new Float32Array(v.buffer, v.byteOffset, v.byteLength / 4)),
      what,
    );
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
        const perRank = Math.max(1, Math.ceil(Math.max(this.hostCount, 1) / this.host.size));
        const layout = {
          comm: this.host,
          rows: Math.max(this.hostCount, 1),
          rowsPerRank: perRank,
          rowBytes: this.dim * 4,
          noun: 'table' as const,
        };
        sendRows(
          layout,
          local,
          bytesOf(v),
          (mine, w) =>
            tf.tidy(() =>
              this.inner.write(
                tf.tensor1d(
                  Int32Array.from(mine, (i) => i + this.host.rank * perRank),
                  'int32',
                ),
                tf.tensor2d(new Float32Array(w.buffer, w.byteOffset, w.byteLength / 4), [mine.length, this.dim]),
                what,
              ),
            ),
          what,
        );
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
    this.inner.release();
    this.across.destroy();
    this.host.destroy();
    this.onRelease();
  }
}

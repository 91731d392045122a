// A rank's part of a 'distributed' embedding table: rows [first, first + count) in its own memory
// (GPU buffers, or host arrays without a GPU); every read, write and update is a collective that moves
// rows to and from their owners (NCCL all-to-all on GPUs, the communicator's exchange on the CPU), so
// a table may span hosts. Indices are checked inside the collective: every rank fails together.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../../backend/backend_wholememory';
import type {NativeOptimizerParams, NativeTable} from '../../native/addon';
import type {Communicator} from '../../memory/communicator';
import {bytesOf, readRows, RowLayout, sendFloatRows} from '../../memory/distributed_rows';
import {embeddingNative} from '../../native/domains';
import {deviceArrays} from './device_table';
import {readCounter} from './device_counter';
import {hostArrays} from './host_table';
import {asFloat32, asInt32, nativeTable, readStateRows, StateBuffer, TableRequest, TableStorage, writeStateRows} from './table_storage';

/**
 * Collective over `group` on GPUs: the rows at device indices `idx` of a table of `rows` rows, rank q holding rows
 * [q * rowsPerRank, ...) in its `local` table, through NCCL, as a float32 tensor of `shape` on this rank's GPU.
 */
export function ncclGather(
  b: WholeMemoryBackend,
  group: Communicator,
  local: NativeTable,
  rowsPerRank: number,
  rows: number,
  idx: tf.Tensor,
  shape: number[],
): tf.Tensor {
  const {info, ptr} = b.makeDeviceOutput(shape, 'float32');
  try {
    embeddingNative().distributedEmbeddingGather(
      group.nativeComm,
      local,
      rows,
      rowsPerRank,
      idx.size ? b.devicePtr(idx) : 0,
      idx.size,
      ptr,
    );
  } catch (e) {
    b.disposeData(info.dataId, true);
    throw e;
  }
  return tf.engine().makeTensorFromTensorInfo(info);
}

export class DistributedTable implements TableStorage {
  readonly checksInCollective = true;
  readonly first: number;
  readonly count: number;
  readonly stateCount: number;
  readonly where: 'device' | 'host';
  private readonly layout: RowLayout;
  private readonly table: NativeTable;
  private readonly states: StateBuffer[];
  private readonly counter: number = 0;
  private readonly releaseArrays: () => void = () => {};
  private skippedElements = 0;

  /** On the GPU when `b` is given (device buffers), else host arrays. */
  constructor(
    private readonly r: TableRequest,
    readonly group: Communicator,
    private readonly b: WholeMemoryBackend | undefined,
    private readonly onRelease: () => void,
  ) {
    const rowsPerRank = Math.max(1, Math.ceil(r.rows / group.size));
    this.first = Math.min(r.rows, group.rank * rowsPerRank);
    this.count = Math.max(0, Math.min(r.rows, this.first + rowsPerRank) - this.first);
    this.stateCount = r.states;
    this.layout = {comm: group, rows: r.rows, rowsPerRank, rowBytes: r.dim * 4, noun: 'table'};
    this.table = nativeTable(r, this.count, this.first);
    this.where = b ? 'device' : 'host';
    if (b) {
      const arrays = deviceArrays(
        b,
        this.table,
        this.count,
        r,
        (m) => b.allocDevice(m),
        (p) => b.freeDevice(p),
      );
      this.states = arrays.states;
      this.counter = arrays.counter;
      this.releaseArrays = arrays.release;
    } else {
      this.states = hostArrays(this.table, this.count, r);
    }
  }

  init(kind: number, scale: number, seed: number): void {
    embeddingNative().embeddingInit(this.table, 0, this.count, seed, kind, scale, this.b !== undefined);
    if (this.b) embeddingNative().synchronize();
  }

  gather(idx: tf.Tensor, shape: number[], what: string): tf.Tensor {
    const b = this.b;
    if (!b) {
      const out = readRows(
        this.layout,
        asInt32(idx.dataSync()),
        (local) => {
          const rows = new Float32Array(local.length * this.r.dim);
          embeddingNative().embeddingGather(this.table, local, 0, local.length, rows, null);
          return bytesOf(rows);
        },
        what,
      );
      return tf.tensor(new Float32Array(out.buffer), shape, 'float32');
    }
    return ncclGather(b, this.group, this.table, this.layout.rowsPerRank, this.r.rows, idx, shape);
  }

  write(idx: tf.Tensor, values: tf.Tensor, what: string): void {
    const b = this.b;
    if (!b) {
      const host = asInt32(idx.dataSync());
      const write = (local: Int32Array, v: Float32Array) =>
        embeddingNative().embeddingWriteRows(this.table, local, 0, local.length, v, null);
      sendFloatRows(this.layout, host, asFloat32(values.dataSync()), write, what);
      return;
    }
    embeddingNative().distributedEmbeddingWrite(
      this.group.nativeComm,
      this.table,
      this.r.rows,
      this.layout.rowsPerRank,
      idx.size ? b.devicePtr(idx) : 0,
      idx.size,
      idx.size ? b.devicePtr(values) : 0,
    );
  }

  apply(idx: tf.Tensor, grads: tf.Tensor, code: number, params: NativeOptimizerParams, withState: boolean, what: string): void {
    const [s0, s1] = withState ? this.states : [null, null];
    const b = this.b;
    if (!b) {
      const update = (local: Int32Array, g: Float32Array) => {
        this.skippedElements += embeddingNative().embeddingApply(
          this.table,
          s0 as Float32Array | null,
          s1 as Float32Array | null,
          local,
          0,
          local.length,
          g,
          code,
          params,
          null,
          null,
        ) as number;
      };
      sendFloatRows(this.layout, asInt32(idx.dataSync()), asFloat32(grads.dataSync()), update, what);
      return;
    }
    embeddingNative().distributedEmbeddingApply(
      this.group.nativeComm,
      this.table,
      this.r.rows,
      this.layout.rowsPerRank,
      (s0 ?? 0) as number,
      (s1 ?? 0) as number,
      idx.size ? b.devicePtr(idx) : 0,
      idx.size,
      idx.size ? b.devicePtr(grads) : 0,
      code,
      params,
      this.counter,
    );
  }

  /** Every update of a distributed table is applied at the rows' owners already; the owners' NCCL exchange orders what reads follow. */
  applyAtOwners(idx: tf.Tensor, grads: tf.Tensor, code: number, params: NativeOptimizerParams, withState: boolean, what: string): void {
    this.apply(idx, grads, code, params, withState, what);
  }

  // The state holds only this rank's rows: offsets from its first.
  readState(i: number): Float32Array {
    return readStateRows(this.states[i], this.r.stateWidth, 0, this.count);
  }

  writeState(i: number, values: Float32Array): void {
    writeStateRows(this.states[i], this.r.stateWidth, 0, values);
  }

  skipped(): number {
    return this.b ? readCounter(this.counter) : this.skippedElements;
  }

  release(): void {
    this.releaseArrays();
    this.onRelease();
  }
}

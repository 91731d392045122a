// An embedding table the C++ CPU core reads in place: typed arrays (memory 'host', 'managed' and
// 'device' without a GPU), or host WholeMemory shared by a group ('continuous', 'chunked' on a
// machine without a GPU): each rank initialises its own slice, every rank reads every row.
import * as tf from '@tensorflow/tfjs-core';

import {indexError} from '../../backend/index_validation';
import type {NativeHostMemory, NativeOptimizerParams, NativeTable} from '../../native/addon';
import type {Communicator} from '../../memory/communicator';
import {embeddingNative} from '../../native/domains';
import {
  AddressedTable,
  ApplyArgs,
  applyThroughGroup,
  asFloat32,
  asInt32,
  nativeTable,
  StateBuffer,
  TableRequest,
  TableStorage,
} from './table_storage';

/** Typed arrays for `table` (`rows` of r.dim) and its state arrays (r.stateWidth a row; null where the optimizer has none). */
export function hostArrays(table: NativeTable, rows: number, r: TableRequest): (Float32Array | null)[] {
  table.array = r.elementBytes === 4 ? new Float32Array(rows * r.dim) : new Uint16Array(rows * r.dim);
  return Array.from({length: 2}, (_, i) => (i < r.states ? new Float32Array(rows * r.stateWidth) : null));
}

// Typed-array tables and continuous host WholeMemory have a cache (the CPU core runs its logic); chunked has none.
export class HostTable extends AddressedTable implements TableStorage {
  readonly where = 'host' as const;
  private skippedElements = 0;

  private constructor(
    r: TableRequest,
    table: NativeTable,
    states: StateBuffer[],
    freeAll: () => void,
    group?: Communicator,
    memoryType?: number,
  ) {
    super(r, table, states, freeAll, undefined, group, memoryType);
  }

  // Host WholeMemory (continuous or chunked): the gradients through the communicator, each owner applying its rows'.
  applyAtOwners(...[idx, grads, code, params, withState, what]: ApplyArgs): void {
    const rowsPerRank = (this.table.memory as NativeHostMemory).rowsPerRank;
    applyThroughGroup(this.group!, this.r, rowsPerRank, idx, grads, (ids, g) => this.applyRows(ids, g, code, params, withState), what);
  }

  /** Typed arrays of this process. */
  static arrays(r: TableRequest): HostTable {
    const table = nativeTable(r);
    return new HostTable(r, table, hostArrays(table, r.rows, r), () => {});
  }

  /** Host WholeMemory over `comm` (type 0 continuous, 1 chunked); state continuous beside it. */
  static wholeMemory(r: TableRequest, comm: Communicator, type: number, onRelease: () => void): HostTable {
    const make = (t: number, rowBytes: number) =>
      new (embeddingNative().NativeHostMemory)(comm.nativeComm, t, r.rows, Math.max(rowBytes, 1), 1);
    const mem = make(type, r.dim * r.elementBytes);
    // memfd pages are born zero: the state needs no fill.
    const states: (NativeHostMemory | null)[] = Array.from({length: 2}, (_, i) => (i < r.states ? make(0, r.stateWidth * 4) : null));
    const table = nativeTable(r);
    table.memory = mem;
    const free = () => {
      mem.free();
      states.forEach((s) => s?.free());
      onRelease();
    };
    return new HostTable(r, table, states, free, comm, type);
  }

  init(kind: number, scale: number, seed: number): void {
    embeddingNative().embeddingInit(this.table, this.first, this.count, seed, kind, scale, false);
  }

  gather(idx: tf.Tensor, shape: number[], what: string): tf.Tensor {
    const host = idx.dataSync() as Int32Array;
    const out = new Float32Array(host.length * this.r.dim);
    const bad = embeddingNative().embeddingGather(this.table, host, 0, host.length, out, null) as number;
    if (bad >= 0) throw indexError(what, host[bad], bad, this.r.rows);
    this.cache?.count(host, host.length);
    return tf.tensor(out, shape, 'float32');
  }

  write(idx: tf.Tensor, values: tf.Tensor): void {
    const host = asInt32(idx.dataSync());
    embeddingNative().embeddingWriteRows(this.table, host, 0, host.length, asFloat32(values.dataSync()), null);
  }

  apply(idx: tf.Tensor, grads: tf.Tensor, code: number, params: NativeOptimizerParams, withState: boolean): void {
    this.applyRows(asInt32(idx.dataSync()), asFloat32(grads.dataSync()), code, params, withState);
  }

  private applyRows(host: Int32Array, grads: Float32Array, code: number, params: NativeOptimizerParams, withState: boolean): void {
    const [s0, s1] = withState ? this.states : [null, null];
    this.skippedElements += embeddingNative().embeddingApply(
      this.table,
      s0 as Float32Array | NativeHostMemory | null,
      s1 as Float32Array | NativeHostMemory | null,
      host,
      0,
      host.length,
      grads,
      code,
      params,
      null,
      null,
    ) as number;
  }

  skipped(): number {
    return this.skippedElements;
  }
}

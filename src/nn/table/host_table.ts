// An embedding table the C++ CPU core reads in place: typed arrays (memory 'host', 'managed' and
// 'device' without a GPU), or host WholeMemory shared by a group ('continuous', 'chunked' on a
// machine without a GPU): each rank initialises its own slice, every rank reads every row.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../../backend/backend_wholememory';
import {hostFloats, hostInts} from '../../backend/host_reads';
import {checkIndexArray, firstOutside, indexError} from '../../backend/index_validation';
import {inverseRowLengths} from '../../graph/aggregate';
import {listEntries} from '../../graph/sampled_subgraph';
import type {NativeHostMemory, NativeOptimizerParams, NativeTable} from '../../native/addon';
import type {Communicator} from '../../memory/communicator';
import {deviceStatus} from '../../native/device';
import {embeddingNative, graphNative} from '../../native/domains';
import {int32Of} from '../../util/arrays';
import {
  AddressedTable,
  ApplyArgs,
  applyThroughGroup,
  nativeTable,
  StateBuffer,
  NeighborLists,
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
    const host = hostInts(idx);
    const b = tf.backend();
    const write = (out: Float32Array) => {
      const bad = embeddingNative().embeddingGather(this.table, host, 0, host.length, out, null) as number;
      if (bad >= 0) throw indexError(what, host[bad], bad, this.r.rows);
    };
    // Written whole: under this backend from its host pool (a fresh array would fault in its pages each time).
    let rows: tf.Tensor;
    if (b instanceof WholeMemoryBackend) rows = b.hostOutputs([shape], ([out]) => write(out))[0];
    else {
      const out = new Float32Array(host.length * this.r.dim);
      write(out);
      rows = tf.tensor(out, shape, 'float32');
    }
    this.cache?.count(host, host.length);
    return rows;
  }

  /**
   * A float32 table of this process's arrays: the rows of ids[:numDst] and each one's mean of its neighbours' rows, the
   * means summed straight from the table (the host's CSR product over the table's own array, each entry mapped to its
   * row), so no matrix of every input row is made. Every id and entry is checked here. Undefined for other storage
   * (float16 / bfloat16, host WholeMemory) and on a machine with a GPU (the rows go there, gathered): the caller gathers
   * the rows instead.
   */
  neighborRows(ids: tf.Tensor1D, lists: NeighborLists, numDst: number): [tf.Tensor2D, tf.Tensor2D] | undefined {
    const array = this.table.array;
    const b = tf.backend();
    if (!(array instanceof Float32Array) || this.table.memory || deviceStatus().gpu || !(b instanceof WholeMemoryBackend)) return undefined;
    const {dim, rows} = this.r;
    const at = hostInts(ids);
    checkIndexArray(at, rows, 'embedding.neighborRows: ids');
    const entries = hostInts(listEntries(lists));
    let rowPtr: Int32Array;
    if ('fanout' in lists) {
      const fanout = lists.fanout;
      rowPtr = int32Of(numDst + 1, (r) => r * fanout);
    } else {
      rowPtr = hostInts(lists.rowPtr);
      if (rowPtr[0] !== 0 || rowPtr[numDst] !== entries.length || rowPtr.some((o, r) => r > 0 && o < rowPtr[r - 1]))
        throw new RangeError(`embedding.neighborRows: the lists' offsets must rise from 0 to their ${entries.length} entries`);
    }
    // Each entry's row: the entry itself where lists hold rows, else the id at its position (ids checked above).
    if (lists.rows) checkIndexArray(entries, rows, 'embedding.neighborRows: rows');
    else {
      const bad = firstOutside(entries, at.length);
      if (bad >= 0)
        throw new RangeError(`embedding.neighborRows: position ${entries[bad]} at entry ${bad} is outside the ${at.length} ids`);
    }
    const colIdx = lists.rows ? entries : rowsAt(at, entries);
    const outs = b.hostOutputs(
      [
        [numDst, dim],
        [numDst, dim],
      ],
      ([self, mean]) => {
        embeddingNative().embeddingGather(this.table, at, 0, numDst, self, null);
        graphNative().csrSpmm(rowPtr, colIdx, null, inverseRowLengths(rowPtr, numDst), numDst, array, dim, mean, null, 0, 0, 0);
      },
    );
    // Counted as the gather of every input row (the entries themselves where they are rows) would be.
    this.cache?.count(at, at.length);
    if (lists.rows && colIdx.length) this.cache?.count(colIdx, colIdx.length);
    return outs as [tf.Tensor2D, tf.Tensor2D];
  }

  write(idx: tf.Tensor, values: tf.Tensor): void {
    const host = hostInts(idx);
    embeddingNative().embeddingWriteRows(this.table, host, 0, host.length, hostFloats(values), null);
  }

  apply(idx: tf.Tensor, grads: tf.Tensor, code: number, params: NativeOptimizerParams, withState: boolean): void {
    this.applyRows(hostInts(idx), hostFloats(grads), code, params, withState);
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

/** ids[positions[k]] for every k, in a plain loop (TypedArray.map with a closure takes about 5x as long). */
function rowsAt(ids: Int32Array, positions: Int32Array): Int32Array {
  const out = new Int32Array(positions.length);
  for (let k = 0; k < positions.length; ++k) out[k] = ids[positions[k]];
  return out;
}

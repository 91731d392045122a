// A tensor spread over the ranks of a communicator: rows [r * rowsPerRank,
// (r + 1) * rowsPerRank) live with rank r. Continuous and chunked tensors are
// addressable whole from every rank; distributed ones only locally, and
// their gather/scatter are collectives that move rows between ranks.
import * as fs from 'fs';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import {typedArrayFor, WholeMemoryBackend} from '../backend/backend_wholememory';
import {checkIndexArray, checkIndexTensor, indexError} from '../backend/index_validation';
import {deviceStatus} from '../native/device';
import {NativeDeviceMemory, NativeHostMemory} from '../native/addon';
import {beginSet, loadSet, ShardRecord} from '../util/committed_sets';
import {FileDigest, readFileNamed, readRecorded, sha256Hex, writeFileSynced} from '../util/files';
import {bytesOf, readRows, RowLayout, sendRows} from './distributed_rows';
import type {Group} from './group';
import {int32Ids} from '../util/arrays';
import {checkCapacity, checkRows, elementsOf} from './capacity';
import {memoryNative} from '../native/domains';

export type MemoryType = 'continuous' | 'chunked' | 'distributed';
export type MemoryLocation = 'device' | 'host';

const TYPE_CODES: {[t in MemoryType]: number} = {continuous: 0, chunked: 1, distributed: 2};
const DTYPES = ['float32', 'int32'] as const;
type RowDType = (typeof DTYPES)[number];

export interface MallocOptions {
  type?: MemoryType;
  location?: MemoryLocation;
  shape: number[];
  dtype?: tf.DataType;
  /** Rows per rank are a multiple of this. */
  minGranularity?: number;
  /**
   * Single process only (wm.malloc): the GPUs that hold the tensor, one part
   * each, mapped as one range (continuous) or chunks (chunked) that every
   * listed GPU reads over NVLink. Default: every GPU of the machine.
   */
  devices?: number[];
}

/** What save() writes to meta.json beside a rank's part. */
interface PartMeta {
  shape: number[];
  dtype: string;
  ranks: number;
  rowsPerRank: number;
  part: FileDigest;
}

const PART_FILE = 'part.bin';

function typedArray(dtype: RowDType, n: number): Float32Array | Int32Array {
  return typedArrayFor(dtype, n) as Float32Array | Int32Array;
}

function toIndices(indices: tf.Tensor | ArrayLike<number>, what: string): Int32Array {
  if (indices instanceof tf.Tensor) {
    if (indices.dtype !== 'int32') throw new TypeError(`${what}: indices must be int32, got ${indices.dtype}`);
    return Int32Array.from(indices.dataSync());
  }
  return int32Ids(indices, what);
}

export class WholeMemoryTensor {
  readonly stride: number[];
  readonly rowElements: number;
  private mem: NativeHostMemory | NativeDeviceMemory | undefined;
  /** Set by single-process malloc: the private communicator to close on free. */
  ownedCommunicator?: Group;

  private constructor(
    readonly comm: Group,
    readonly shape: number[],
    readonly dtype: RowDType,
    readonly type: MemoryType,
    readonly location: MemoryLocation,
    mem: NativeHostMemory | NativeDeviceMemory,
  ) {
    this.mem = mem;
    this.rowElements = shape.slice(1).reduce((a, b) => a * b, 1);
    this.stride = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  }

  /** @internal Collective; use comm.malloc(). */
  static allocate(comm: Group, opts: MallocOptions): WholeMemoryTensor {
    const {shape} = opts;
    const type = opts.type ?? 'continuous';
    const dtype = (opts.dtype ?? 'float32') as RowDType;
    const gpu = deviceStatus().gpu;
    const location = opts.location ?? (gpu ? 'device' : 'host');
    if (!Array.isArray(shape) || shape.length < 1 || !shape.every((d) => Number.isInteger(d) && d >= 0)) {
      throw new RangeError(`malloc: shape must be a non-empty array of non-negative integers, got ${JSON.stringify(shape)}`);
    }
    if (!(type in TYPE_CODES)) throw new RangeError(`malloc: type must be 'continuous', 'chunked' or 'distributed', got '${type}'`);
    if (!DTYPES.includes(dtype)) throw new TypeError(`malloc: dtype must be float32 or int32, got ${dtype}`);
    if (location !== 'host' && location !== 'device')
      throw new RangeError(`malloc: location must be 'device' or 'host', got '${location}'`);
    if (location === 'device' && !gpu) {
      throw new Error(`malloc: location 'device' needs a GPU (${deviceStatus().reason}); use location: 'host'`);
    }
    const granularity = opts.minGranularity ?? 1;
    if (!Number.isInteger(granularity) || granularity < 1)
      throw new RangeError(`malloc: minGranularity must be a positive integer, got ${granularity}`);
    const rowBytes =
      Math.max(
        1,
        shape.slice(1).reduce((a, b) => a * b, 1),
      ) * 4;
    checkRows('malloc', shape[0]);
    elementsOf('malloc', shape);
    // A GPU holds its part (one per rank, or per listed device); host memory holds the whole.
    const parts = location === 'device' ? (opts.devices?.length ?? comm.size) : type === 'distributed' ? comm.size : 1;
    checkCapacity(`malloc (${JSON.stringify(shape)} ${dtype}, ${type} ${location})`, Math.ceil(shape[0] / parts) * rowBytes, location);
    let mem: NativeHostMemory | NativeDeviceMemory;
    if (location === 'device') {
      const devices = WholeMemoryTensor.devicesFor(comm, type, opts.devices);
      mem = new (memoryNative().NativeDeviceMemory)(comm.nativeComm, TYPE_CODES[type], shape[0], rowBytes, granularity, devices);
    } else {
      if (opts.devices !== undefined) throw new RangeError(`malloc: devices applies to location 'device' only`);
      mem = new (memoryNative().NativeHostMemory)(comm.nativeComm, TYPE_CODES[type], shape[0], rowBytes, granularity);
    }
    return new WholeMemoryTensor(comm, shape, dtype, type, location, mem);
  }

  // One process may spread a tensor over several GPUs; many processes use one GPU each.
  private static devicesFor(comm: Group, type: MemoryType, devices: number[] | undefined): number[] | undefined {
    if (devices === undefined) return undefined;
    if (comm.size > 1)
      throw new RangeError(
        `malloc: devices is for single-process tensors (wm.malloc); with ${comm.size} ranks each rank's GPU holds its part`,
      );
    if (type === 'distributed')
      throw new RangeError(`malloc: type 'distributed' spans processes; in one process use 'continuous' or 'chunked'`);
    if (!Array.isArray(devices) || devices.length === 0 || !devices.every((d) => Number.isInteger(d) && d >= 0)) {
      throw new RangeError(`malloc: devices must be a non-empty array of GPU indices, got ${JSON.stringify(devices)}`);
    }
    return devices;
  }

  private live(what: string): NativeHostMemory | NativeDeviceMemory {
    if (this.mem === undefined) throw new Error(`${what}: the WholeMemory tensor was freed`);
    return this.mem;
  }

  get rows(): number {
    return this.shape[0];
  }

  /** @internal The native memory, for kernels that read it in place. */
  nativeMemory(what: string): NativeHostMemory | NativeDeviceMemory {
    return this.live(what);
  }

  get rowsPerRank(): number {
    return this.live('rowsPerRank').rowsPerRank;
  }

  /** The rows this rank holds: [first, first + count). */
  get localRange(): {first: number; count: number} {
    const m = this.live('localRange');
    return {first: m.localFirstRow, count: m.localRowCount};
  }

  /** This rank's rows as a tfjs tensor (a copy: other ranks may write the memory at any time). */
  localSlice(): tf.Tensor {
    const {count} = this.localRange;
    const out = typedArray(this.dtype, count * this.rowElements);
    this.live('localSlice').readLocal(out);
    return tf.tensor(out, [count, ...this.shape.slice(1)], this.dtype);
  }

  /** Writes this rank's rows (values: [localRange.count, ...rowShape]). */
  writeLocal(values: tf.Tensor | Float32Array | Int32Array): void {
    const data = values instanceof tf.Tensor ? values.dataSync() : values;
    if (data.length !== this.localRange.count * this.rowElements) {
      throw new RangeError(`writeLocal: expected ${this.localRange.count * this.rowElements} values, got ${data.length}`);
    }
    // Typed arrays of the tensor's own type go as they are (a rank's slice of a graph is large).
    const typed =
      this.dtype === 'float32'
        ? data instanceof Float32Array
          ? data
          : Float32Array.from(data)
        : data instanceof Int32Array
          ? data
          : Int32Array.from(data);
    this.live('writeLocal').writeLocal(typed);
  }

  private checkIndices(what: string, idx: Int32Array): void {
    checkIndexArray(idx, this.rows, what, 'tensor');
  }

  private badIndex(what: string, idx: Int32Array, at: number): Error {
    return indexError(what, idx[at], at, this.rows, 'tensor');
  }

  /**
   * Rows at `indices` as a tfjs tensor [n, ...rowShape]. For distributed
   * tensors this is a collective: every rank calls it (with its own indices).
   */
  gather(indices: tf.Tensor | ArrayLike<number>): tf.Tensor {
    if (this.onGpu) {
      // Indices may stay on the GPU: a tensor is checked once, then reused freely.
      const mem = this.live('gather');
      const ids = indices instanceof tf.Tensor ? indices : tf.tensor1d(int32Ids(indices, 'gather'), 'int32');
      try {
        if (ids.dtype !== 'int32') throw new TypeError(`gather: indices must be int32, got ${ids.dtype}`);
        // Distributed gathers check indices inside the collective, so that
        // every rank fails together instead of leaving the others waiting.
        if (this.type !== 'distributed') checkIndexTensor(ids, this.rows, 'gather', 'tensor');
        const b = tf.backend() as WholeMemoryBackend;
        const {info, ptr} = b.makeDeviceOutput([ids.size, ...this.shape.slice(1)], this.dtype);
        const run = this.type === 'distributed' ? this.rowElements > 0 : ids.size && this.rowElements;
        if (run) {
          if (this.location === 'device') (mem as NativeDeviceMemory).gather(b.devicePtr(ids), ids.size, ptr, 0);
          else (mem as NativeHostMemory).deviceGather(b.devicePtr(ids), ids.size, ptr, 0);
        }
        return tf.engine().makeTensorFromTensorInfo(info);
      } finally {
        if (ids !== indices) ids.dispose();
      }
    }
    const idx = toIndices(indices, 'gather');
    const shape = [idx.length, ...this.shape.slice(1)];
    const out = typedArray(this.dtype, idx.length * this.rowElements);
    if (this.type === 'distributed') {
      this.exchangeGather(idx, out);
    } else {
      const bad = (this.live('gather') as NativeHostMemory).gather(idx, out);
      if (bad >= 0) throw this.badIndex('gather', idx, bad);
    }
    return tf.tensor(out, shape, this.dtype);
  }

  // Rows move by GPU kernels: device memory always; host memory on a GPU
  // machine too (pinned and mapped, read over the bus), except distributed
  // host memory, whose remote rows are not mapped here.
  private get onGpu(): boolean {
    return this.location === 'device' || (deviceStatus().gpu && this.type !== 'distributed');
  }

  /** Writes rows; for distributed tensors a collective. Later duplicates win. */
  scatter(indices: tf.Tensor | ArrayLike<number>, values: tf.Tensor | Float32Array | Int32Array): void {
    const idx = toIndices(indices, 'scatter');
    const data = values instanceof tf.Tensor ? values.dataSync() : values;
    if (data.length !== idx.length * this.rowElements) {
      throw new RangeError(`scatter: values hold ${data.length} elements, indices need ${idx.length} rows of ${this.rowElements}`);
    }
    const typed = this.dtype === 'float32' ? Float32Array.from(data) : Int32Array.from(data);
    if (this.onGpu) {
      const mem = this.live('scatter');
      if (this.type !== 'distributed') this.checkIndices('scatter', idx);
      const b = tf.backend() as WholeMemoryBackend;
      const ids = tf.tensor1d(idx, 'int32');
      const vals = tf.tensor(typed, [idx.length * this.rowElements], this.dtype);
      try {
        if (this.type === 'distributed' ? this.rowElements > 0 : idx.length && this.rowElements) {
          if (this.location === 'device') (mem as NativeDeviceMemory).scatter(b.devicePtr(ids), idx.length, b.devicePtr(vals), 0);
          else (mem as NativeHostMemory).deviceScatter(b.devicePtr(ids), idx.length, b.devicePtr(vals), 0);
        }
      } finally {
        tf.dispose([ids, vals]);
      }
    } else if (this.type === 'distributed') {
      this.exchangeScatter(idx, typed);
    } else {
      const bad = (this.live('scatter') as NativeHostMemory).scatter(idx, typed);
      if (bad >= 0) throw this.badIndex('scatter', idx, bad);
    }
  }

  // Distributed host memory: rows travel to and from their owners through
  // the communicator (on GPUs, distributed memory uses NCCL natively).
  private get layout(): RowLayout {
    return {comm: this.comm, rows: this.rows, rowsPerRank: this.rowsPerRank, rowBytes: this.rowElements * 4, noun: 'tensor'};
  }

  private exchangeGather(idx: Int32Array, out: Float32Array | Int32Array): void {
    const mem = this.live('gather') as NativeHostMemory;
    const base = this.comm.rank * this.rowsPerRank;
    const bytes = readRows(
      this.layout,
      idx,
      (local) => {
        const buf = typedArray(this.dtype, local.length * this.rowElements);
        if (local.length)
          mem.gather(
            Int32Array.from(local, (r) => r + base),
            buf,
          );
        return bytesOf(buf);
      },
      'gather',
    );
    bytesOf(out).set(bytes);
  }

  private exchangeScatter(idx: Int32Array, values: Float32Array | Int32Array): void {
    const mem = this.live('scatter') as NativeHostMemory;
    const base = this.comm.rank * this.rowsPerRank;
    // Arrivals come in rank order, so duplicates resolve the same way everywhere.
    sendRows(
      this.layout,
      idx,
      bytesOf(values),
      (local, v) => {
        if (local.length)
          mem.scatter(
            Int32Array.from(local, (r) => r + base),
            v,
          );
      },
      'scatter',
    );
  }

  /**
   * Collective: each rank writes its rows and their record (shape, size, SHA-256) as its shard of one
   * set, committed once every rank's is whole (util/committed_sets.ts): a save killed on any rank
   * leaves the previous save the one loaded. `dir` must be a folder only this user (or root) can write.
   */
  save(dir: string): void {
    const {count} = this.localRange;
    const data = typedArray(this.dtype, count * this.rowElements);
    this.live('save').readLocal(data);
    const bytes = new Uint8Array(data.buffer);
    const set = beginSet(dir, this.comm, 'save');
    try {
      writeFileSynced(path.join(set.folder, PART_FILE), bytes);
      const meta: PartMeta = {
        shape: this.shape,
        dtype: this.dtype,
        ranks: this.comm.size,
        rowsPerRank: this.rowsPerRank,
        part: {bytes: bytes.byteLength, sha256: sha256Hex(bytes)},
      };
      const metaBytes = new TextEncoder().encode(JSON.stringify(meta));
      writeFileSynced(path.join(set.folder, 'meta.json'), metaBytes);
      set.commit({step: 0, digest: sha256Hex(metaBytes)});
    } catch (e) {
      set.abandon();
      throw e;
    }
  }

  /**
   * Collective: reads the newest save every rank holds whole (same shape, dtype and number of ranks).
   * Every rank checks its record and part (size, SHA-256) first; if a rank's check fails, the save
   * before it is tried, and if none passes every rank throws naming the rank and file; no rank's rows
   * change until every rank has read its part.
   */
  load(dir: string): void {
    const {value} = loadSet(dir, this.comm, 'load', (folder, record) => this.readPart(folder, record));
    this.live('load').writeLocal(value);
    this.comm.barrier();
  }

  private readPart(folder: string, record: ShardRecord): Float32Array | Int32Array {
    const metaFile = path.join(folder, 'meta.json');
    const text = readFileNamed(metaFile, 'load');
    if (sha256Hex(text) !== record.digest)
      throw new Error(`load: ${metaFile} does not match its digest in the commit (damaged or replaced)`);
    let meta: PartMeta;
    try {
      meta = JSON.parse(text.toString('utf8'));
    } catch (e) {
      throw new Error(`load: ${metaFile} is not valid JSON (${(e as Error).message})`);
    }
    const bad = (what: string) => new Error(`load: ${metaFile}: ${what}`);
    if (typeof meta !== 'object' || meta === null) throw bad('not an object');
    if (JSON.stringify(meta.shape) !== JSON.stringify(this.shape) || meta.dtype !== this.dtype || meta.ranks !== this.comm.size) {
      throw bad(
        `holds shape [${meta.shape}] ${meta.dtype} over ${meta.ranks} ranks, this tensor is [${this.shape}] ${this.dtype} over ${this.comm.size}`,
      );
    }
    if (meta.rowsPerRank !== this.rowsPerRank) throw bad(`rowsPerRank is ${meta.rowsPerRank}, this tensor has ${this.rowsPerRank}`);
    const listed = meta.part;
    if (!listed || !Number.isSafeInteger(listed.bytes) || typeof listed.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(listed.sha256))
      throw bad(`part needs bytes and sha256 (64 hex digits), got ${JSON.stringify(listed)}`);
    const file = path.join(folder, PART_FILE);
    const bytes = readRecorded(file, listed, metaFile, 'load');
    const expected = this.localRange.count * this.rowElements * 4;
    if (bytes.length !== expected) throw new Error(`load: ${file} holds ${bytes.length} bytes, this rank's rows need ${expected}`);
    const data = typedArray(this.dtype, expected / 4);
    new Uint8Array(data.buffer).set(bytes);
    return data;
  }

  /** Collective: frees the memory on every rank. Using the tensor afterwards throws. */
  free(): void {
    this.live('free');
    this.comm.barrier();
    this.release();
    if (this.ownedCommunicator) this.ownedCommunicator.destroy();
  }

  /** @internal Local release (finalize/destroy paths). */
  release(): void {
    this.mem?.free();
    this.mem = undefined;
    this.comm.forget(this);
  }

  get freed(): boolean {
    return this.mem === undefined;
  }
}

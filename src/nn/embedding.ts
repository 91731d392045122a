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

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {checkIndexArray, checkIndexTensor, indexError, knownValid, markValid} from '../backend/index_validation';
import {NativeDeviceMemory, NativeHostMemory, NativeOptimizerParams, NativeTable, OptBuf} from '../native/addon';
import {deviceStatus} from '../native/device';
import {Communicator, soloCommunicator} from '../memory/communicator';
import {bytesOf, readRows, RowLayout, sendRows} from '../memory/distributed_rows';
import {optimizerCode, sgd, SparseOptimizerConfig, stateCount, stepParams} from './sparse_optimizer';
import {int32Ids} from '../util/arrays';
import {checkSeed} from '../util/random';
import {checkCapacity, checkRows} from '../memory/capacity';
import {embeddingNative} from '../native/domains';

// add(): the SGD rule with lr = -1 and no weight decay (w - (-1) g is w + g exactly).
const ADD_RULE = {code: optimizerCode(sgd()), params: {...stepParams(sgd(), 1), lr: -1, weightDecay: 0}};

export type EmbeddingDType = 'float32' | 'float16' | 'bfloat16';
export type EmbeddingMemory = 'device' | 'host' | 'continuous' | 'chunked' | 'distributed' | 'managed';

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
   * For 'continuous', 'chunked' and 'distributed': the group sharing the
   * table (default: this process alone). A distributed table's reads, writes
   * and steps are collectives: every rank calls them, with its own indices.
   */
  communicator?: Communicator;
}

const STORAGE = {float32: 0, float16: 1, bfloat16: 2} as const;
const INIT_KIND = {uniform: 0, normal: 1, zeros: 2} as const;

interface Store {
  where: 'device' | 'host';
  table: NativeTable;
  states: (number | ArrayBufferView | NativeHostMemory | NativeDeviceMemory | null)[];
  release(): void;
  /** 'distributed': this rank holds global rows [first, first + count) as `table`. */
  dist?: RowLayout & {first: number; count: number};
}

let anchors = 0;

// dataSync() of a float32 tensor is a Float32Array already; copy only if not.
const asFloat32 = (v: ArrayLike<number>) => (v instanceof Float32Array ? v : Float32Array.from(v));
const asInt32 = (v: ArrayLike<number>) => (v instanceof Int32Array ? v : Int32Array.from(v));

export class Embedding {
  readonly rows: number;
  readonly dim: number;
  readonly dtype: EmbeddingDType;
  readonly memory: EmbeddingMemory;
  readonly optimizer?: SparseOptimizerConfig;
  /** Carries the table's gradient through tfjs' optimizers (see the file comment). */
  readonly anchor: tf.Variable;
  private store: Store | undefined;
  private pending: {ids: tf.Tensor; grads: tf.Tensor}[] = [];
  private steps = 0;
  private skippedHost = 0;
  private skippedDevice = 0; // device uint64 counter
  // The group sharing a WholeMemory table, and whether we made it ourselves.
  private group?: Communicator;
  private comm?: Communicator;

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
    this.store = this.allocate(o, gpu);
    const init = o.init ?? {};
    const kind = INIT_KIND[init.type ?? 'normal'];
    if (kind === undefined) throw new RangeError(`embedding: init.type must be uniform, normal or zeros, got ${init.type}`);
    const scale = init.scale ?? 0.1;
    if (typeof scale !== 'number' || !(scale >= 0 && scale < Infinity))
      throw new RangeError(`embedding: init.scale must be a finite non-negative number, got ${scale}`);
    const seed = checkSeed('embedding: init', init.seed ?? 1);
    this.initialize(kind, scale, seed);
    this.anchor = tf.tidy(() => tf.variable(tf.scalar(0), true, `wm_embedding_anchor_${anchors++}`));
  }

  // Table and optimizer state against the memory they go to: a GPU holds its
  // rank's part of a group's table; host shared memory holds all of it.
  private checkFits(o: EmbeddingOptions, gpu: boolean): void {
    const states = this.optimizer ? stateCount(this.optimizer) : 0;
    const total = this.rows * this.dim * (this.storageBytes + 4 * states);
    const grouped = this.memory === 'continuous' || this.memory === 'chunked' || this.memory === 'distributed';
    const where = !gpu || this.memory === 'host' ? 'host' : this.memory === 'managed' ? 'managed' : 'device';
    const share = grouped && (where === 'device' || this.memory === 'distributed') ? Math.ceil(total / (o.communicator?.size ?? 1)) : total;
    checkCapacity(`embedding (${this.rows} x ${this.dim} ${this.dtype}, memory '${this.memory}')`, share, where);
  }

  private get backend(): WholeMemoryBackend {
    return tf.backend() as WholeMemoryBackend;
  }

  private get storageBytes(): number {
    return this.dtype === 'float32' ? 4 : 2;
  }

  private allocate(o: EmbeddingOptions, gpu: boolean): Store {
    const bytes = this.storageBytes;
    const n = this.rows * this.dim;
    const table: NativeTable = {rows: this.rows, dim: this.dim, storage: STORAGE[this.dtype]};
    const nStates = this.optimizer ? stateCount(this.optimizer) : 0;
    switch (this.memory) {
      case 'managed':
      case 'device': {
        // Without a GPU, managed memory is host memory.
        if (this.memory === 'managed' && !gpu) return this.allocateHost(table, n, bytes, nStates);
        if (!gpu) throw new Error(`embedding: memory 'device' needs a GPU (${deviceStatus().reason}); use 'host'`);
        const b = this.backend;
        if (!(b instanceof WholeMemoryBackend) || !b.gpu)
          throw new Error(`embedding: memory '${this.memory}' needs the 'wholememory' backend active`);
        return this.memory === 'managed'
          ? this.allocateFlat(
              table,
              n,
              bytes,
              nStates,
              (m) => b.allocManaged(m),
              (p) => b.freeDevice(p),
            )
          : this.allocateFlat(
              table,
              n,
              bytes,
              nStates,
              (m) => b.allocDevice(m),
              (p) => b.freeDevice(p),
            );
      }
      case 'host': {
        if (!gpu) return this.allocateHost(table, n, bytes, nStates);
        // With a GPU: pinned host memory mapped for it; the GPU kernels read it over the bus.
        const b = this.backend;
        return this.allocateFlat(
          table,
          n,
          bytes,
          nStates,
          (m) => b.native.pinnedHostAlloc(m),
          (p) => b.native.pinnedHostFree(p),
        );
      }
      case 'continuous':
      case 'chunked': {
        const comm = o.communicator ?? (this.comm = soloCommunicator());
        this.group = comm;
        if (gpu) return this.allocateDeviceWholeMemory(comm, table, bytes, nStates);
        const make = (type: number, rowBytes: number) =>
          new (embeddingNative().NativeHostMemory)(comm.nativeComm, type, this.rows, Math.max(rowBytes, 1), 1);
        const mem = make(this.memory === 'continuous' ? 0 : 1, this.dim * bytes);
        // Optimizer state beside the table: WholeMemory of the same rows (continuous: one address for the kernels).
        const states = Array.from({length: 2}, (_, i) => (i < nStates ? make(0, this.dim * 4) : null));
        table.memory = mem;
        return {
          where: 'host',
          table,
          states,
          release: () => {
            mem.free();
            states.forEach((s) => (s as NativeHostMemory | null)?.free());
            this.comm?.destroy();
          },
        };
      }
      case 'distributed': {
        // Each rank holds its rows in its own memory (GPU or host); rows move
        // through the communicator (NCCL on GPUs): tables that span hosts.
        const comm = o.communicator ?? (this.comm = soloCommunicator());
        this.group = comm;
        const rowsPerRank = Math.max(1, Math.ceil(this.rows / comm.size));
        const first = Math.min(this.rows, comm.rank * rowsPerRank);
        const count = Math.max(0, Math.min(this.rows, first + rowsPerRank) - first);
        const local: NativeTable = {rows: count, dim: this.dim, storage: STORAGE[this.dtype], rowBase: first};
        const b = this.backend;
        const store = gpu
          ? this.allocateFlat(
              local,
              count * this.dim,
              bytes,
              nStates,
              (m) => b.allocDevice(m),
              (p) => b.freeDevice(p),
            )
          : this.allocateHost(local, count * this.dim, bytes, nStates);
        const release = store.release;
        return {
          ...store,
          dist: {comm, rows: this.rows, rowsPerRank, rowBytes: this.dim * 4, noun: 'table', first, count},
          release: () => {
            release();
            this.comm?.destroy();
          },
        };
      }
      default:
        throw new RangeError(`embedding: memory must be device, host, continuous, chunked, distributed or managed, got '${this.memory}'`);
    }
  }

  // One buffer each for the table and its states, addressed by the GPU kernels.
  private allocateFlat(
    table: NativeTable,
    n: number,
    bytes: number,
    nStates: number,
    alloc: (bytes: number) => number,
    free: (ptr: number) => void,
  ): Store {
    const b = this.backend;
    table.ptr = alloc(n * bytes);
    const states = Array.from({length: 2}, (_, i) => {
      if (i >= nStates) return 0;
      const p = alloc(n * 4);
      b.native.fill(0, p, n, 0);
      return p;
    });
    const skipped = this.allocateSkippedCounter();
    return {
      where: 'device',
      table,
      states,
      release: () => {
        free(table.ptr!);
        states.forEach((p) => free(p as number));
        b.freeDevice(skipped);
      },
    };
  }

  // A device word counting skipped (non-finite) gradient elements.
  private allocateSkippedCounter(): number {
    const b = this.backend;
    this.skippedDevice = b.allocDevice(8);
    b.native.upload(this.skippedDevice, new BigUint64Array([0n]));
    return this.skippedDevice;
  }

  // WholeMemory on the GPUs: the table continuous (CUDA VMM) or chunked (CUDA
  // IPC); optimizer state continuous, so the kernels address it by one pointer.
  private allocateDeviceWholeMemory(comm: Communicator, table: NativeTable, bytes: number, nStates: number): Store {
    const b = this.backend;
    const make = (type: number, rowBytes: number) =>
      new (embeddingNative().NativeDeviceMemory)(comm.nativeComm, type, this.rows, Math.max(rowBytes, 1), 1);
    const mem = make(this.memory === 'continuous' ? 0 : 1, this.dim * bytes);
    const stateMems = Array.from({length: nStates}, () => make(0, this.dim * 4));
    for (const m of stateMems) m.writeLocal(new Float32Array(m.localRowCount * this.dim));
    table.memory = mem;
    const skipped = this.allocateSkippedCounter();
    const states = [stateMems[0]?.address ?? 0, stateMems[1]?.address ?? 0];
    return {
      where: 'device',
      table,
      states,
      release: () => {
        mem.free();
        stateMems.forEach((m) => m.free());
        b.freeDevice(skipped);
        this.comm?.destroy();
      },
    };
  }

  private allocateHost(table: NativeTable, n: number, bytes: number, nStates: number): Store {
    table.array = bytes === 4 ? new Float32Array(n) : new Uint16Array(n);
    const states = Array.from({length: 2}, (_, i) => (i < nStates ? new Float32Array(n) : null));
    return {where: 'host', table, states, release: () => {}};
  }

  // Managed tables tell the residency budget when the GPU is about to use them.
  private touchManaged(s: Store, b: WholeMemoryBackend): void {
    if (this.memory !== 'managed') return;
    b.residency.touch(s.table.ptr!, this.rows * this.dim * this.storageBytes);
    for (const st of s.states) if (typeof st === 'number' && st !== 0) b.residency.touch(st, this.rows * this.dim * 4);
  }

  private live(what: string): Store {
    if (this.store === undefined) throw new Error(`embedding.${what}: the table was disposed`);
    return this.store;
  }

  private initialize(kind: number, scale: number, seed: number): void {
    const s = this.live('init');
    // Shared tables: each rank fills its own rows, then everyone waits.
    const mem = s.table.memory;
    const [first, count] = mem ? [mem.localFirstRow, mem.localRowCount] : [0, s.dist ? s.dist.count : this.rows];
    embeddingNative().embeddingInit(s.table, first, count, seed, kind, scale, s.where === 'device');
    if (s.where === 'device') {
      this.touchManaged(s, this.backend);
      this.backend.native.synchronize();
    }
    // (Host WholeMemory state needs no zeroing: memfd pages are born zero.)
    // Nobody writes rows before every rank has initialised its own.
    this.group?.barrier();
  }

  private indices(ids: tf.Tensor | ArrayLike<number>, what: string): tf.Tensor {
    const t = ids instanceof tf.Tensor ? ids : tf.tensor1d(int32Ids(ids, `embedding.${what}`), 'int32');
    if (t.dtype !== 'int32') throw new TypeError(`embedding.${what}: indices must be int32, got ${t.dtype}`);
    return t;
  }

  private checkHost(idx: ArrayLike<number>, what: string): void {
    checkIndexArray(idx, this.rows, `embedding.${what}`);
  }

  /** Rows at `ids` (shape [...ids.shape, dim]), no gradient. */
  read(ids: tf.Tensor | ArrayLike<number>): tf.Tensor {
    const s = this.live('read');
    const idx = this.indices(ids, 'read');
    try {
      const shape = [...idx.shape, this.dim];
      const n = idx.size;
      if (s.dist) return this.readDistributed(s, s.dist, idx, shape);
      if (s.where === 'host') {
        const host = idx.dataSync() as Int32Array;
        const out = new Float32Array(n * this.dim);
        const bad = embeddingNative().embeddingGather(s.table, host, 0, host.length, out, null) as number;
        if (bad >= 0) throw indexError('embedding.read', host[bad], bad, this.rows);
        return tf.tensor(out, shape, 'float32');
      }
      const b = this.backend;
      const hostIds = b.data.get(idx.dataId).values as Int32Array | undefined;
      // Indices with a host copy are checked here; device-only ones by the kernel.
      const kernelChecks = hostIds == null && !knownValid(idx, this.rows);
      if (!kernelChecks) checkIndexTensor(idx, this.rows, 'embedding.read');
      const {info, ptr} = b.makeDeviceOutput(shape, 'float32');
      this.touchManaged(s, b);
      const launch = (flag: number) => {
        if (n > 0) b.native.embeddingGather(s.table, b.devicePtr(idx), 0, n, ptr, flag);
      };
      if (!kernelChecks) {
        launch(0);
      } else {
        const bad = b.withErrorFlag(launch);
        if (bad >= 0) {
          b.disposeData(info.dataId, true);
          throw indexError('embedding.read', idx.dataSync()[bad], bad, this.rows);
        }
        markValid(idx, this.rows);
      }
      return tf.engine().makeTensorFromTensorInfo(info);
    } finally {
      if (idx !== ids) idx.dispose();
    }
  }

  // Collective: every rank calls it with its own indices.
  private readDistributed(s: Store, d: NonNullable<Store['dist']>, idx: tf.Tensor, shape: number[]): tf.Tensor {
    if (s.where === 'host') {
      const out = readRows(
        d,
        asInt32(idx.dataSync()),
        (local) => {
          const rows = new Float32Array(local.length * this.dim);
          embeddingNative().embeddingGather(s.table, local, 0, local.length, rows, null);
          return bytesOf(rows);
        },
        'embedding.read',
      );
      return tf.tensor(new Float32Array(out.buffer), shape, 'float32');
    }
    const b = this.backend;
    const {info, ptr} = b.makeDeviceOutput(shape, 'float32');
    try {
      b.native.distributedEmbeddingGather(
        d.comm.nativeComm,
        s.table,
        this.rows,
        d.rowsPerRank,
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
          this.pending.push({ids: tf.keep(tf.reshape(saved[0], [-1])), grads: tf.keep(tf.reshape(dy, [-1, this.dim]))});
          return tf.zerosLike(anchor);
        },
      };
    }) as unknown as Parameters<typeof tf.customGrad>[0]);
    const out = f(this.anchor);
    rows.dispose();
    if (idx !== ids) idx.dispose();
    return out;
  }

  /** Overwrites rows with float32 values [n, dim] (rounded to the storage type). */
  write(ids: tf.Tensor | ArrayLike<number>, values: tf.Tensor | Float32Array): void {
    const s = this.live('write');
    const idx = this.indices(ids, 'write');
    try {
      const host = idx.dataSync() as Int32Array;
      // Distributed tables check indices inside the collective (every rank fails together).
      if (!s.dist) this.checkHost(host, 'write');
      const vals = values instanceof tf.Tensor ? values : tf.tensor(values, [host.length, this.dim]);
      if (vals.size !== host.length * this.dim)
        throw new RangeError(`embedding.write: values hold ${vals.size} elements, need ${host.length} x ${this.dim}`);
      if (s.dist && s.where === 'host') {
        sendRows(
          s.dist,
          asInt32(host),
          bytesOf(asFloat32(vals.dataSync())),
          (local, v) => embeddingNative().embeddingWriteRows(s.table, local, 0, local.length, new Float32Array(v.buffer), null),
          'embedding.write',
        );
      } else if (s.dist) {
        const b = this.backend;
        b.native.distributedEmbeddingWrite(
          s.dist.comm.nativeComm,
          s.table,
          this.rows,
          s.dist.rowsPerRank,
          host.length ? b.devicePtr(idx) : 0,
          host.length,
          host.length ? b.devicePtr(vals) : 0,
        );
      } else if (s.where === 'host') {
        embeddingNative().embeddingWriteRows(s.table, asInt32(host), 0, host.length, asFloat32(vals.dataSync()), null);
      } else {
        const b = this.backend;
        if (host.length) b.native.embeddingWriteRows(s.table, b.devicePtr(idx), 0, host.length, b.devicePtr(vals), 0);
      }
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
    const s = this.live(what);
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
      if (!s.dist) checkIndexTensor(idx, this.rows, `embedding.${what}`);
      const host = s.where === 'host' ? (idx.dataSync() as Int32Array) : undefined;
      const st0 = withState ? s.states[0] : null,
        st1 = withState ? s.states[1] : null;
      if (s.dist && s.where === 'host') {
        sendRows(
          s.dist,
          asInt32(host!),
          bytesOf(asFloat32(grads.dataSync())),
          (local, g) => {
            this.skippedHost += embeddingNative().embeddingApply(
              s.table,
              st0 as OptBuf,
              st1 as OptBuf,
              local,
              0,
              local.length,
              new Float32Array(g.buffer),
              code,
              params,
              null,
              null,
            ) as number;
          },
          `embedding.${what}`,
        );
      } else if (s.dist) {
        const b = this.backend;
        b.native.distributedEmbeddingApply(
          s.dist.comm.nativeComm,
          s.table,
          this.rows,
          s.dist.rowsPerRank,
          (st0 ?? 0) as number,
          (st1 ?? 0) as number,
          idx.size ? b.devicePtr(idx) : 0,
          idx.size,
          idx.size ? b.devicePtr(grads) : 0,
          code,
          params,
          this.skippedDevice,
        );
      } else if (s.where === 'host') {
        this.skippedHost += embeddingNative().embeddingApply(
          s.table,
          st0 as OptBuf | NativeHostMemory,
          st1 as OptBuf | NativeHostMemory,
          asInt32(host!),
          0,
          host!.length,
          asFloat32(grads.dataSync()),
          code,
          params,
          null,
          null,
        ) as number;
      } else if (idx.size > 0) {
        const b = this.backend;
        this.touchManaged(s, b);
        b.native.embeddingApply(
          s.table,
          (st0 ?? 0) as number,
          (st1 ?? 0) as number,
          b.devicePtr(idx),
          0,
          idx.size,
          b.devicePtr(grads),
          code,
          params,
          0,
          this.skippedDevice,
        );
      }
    } finally {
      if (idx !== ids) idx.dispose();
    }
  }

  /** Applies the gradients the lookups since the last step() collected (one optimizer step). */
  step(): void {
    if (this.pending.length === 0) return;
    const pending = this.pending;
    this.pending = [];
    try {
      const ids = pending.length === 1 ? pending[0].ids : tf.concat(pending.map((p) => p.ids));
      // Parts already checked make a checked whole: no second pass (on the GPU, a wait) over them.
      if (pending.length > 1 && pending.every((p) => knownValid(p.ids, this.rows))) markValid(ids, this.rows);
      const grads = pending.length === 1 ? pending[0].grads : tf.concat(pending.map((p) => p.grads));
      this.applyGradients(ids, grads);
      if (pending.length > 1) tf.dispose([ids, grads]);
    } finally {
      pending.forEach((p) => tf.dispose([p.ids, p.grads]));
    }
  }

  /** Rows this process owns in a checkpoint: all, or its slice of a shared WholeMemory table. */
  localRows(): {first: number; count: number} {
    const s = this.live('localRows');
    const mem = s.table.memory;
    if (s.dist) return {first: s.dist.first, count: s.dist.count};
    return mem ? {first: mem.localFirstRow, count: mem.localRowCount} : {first: 0, count: this.rows};
  }

  /** The table's rows (as float32) and optimizer state for this process's rows, for checkpoints. */
  exportState(): {rows: Float32Array; states: Float32Array[]; steps: number; skipped: number} {
    const s = this.live('exportState');
    const {first, count} = this.localRows();
    const ids = Int32Array.from({length: count}, (_, i) => first + i);
    const t = this.read(ids);
    const rows = t.dataSync() as Float32Array;
    t.dispose();
    // A distributed table's state holds only this rank's rows: offsets from its first.
    const at = s.dist ? 0 : first;
    const states = s.states.filter((x) => x !== null && x !== 0).map((st) => this.readState(st!, at, count));
    return {rows, states, steps: this.steps, skipped: this.skippedGradients()};
  }

  /** What exportState() returns here, without reading it: values per array and optimizer states. */
  exportStateShape(): {elements: number; states: number} {
    const s = this.live('exportStateShape');
    return {elements: this.localRows().count * this.dim, states: s.states.filter((x) => x !== null && x !== 0).length};
  }

  /** Restores what exportState() returned (same rows, dim, optimizer). */
  importState(state: {rows: Float32Array; states: Float32Array[]; steps: number}): void {
    const s = this.live('importState');
    const {first, count} = this.localRows();
    if (state.rows.length !== count * this.dim)
      throw new RangeError(`embedding.importState: ${state.rows.length} values for ${count} rows of ${this.dim}`);
    const live = s.states.filter((x) => x !== null && x !== 0);
    if (state.states.length !== live.length)
      throw new RangeError(`embedding.importState: ${state.states.length} optimizer states, the table has ${live.length}`);
    this.write(
      Int32Array.from({length: count}, (_, i) => first + i),
      state.rows,
    );
    const at = s.dist ? 0 : first;
    live.forEach((st, i) => this.writeState(st!, at, count, state.states[i]));
    this.steps = state.steps;
    if (s.where === 'device') this.backend.native.synchronize();
    this.group?.barrier();
  }

  private readState(st: number | ArrayBufferView | NativeHostMemory | NativeDeviceMemory, first: number, count: number): Float32Array {
    const out = new Float32Array(count * this.dim);
    if (typeof st === 'number') this.backend.native.download(st + first * this.dim * 4, out);
    else if ('readLocal' in st) st.readLocal(out);
    else out.set((st as Float32Array).subarray(first * this.dim, (first + count) * this.dim));
    return out;
  }

  private writeState(
    st: number | ArrayBufferView | NativeHostMemory | NativeDeviceMemory,
    first: number,
    count: number,
    v: Float32Array,
  ): void {
    if (typeof st === 'number') this.backend.native.upload(st + first * this.dim * 4, v);
    else if ('writeLocal' in st) st.writeLocal(v);
    else (st as Float32Array).set(v, first * this.dim);
  }

  /** Gradient elements skipped because they were NaN or infinite, since creation. */
  skippedGradients(): number {
    if (this.store?.where !== 'device') return this.skippedHost;
    const word = new BigUint64Array(1);
    this.backend.native.download(this.skippedDevice, word);
    return Number(word[0]);
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

// An embedding table the GPU kernels address: one buffer per array in device memory ('device'),
// CUDA managed memory ('managed', within the residency budget) or pinned host memory the GPU reads
// over the bus ('host'); or GPU WholeMemory shared by a group ('continuous' through CUDA VMM,
// 'chunked' through CUDA IPC), its optimizer state continuous so the kernels address it by one pointer.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../../backend/backend_wholememory';
import {checkIndexTensor, indexError, knownValid, markValid} from '../../backend/index_validation';
import type {NativeDeviceMemory, NativeOptimizerParams, NativeTable} from '../../native/addon';
import {deviceDetails} from '../../native/device';
import type {Communicator} from '../../memory/communicator';
import {embeddingNative, runtimeNative} from '../../native/domains';
import {listEntries} from '../../graph/sampled_subgraph';
import {optimizerCode, sgd} from '../sparse_optimizer';
import {deviceCounter, readCounter} from './device_counter';
import {
  AddressedTable,
  ApplyArgs,
  applyThroughGroup,
  nativeTable,
  NeighborLists,
  StateBuffer,
  TableRequest,
  TableStorage,
} from './table_storage';

// This process's GPU as the ranks of a host tell GPUs apart: its PCI bus id.
function gpuIdentity(): string {
  const d = deviceDetails().device;
  return runtimeNative().cudaSetup().gpus[d]?.pciBusId ?? `device ${d}`;
}

/** How the GPUs of a group's ranks reach each other, as a shared table's step needs to know. */
export interface GroupGpus {
  /** Some ranks drive one GPU (NCCL refuses them). */
  shared: boolean;
  /** Every rank's GPU is visible here and this GPU's atomics on each are native (NVLink). */
  peerAtomics: boolean;
}

// From every rank's GPU identity (gpuIdentity), in rank order.
function groupGpus(identities: string[]): GroupGpus {
  const gpus = runtimeNative().cudaSetup().gpus;
  const mine = gpus[deviceDetails().device];
  const shared = new Set(identities).size < identities.length;
  const peerAtomics =
    mine !== undefined &&
    identities.every((id) => {
      const j = gpus.findIndex((g) => g.pciBusId === id);
      return j >= 0 && mine.peerAtomics[j] === true;
    });
  return {shared, peerAtomics};
}

// SGD's step is a sum, which ranks can add to a row at once.
const SGD_CODE = optimizerCode(sgd());

/**
 * GPU-addressed arrays for `table` (`rows` of r.dim): the rows from `alloc`, zeroed state arrays beside them
 * (r.stateWidth a row), and a skipped-element counter; `release` frees all three.
 */
export function deviceArrays(
  b: WholeMemoryBackend,
  table: NativeTable,
  rows: number,
  r: TableRequest,
  alloc: (bytes: number) => number,
  free: (ptr: number) => void,
): {states: number[]; counter: number; release: () => void} {
  table.ptr = alloc(rows * r.dim * r.elementBytes);
  const states = Array.from({length: 2}, (_, i) => {
    if (i >= r.states) return 0;
    const n = rows * r.stateWidth;
    const p = alloc(n * 4);
    embeddingNative().fill(0, p, n, 0);
    return p;
  });
  const counter = deviceCounter(b);
  const release = () => {
    free(table.ptr!);
    states.forEach((p) => free(p));
    b.freeDevice(counter);
  };
  return {states, counter, release};
}

// One buffer's tables (pinned host, managed, device) can keep rows in a GPU cache; so can continuous
// WholeMemory (each rank its own read-only copies of rows, most of them on other GPUs); chunked cannot.
export class DeviceTable extends AddressedTable implements TableStorage {
  readonly where = 'device' as const;

  private constructor(
    private readonly b: WholeMemoryBackend,
    r: TableRequest,
    table: NativeTable,
    states: StateBuffer[],
    private readonly counter: number,
    freeAll: () => void,
    private readonly managed: boolean,
    group?: Communicator,
    memoryType?: number,
    private readonly groupGpu: GroupGpus = {shared: false, peerAtomics: false},
  ) {
    super(r, table, states, freeAll, b, group, memoryType);
  }

  // GPU WholeMemory (continuous or chunked). The ranks' block sizes are agreed on the host first (a rank that is
  // gone is named there). SGD without weight decay, on GPUs whose atomics reach each other: every rank adds its
  // own rows' steps to the table with atomic adds, ordered against every rank's reads by two one-word
  // all-reduces. Otherwise every rank's (idx, grads) gathered on every rank through NCCL, each rank applying
  // those of its own rows. Nothing waits for the GPU. Ranks that share a GPU (NCCL refuses them) send their
  // gradients to the owners through the communicator instead.
  applyAtOwners(...a: ApplyArgs): void {
    const [idx, grads, code, params, withState, what] = a;
    if (this.groupGpu.shared) return this.applyThroughHost(...a);
    const group = this.group!;
    const n = idx.size;
    // Every rank is here first, on the host: a rank that is gone is named now, not waited for on the GPU.
    const sizes = group.allgatherJson(n, `${what} (sizes)`);
    const [ids, g] = n ? [this.b.devicePtr(idx), this.b.devicePtr(grads)] : [0, 0];
    if (code === SGD_CODE && params.weightDecay === 0 && this.groupGpu.peerAtomics) {
      embeddingNative().sharedEmbeddingAdd(group.nativeComm, this.table, ids, n, g, params, this.counter);
      return;
    }
    const [s0, s1] = withState ? this.states : [0, 0];
    embeddingNative().ownerEmbeddingApply(
      group.nativeComm,
      this.table,
      this.first,
      this.count,
      s0 as number,
      s1 as number,
      ids,
      n,
      Math.max(...sizes),
      g,
      code,
      params,
      this.counter,
    );
  }

  // Each rank's (idx, grads) through the communicator to the rows' owners, applied there.
  private applyThroughHost(...[idx, grads, code, params, withState, what]: ApplyArgs): void {
    const rowsPerRank = (this.table.memory as NativeDeviceMemory).rowsPerRank;
    const applyOwn = (ids: Int32Array, g: Float32Array) => {
      tf.tidy(() => this.apply(tf.tensor1d(ids, 'int32'), tf.tensor2d(g, [ids.length, this.r.dim]), code, params, withState));
      embeddingNative().synchronize();
    };
    applyThroughGroup(this.group!, this.r, rowsPerRank, idx, grads, applyOwn, what);
  }

  /** One buffer each for the table and its states from `alloc` (device, managed or pinned host memory). */
  static buffers(
    b: WholeMemoryBackend,
    r: TableRequest,
    alloc: (bytes: number) => number,
    free: (ptr: number) => void,
    managed: boolean,
  ): DeviceTable {
    const table = nativeTable(r);
    const {states, counter, release} = deviceArrays(b, table, r.rows, r, alloc, free);
    return new DeviceTable(b, r, table, states, counter, release, managed);
  }

  /** GPU WholeMemory over `comm` (type 0 continuous, 1 chunked). */
  static wholeMemory(b: WholeMemoryBackend, r: TableRequest, comm: Communicator, type: number, onRelease: () => void): DeviceTable {
    const make = (t: number, rowBytes: number) =>
      new (embeddingNative().NativeDeviceMemory)(comm.nativeComm, t, r.rows, Math.max(rowBytes, 1), 1);
    const mem = make(type, r.dim * r.elementBytes);
    const stateMems = Array.from({length: r.states}, () => make(0, r.stateWidth * 4));
    for (const m of stateMems) m.writeLocal(new Float32Array(m.localRowCount * r.stateWidth));
    const table = nativeTable(r);
    table.memory = mem;
    const counter = deviceCounter(b);
    const states = [stateMems[0]?.address ?? 0, stateMems[1]?.address ?? 0];
    const freeAll = () => {
      mem.free();
      stateMems.forEach((m) => m.free());
      b.freeDevice(counter);
      onRelease();
    };
    const gpus = groupGpus(comm.size > 1 ? comm.allgatherJson(gpuIdentity(), 'embedding (GPUs)') : [gpuIdentity()]);
    return new DeviceTable(b, r, table, states, counter, freeAll, false, comm, type, gpus);
  }

  // Managed tables tell the residency budget when the GPU is about to use them.
  private touch(): void {
    if (!this.managed) return;
    const rows = this.r.rows;
    this.b.residency.touch(this.table.ptr!, rows * this.r.dim * this.r.elementBytes);
    for (const st of this.states) if (typeof st === 'number' && st !== 0) this.b.residency.touch(st, rows * this.r.stateWidth * 4);
  }

  init(kind: number, scale: number, seed: number): void {
    embeddingNative().embeddingInit(this.table, this.first, this.count, seed, kind, scale, true);
    this.touch();
    embeddingNative().synchronize();
  }

  gather(idx: tf.Tensor, shape: number[], what: string): tf.Tensor {
    const b = this.b;
    const n = idx.size;
    const hostIds = b.data.get(idx.dataId).values as Int32Array | undefined;
    // Indices with a host copy are checked here; device-only ones by the kernel.
    const kernelChecks = hostIds == null && !knownValid(idx, this.r.rows);
    if (!kernelChecks) checkIndexTensor(idx, this.r.rows, what);
    const {info, ptr} = b.makeDeviceOutput(shape, 'float32');
    this.touch();
    const launch = (flag: number) => {
      if (n > 0) embeddingNative().embeddingGather(this.table, b.devicePtr(idx), 0, n, ptr, flag);
    };
    if (!kernelChecks) {
      launch(0);
    } else {
      const bad = b.withErrorFlag(launch);
      if (bad >= 0) {
        b.disposeData(info.dataId, true);
        throw indexError(what, idx.dataSync()[bad], bad, this.r.rows);
      }
      markValid(idx, this.r.rows);
    }
    this.cache?.count(b.devicePtr(idx), n);
    return tf.engine().makeTensorFromTensorInfo(info);
  }

  neighborRows(ids: tf.Tensor1D, lists: NeighborLists, numDst: number): [tf.Tensor2D, tf.Tensor2D] {
    const b = this.b;
    const dim = this.r.dim;
    this.touch();
    return b.deviceOutputs(
      [
        [numDst, dim],
        [numDst, dim],
      ],
      ([self, mean]) => {
        if (numDst === 0 || dim === 0) return;
        const at = b.devicePtr(ids);
        embeddingNative().embeddingGather(this.table, at, 0, numDst, self, 0);
        const [of, numIds] = lists.rows ? [0, 0] : [at, ids.size]; // the entries are rows: no ids to look them up in
        const entries = listEntries(lists);
        if ('fanout' in lists)
          embeddingNative().embeddingGatherMean(this.table, of, numIds, b.devicePtr(entries), numDst, lists.fanout, mean);
        else
          embeddingNative().embeddingGatherMeanCsr(this.table, of, numIds, b.devicePtr(lists.rowPtr), b.devicePtr(entries), numDst, mean);
        // Both read through the cache (the table's handle holds it); counted as the gather of every input row (the
        // entries themselves where they are rows). Given ids, the mean resolves them to slots and counts the hits.
        if (lists.rows) {
          this.cache?.count(at, ids.size);
          if (entries.size) this.cache?.count(b.devicePtr(entries), entries.size);
        } else {
          this.cache?.lookedUp(ids.size);
        }
      },
    ) as [tf.Tensor2D, tf.Tensor2D];
  }

  write(idx: tf.Tensor, values: tf.Tensor): void {
    if (idx.size) embeddingNative().embeddingWriteRows(this.table, this.b.devicePtr(idx), 0, idx.size, this.b.devicePtr(values), 0);
  }

  apply(idx: tf.Tensor, grads: tf.Tensor, code: number, params: NativeOptimizerParams, withState: boolean): void {
    if (idx.size === 0) return;
    this.touch();
    const [s0, s1] = withState ? this.states : [0, 0];
    embeddingNative().embeddingApply(
      this.table,
      s0 as number,
      s1 as number,
      this.b.devicePtr(idx),
      0,
      idx.size,
      this.b.devicePtr(grads),
      code,
      params,
      0,
      this.counter,
    );
  }

  skipped(): number {
    return readCounter(this.counter);
  }
}

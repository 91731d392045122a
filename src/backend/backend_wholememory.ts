// The 'wholememory' KernelBackend. It extends tfjs-backend-cpu's backend so
// that host data and every CPU kernel work unchanged, and adds device
// residency: a tensor's data may live on the host (values), on the GPU
// (device), or both while they agree. Tensors are immutable, so a copy never
// goes stale; native kernels write new device buffers.
import {MathBackendCPU} from '@tensorflow/tfjs-backend-cpu';
import {backend_util, BackendTimingInfo, DataId, DataType, engine, Tensor, TensorInfo, util} from '@tensorflow/tfjs-core';

import {claim, dropKept, escape, keptBytes, longerThanValues, release, soleOwner, take} from './host_pool';
import {ManagedResidency} from './managed_residency';
import {NativeAddon} from '../native/addon';
import {Buf, NativeDType} from '../native/ops';

export interface DeviceBuffer {
  ptr: number;
  bytes: number;
  /** CUDA managed (unified) memory rather than the device pool. */
  managed?: boolean;
  /** Memory the backend does not own (a shared buffer opened by wm.open): called instead of freeing it. */
  release?: () => void;
  /** An allocation several tensors share (a tensor and its views): freed when the last lets go. */
  owner?: SharedAllocation;
}

interface SharedAllocation {
  holders: number;
  free: () => void;
}

function letGo(owner: SharedAllocation): void {
  if (--owner.holders === 0) owner.free();
}

interface WmTensorData {
  values?: backend_util.BackendValues;
  dtype: DataType;
  complexTensorInfos?: {real: TensorInfo; imag: TensorInfo};
  refCount: number;
  device?: DeviceBuffer;
  /** On a machine without a GPU: the tensor was made managed (managed means host there). */
  managedHost?: boolean;
}

export interface WmMemoryInfo {
  unreliable: boolean;
  reasons: string[];
  numBytesInGPU: number;
  numBytesInGPUReserved: number;
  numBytesInGPUPeak: number;
  numGPUAllocations: number;
  /** Host buffers of disposed tensors kept for the next outputs of their size (host_pool.ts). */
  numBytesKeptOnHost: number;
}

const NO_ERROR = 0xffffffffffffffffn;

const NATIVE_DTYPES: {[d: string]: NativeDType} = {float32: NativeDType.F32, int32: NativeDType.I32, bool: NativeDType.Bool};

export function nativeDType(dtype: DataType): NativeDType | undefined {
  return NATIVE_DTYPES[dtype];
}

export function bytesPerElement(dtype: DataType): number {
  return dtype === 'bool' ? 1 : 4;
}

const ARRAY_OF: {[d: string]: Float32ArrayConstructor | Int32ArrayConstructor | Uint8ArrayConstructor} = {
  float32: Float32Array,
  int32: Int32Array,
  bool: Uint8Array,
};

function arrayOf(dtype: DataType): Float32ArrayConstructor | Int32ArrayConstructor | Uint8ArrayConstructor {
  const a = ARRAY_OF[dtype];
  if (!a) throw new Error(`dtype ${dtype} has no device representation`);
  return a;
}

export function typedArrayFor(dtype: DataType, size: number): Float32Array | Int32Array | Uint8Array {
  return new (arrayOf(dtype))(size);
}

// A kernel output on the host (hostOutput) is written whole by its kernel, as a device output is: not
// zeroed (a zeroed array costs a pass over its bytes, and fresh pages a fault each, which for a large output
// take as long as the kernel), from the host pool (a disposed tensor's buffer of its size class) or malloc.
// Small ones stay V8's own. WM_HOST_POISON=1 fills them with NaN (int32: 0x7fc00000, bool: 0xff) instead, so
// a kernel that leaves part of its output unwritten shows.
const UNZEROED_FROM_BYTES = 4096;
// deviceView: a slice of a parent larger than this views it only if it holds an eighth of its bytes (a small
// slice kept would otherwise keep a large parent alive).
const VIEW_PARENT_BYTES = 64 << 20;
const POISON = process.env.WM_HOST_POISON === '1';

// Device uploads need the exact array type of the dtype (some CPU kernels
// leave e.g. an Int32Array behind a float32 tensor).
function exactArray(values: backend_util.BackendValues, dtype: DataType): Float32Array | Int32Array | Uint8Array {
  if (dtype === 'float32') return values instanceof Float32Array ? values : Float32Array.from(values as ArrayLike<number>);
  if (dtype === 'int32') return values instanceof Int32Array ? values : Int32Array.from(values as ArrayLike<number>);
  if (dtype === 'bool') return values instanceof Uint8Array ? values : Uint8Array.from(values as ArrayLike<number>);
  throw new Error(`dtype ${dtype} has no device representation`);
}

/**
 * The active backend where it runs an op natively (this backend on a GPU or with its host kernels); undefined
 * where tfjs ops must compose it instead (another backend, or this one without its native core).
 */
export function nativeBackend(): WholeMemoryBackend | undefined {
  const b = engine().backend;
  return b instanceof WholeMemoryBackend && (b.gpu || b.hostKernels) ? b : undefined;
}

export class WholeMemoryBackend extends MathBackendCPU {
  /** True when tensors may live on the GPU and native kernels run. */
  readonly gpu: boolean;
  private disposed = false;
  // Buffers owned by live tensors (device pool or managed), freed on dispose() if still held.
  private readonly liveDevice = new Map<number, 'device' | 'managed'>();
  /** New tensors are managed memory (setEnabledUVM / TFJS_WHOLEMEMORY_UVM=1). */
  uvm = process.env.TFJS_WHOLEMEMORY_UVM === '1';
  readonly residency: ManagedResidency;
  private gpuIndex = -1;

  /** True when the C++ CPU kernels run on the host path (the addon loaded). */
  readonly hostKernels: boolean;

  constructor(
    readonly native: NativeAddon,
    gpu: boolean,
    hostKernels: boolean,
  ) {
    super();
    this.gpu = gpu;
    this.hostKernels = hostKernels;
    // Host kernel outputs are malloc's (hostOutput): let each step's reuse the last one's pages.
    if (hostKernels) native.keepHostBlocksInHeap();
    this.residency = new ManagedResidency(native, () => this.deviceIndex);
    // The CPU backend's "install tfjs-node" hint does not apply to us.
    (this as unknown as {firstUse: boolean}).firstUse = false;
  }

  private entry(dataId: DataId): WmTensorData {
    // An id neither we nor the engine know is a disposed tensor: say so
    // rather than let the engine try to move data that no longer exists.
    if (!this.data.has(dataId) && !(engine() as unknown as {state: {tensorInfo: WeakMap<DataId, unknown>}}).state.tensorInfo.has(dataId)) {
      throw new Error('Tensor is disposed: it was used after dispose() or outside the tidy() that owned it.');
    }
    const d = this.data.get(dataId) as WmTensorData | undefined;
    if (d === undefined) {
      throw new Error('wholememory backend: the tensor was disposed or belongs to another backend');
    }
    return d;
  }

  /** The GPU this process uses (asked once: the question costs a driver call). */
  get deviceIndex(): number {
    if (this.gpuIndex < 0) this.gpuIndex = this.gpu ? this.native.deviceDetails().device : 0;
    return this.gpuIndex;
  }

  /**
   * Runs launch(errorFlag) with a device word set to "no error" (all ones);
   * returns the first bad position a kernel recorded there, or -1. Costs one
   * small synchronous read.
   */
  withErrorFlag(launch: (flag: number) => void): number {
    const flag = this.allocDevice(8);
    try {
      this.native.upload(flag, new BigUint64Array([NO_ERROR]));
      launch(flag);
      const word = new BigUint64Array(1);
      this.native.download(flag, word);
      return word[0] === NO_ERROR ? -1 : Number(word[0]);
    } finally {
      this.freeDevice(flag);
    }
  }

  /** Whether the tensor's data is on the GPU (it may also be on the host). */
  isOnDevice(dataId: DataId): boolean {
    return this.entry(dataId).device !== undefined;
  }

  /** Whether the tensor's data is managed memory (on a machine without GPU: marked managed). */
  isManaged(dataId: DataId): boolean {
    const d = this.entry(dataId);
    return d.device?.managed === true || d.managedHost === true;
  }

  /**
   * Whether a kernel may overwrite t's device data in place: no other tensor
   * shares it (a variable alone, say) and it is plain device memory. After such
   * a write call deviceWritten(t): a host copy would be stale.
   */
  ownsDeviceData(t: TensorInfo): boolean {
    const d = this.entry(t.dataId);
    return d.refCount === 1 && d.device !== undefined && !d.device.managed && d.device.release === undefined;
  }

  /** Whether t's host values are a buffer of the backend's own that t alone sees, with no device copy: writable in place. */
  ownsHostData(t: TensorInfo): boolean {
    const d = this.entry(t.dataId);
    return d.refCount === 1 && d.device === undefined && d.values != null && soleOwner(d.values, t.dataId);
  }

  /** t's device data was overwritten in place: drop its host copy. */
  deviceWritten(t: TensorInfo): void {
    this.entry(t.dataId).values = undefined;
  }

  /** The device buffer of a tensor, if it has one. */
  deviceBuffer(dataId: DataId): DeviceBuffer | undefined {
    return this.entry(dataId).device;
  }

  /** Registers a new tensor over an existing buffer (the caller hands over ownership). */
  adoptBuffer(
    shape: number[],
    dtype: DataType,
    buf: DeviceBuffer | undefined,
    values?: backend_util.BackendValues,
    managedHost = false,
  ): TensorInfo {
    const dataId = {};
    const entry: WmTensorData = {dtype, refCount: 1, device: buf, values, managedHost};
    this.data.set(dataId, entry as never);
    return {dataId, shape, dtype};
  }

  /**
   * A tensor over x's device data (uploaded first where it is on the host only) from element `offset` on, of
   * `shape` (contiguous rows: a slice), without a copy. The allocation is then shared: freed when x and every view of it are gone (x disposed first, or moved
   * to another backend, leaves the views whole), and never written in place again (ownsDeviceData). Undefined,
   * for the caller to copy, where x's data is not plain device memory of this backend, the view would not start
   * 256-byte aligned (what kernels with vector loads assume of a buffer), or it would keep alive a parent of
   * more than VIEW_PARENT_BYTES eight times its size.
   */
  deviceView(x: TensorInfo, offset: number, shape: number[]): TensorInfo | undefined {
    if (!this.gpu) return undefined;
    this.devicePtr(x); // uploads x where its data is on the host only
    const dev = this.entry(x.dataId).device;
    if (dev === undefined || dev.managed || (dev.release !== undefined && dev.owner === undefined)) return undefined;
    const elem = bytesPerElement(x.dtype),
      start = dev.ptr + offset * elem,
      bytes = util.sizeFromShape(shape) * elem;
    if (bytes === 0 || start % 256 !== 0 || (dev.bytes > VIEW_PARENT_BYTES && bytes * 8 < dev.bytes)) return undefined;
    if (dev.owner === undefined) {
      const base = dev.ptr;
      const owner: SharedAllocation = {holders: 1, free: () => this.freeDevice(base)};
      dev.owner = owner;
      dev.release = () => letGo(owner);
    }
    const owner = dev.owner;
    ++owner.holders;
    return this.adoptBuffer(shape, x.dtype, {ptr: start, bytes, managed: false, owner, release: () => letGo(owner)});
  }

  /** Makes sure the data is on the host; downloads synchronously if needed. */
  ensureHost(dataId: DataId): void {
    const d = this.entry(dataId);
    if (d.values != null || d.device === undefined) return;
    const size = d.device.bytes / bytesPerElement(d.dtype);
    const out = typedArrayFor(d.dtype, size);
    this.native.download(d.device.ptr, out);
    d.values = out;
  }

  /** The host values in the dtype's exact array type (downloads if needed). */
  hostArray(t: TensorInfo): Float32Array | Int32Array | Uint8Array {
    this.ensureHost(t.dataId);
    const d = this.entry(t.dataId);
    const exact = exactArray(d.values!, d.dtype);
    d.values = exact;
    return exact;
  }

  /**
   * The value of a one-element tensor whose data is on the host (tfjs' scalars),
   * without a download or an upload; undefined for any other tensor.
   */
  hostScalar(t: TensorInfo): number | undefined {
    if (util.sizeFromShape(t.shape) !== 1) return undefined;
    const v = this.entry(t.dataId).values?.[0];
    return typeof v === 'number' ? v : undefined;
  }

  /** The device address of the tensor's data, uploading it first if needed. */
  devicePtr(t: TensorInfo): number {
    const d = this.entry(t.dataId);
    if (d.device !== undefined) {
      if (d.device.managed) this.residency.touch(d.device.ptr, d.device.bytes);
      return d.device.ptr;
    }
    if (d.values == null) throw new Error('wholememory backend: tensor has no data');
    const values = exactArray(d.values, d.dtype);
    const buf = this.allocTensorBuffer(values.byteLength);
    try {
      this.native.upload(buf.ptr, values);
    } catch (e) {
      this.freeDevice(buf.ptr);
      throw e;
    }
    d.device = buf;
    return buf.ptr;
  }

  /** A new tensor whose data lives only on the GPU; the kernel fills it. */
  makeDeviceOutput(shape: number[], dtype: DataType): {info: TensorInfo; ptr: number} {
    const buf = this.allocTensorBuffer(util.sizeFromShape(shape) * bytesPerElement(dtype));
    return {info: this.adoptBuffer(shape, dtype, buf), ptr: buf.ptr};
  }

  /**
   * A tensor over a buffer the addon allocated for it from the device pool (one call that allocates and
   * fills its outputs saves the allocations' own calls); freed with the tensor. Not with UVM on: tensors
   * are then managed memory, which makeDeviceOutput allocates.
   */
  adoptDeviceAllocation(shape: number[], dtype: DataType, ptr: number): TensorInfo {
    this.liveDevice.set(ptr, 'device');
    return this.adoptBuffer(shape, dtype, {ptr, bytes: util.sizeFromShape(shape) * bytesPerElement(dtype), managed: false});
  }

  /**
   * New device tensors of these shapes, written by `fill` (given their
   * addresses). If fill throws, they are freed before the error goes on.
   */
  deviceOutputs(shapes: number[][], fill: (ptrs: number[]) => void, dtype: DataType = 'float32'): Tensor[] {
    const outs = shapes.map((shape) => this.makeDeviceOutput(shape, dtype));
    try {
      fill(outs.map((o) => o.ptr));
    } catch (e) {
      for (const o of outs) this.disposeData(o.info.dataId, true);
      throw e;
    }
    return outs.map((o) => engine().makeTensorFromTensorInfo(o.info));
  }

  /**
   * New float32 tensors of these shapes, written whole by a native op that `run` calls with the inputs' and the
   * outputs' buffers: device addresses on the GPU, typed arrays on the host (from the host pool: hostOutputs; the
   * addon's ops take either).
   */
  nativeOutputs(inputs: TensorInfo[], shapes: number[][], run: (ins: Buf[], outs: Buf[]) => void): Tensor[] {
    if (this.gpu)
      return this.deviceOutputs(shapes, (outs) =>
        run(
          inputs.map((t) => this.devicePtr(t)),
          outs,
        ),
      );
    return this.hostOutputs(shapes, (outs) =>
      run(
        inputs.map((t) => this.hostArray(t)),
        outs,
      ),
    );
  }

  // A tensor's buffer: managed memory while UVM is on, else the device pool.
  private allocTensorBuffer(bytes: number): DeviceBuffer {
    const managed = this.uvm;
    const ptr = managed ? this.allocManaged(bytes) : this.allocDevice(bytes);
    if (managed) this.residency.touch(ptr, bytes);
    return {ptr, bytes, managed};
  }

  /** Scratch device memory for a kernel; pair with freeDevice. */
  allocDevice(bytes: number): number {
    const ptr = this.native.alloc(bytes);
    if (ptr !== 0) this.liveDevice.set(ptr, 'device');
    return ptr;
  }

  /** Managed (unified) memory from the caching managed allocator. */
  allocManaged(bytes: number): number {
    const ptr = this.native.managedAlloc(bytes);
    if (ptr !== 0) this.liveDevice.set(ptr, 'managed');
    return ptr;
  }

  /** Frees a buffer from allocDevice or allocManaged. */
  freeDevice(ptr: number): void {
    if (ptr === 0) return;
    const kind = this.liveDevice.get(ptr);
    this.liveDevice.delete(ptr);
    if (kind === 'managed') {
      this.residency.forget(ptr);
      this.native.managedFree(ptr);
    } else {
      this.native.free(ptr);
    }
  }

  /**
   * A new host tensor for a kernel to write whole, and its values (see UNZEROED_FROM_BYTES). Its buffer, where
   * the pool gave it, is claimed for it here: tensors written from elsewhere (a user's arrays, tfjs' scalars)
   * are never pooled and are not looked at (reading a small array's buffer costs V8 an allocation).
   */
  hostOutput(shape: number[], dtype: DataType): {info: TensorInfo; values: Float32Array | Int32Array | Uint8Array} {
    const size = util.sizeFromShape(shape),
      bytes = size * bytesPerElement(dtype);
    if (bytes < UNZEROED_FROM_BYTES && !POISON) {
      const values = typedArrayFor(dtype, size);
      return {info: this.makeTensorInfo(shape, dtype, values), values};
    }
    const buffer = take(bytes);
    if (POISON) {
      new Uint32Array(buffer, 0, bytes >> 2).fill(0x7fc00000);
      new Uint8Array(buffer, bytes & ~3, bytes & 3).fill(0xff);
    }
    const values = new (arrayOf(dtype))(buffer, 0, size);
    const info = this.makeTensorInfo(shape, dtype, values);
    claim(values, info.dataId);
    return {info, values};
  }

  /**
   * New float32 host tensors of these shapes for native code to write whole (`fill` given their arrays), from the
   * host pool as hostOutput's are. If fill throws, they are freed before the error goes on.
   */
  hostOutputs(shapes: number[][], fill: (values: Float32Array[]) => void): Tensor[] {
    const outs = shapes.map((shape) => this.hostOutput(shape, 'float32'));
    try {
      fill(outs.map((o) => o.values as Float32Array));
    } catch (e) {
      for (const o of outs) this.disposeData(o.info.dataId, true);
      throw e;
    }
    return outs.map((o) => engine().makeTensorFromTensorInfo(o.info));
  }

  /** A CPU kernel's outputs may view an input's memory (a slice's subarray): such a buffer is never pooled again. */
  claimOutputs(outputs: TensorInfo | TensorInfo[]): void {
    for (const t of Array.isArray(outputs) ? outputs : [outputs]) {
      const d = this.data.get(t.dataId) as WmTensorData | undefined;
      if (d?.values != null) claim(d.values, t.dataId);
    }
  }

  override write(values: backend_util.BackendValues, shape: number[], dtype: DataType): DataId {
    const id = super.write(values, shape, dtype);
    // Without a GPU, UVM's managed memory is host memory: mark what it made.
    if (this.uvm && !this.gpu) (this.data.get(id) as WmTensorData).managedHost = true;
    return id;
  }

  // Values handed out leave the host pool for good; those of a longer pooled buffer are replaced by an
  // exact copy first (a reader's array spans its own buffer), the pooled one going back.
  private handOut(dataId: DataId): void {
    const d = this.entry(dataId);
    if (longerThanValues(d.values)) {
      const exact = (d.values as Float32Array).slice();
      release(d.values, dataId);
      d.values = exact;
    } else {
      escape(d.values);
    }
  }

  override readSync(dataId: DataId): backend_util.BackendValues {
    this.ensureHost(dataId);
    this.handOut(dataId);
    return super.readSync(dataId);
  }

  // Never blocks the event loop: the copy is queued now and awaited on a
  // worker thread.
  override async read(dataId: DataId): Promise<backend_util.BackendValues> {
    const d = this.entry(dataId);
    if (d.values == null && d.device !== undefined) {
      const out = typedArrayFor(d.dtype, d.device.bytes / bytesPerElement(d.dtype));
      await this.native.readAsync(d.device.ptr, out);
      const now = this.data.get(dataId) as WmTensorData | undefined;
      if (now !== undefined && now.values == null) now.values = out;
      return out;
    }
    this.handOut(dataId);
    return super.read(dataId);
  }

  // tfjs-backend-cpu's disposeData (reference counts, complex parts) with the device buffer freed, in one
  // lookup and one delete: calling it and checking after took about a dozen WeakMap operations per tensor.
  override disposeData(dataId: DataId, force = false): boolean {
    // has() first: get() of an unknown id asks the engine to move data in.
    if (!this.data.has(dataId)) return true;
    const d = this.data.get(dataId) as WmTensorData;
    if (--d.refCount > 0 && !force) return false;
    if (d.complexTensorInfos != null) {
      this.disposeData(d.complexTensorInfos.real.dataId, true);
      this.disposeData(d.complexTensorInfos.imag.dataId, true);
    }
    this.data.delete(dataId);
    if (d.values != null) release(d.values, dataId);
    const device = d.device;
    if (device !== undefined) {
      if (device.release) device.release();
      else this.freeDevice(device.ptr);
    }
    return true;
  }

  override memory(): WmMemoryInfo {
    const base = super.memory();
    const info: WmMemoryInfo = {
      ...base,
      numBytesInGPU: 0,
      numBytesInGPUReserved: 0,
      numBytesInGPUPeak: 0,
      numGPUAllocations: 0,
      numBytesKeptOnHost: keptBytes(),
    };
    if (this.gpu) {
      const m = this.native.memoryInfo();
      info.numBytesInGPU = m.bytesInUse;
      info.numBytesInGPUReserved = m.bytesReserved;
      info.numBytesInGPUPeak = m.peakBytesInUse;
      info.numGPUAllocations = m.allocations;
    }
    return info;
  }

  // time() synchronizes around f, so tf.profile gets each kernel's own time.
  override timerAvailable(): boolean {
    return true;
  }

  override async time(f: () => void): Promise<BackendTimingInfo> {
    if (this.gpu) this.native.synchronize();
    const start = util.now();
    f();
    if (this.gpu) this.native.synchronize();
    return {kernelMs: util.now() - start};
  }

  override dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const ptr of [...this.liveDevice.keys()]) this.freeDevice(ptr);
    dropKept();
    super.dispose();
  }
}

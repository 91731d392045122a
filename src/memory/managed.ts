// Managed (unified) memory tensors, after PyTorch's "Unified Memory for
// PyTorch" RFC, in tfjs' idiom. With UVM on, new tensors are CUDA managed
// memory: the GPU and the CPU address the same bytes and pages move on
// demand; to() moves a managed tensor by advice and prefetch, without a copy.
// On a machine without a GPU the API works: managed memory is host memory,
// and isManaged() reports what manage()/UVM marked.
import * as tf from '@tensorflow/tfjs-core';

import {bytesPerElement, WholeMemoryBackend} from '../backend/backend_wholememory';
import {deviceStatus} from '../native/device';
import {memoryNative} from '../native/domains';

function backend(): WholeMemoryBackend {
  const b = tf.backend();
  if (!(b instanceof WholeMemoryBackend)) throw new Error("managed memory needs the 'wholememory' backend active");
  return b;
}

/** New tensors are managed memory when on (default off; TFJS_WHOLEMEMORY_UVM=1 at start turns it on). */
export function setEnabledUVM(on: boolean): void {
  backend().uvm = Boolean(on);
}

export function getEnabledUVM(): boolean {
  return backend().uvm;
}

export function isManaged(t: tf.Tensor): boolean {
  return backend().isManaged(t.dataId);
}

function view(t: tf.Tensor): tf.Tensor {
  backend().incRef(t.dataId);
  return tf.engine().makeTensorFromTensorInfo({dataId: t.dataId, shape: t.shape, dtype: t.dtype});
}

function nativeDTypeOk(t: tf.Tensor, what: string): void {
  if (!['float32', 'int32', 'bool'].includes(t.dtype)) throw new TypeError(`${what}: dtype ${t.dtype} has no device representation`);
}

/** A managed copy of t (t itself stays as it is). */
export function manage(t: tf.Tensor): tf.Tensor {
  const b = backend();
  nativeDTypeOk(t, 'manage');
  if (!b.gpu) {
    const info = b.adoptBuffer(t.shape, t.dtype, undefined, b.hostArray(t).slice(), true);
    return tf.engine().makeTensorFromTensorInfo(info);
  }
  const bytes = t.size * bytesPerElement(t.dtype);
  const ptr = b.allocManaged(bytes);
  const src = b.devicePtr(t);
  if (bytes) memoryNative().copyDeviceToDevice(ptr, src, bytes);
  return tf.engine().makeTensorFromTensorInfo(b.adoptBuffer(t.shape, t.dtype, {ptr, bytes, managed: true}));
}

/** An ordinary (device pool, or plain host) copy of t. */
export function unmanage(t: tf.Tensor): tf.Tensor {
  const b = backend();
  nativeDTypeOk(t, 'unmanage');
  if (!b.gpu) return tf.engine().makeTensorFromTensorInfo(b.adoptBuffer(t.shape, t.dtype, undefined, b.hostArray(t).slice()));
  const bytes = t.size * bytesPerElement(t.dtype);
  const ptr = b.allocDevice(bytes);
  const src = b.devicePtr(t);
  if (bytes) memoryNative().copyDeviceToDevice(ptr, src, bytes);
  return tf.engine().makeTensorFromTensorInfo(b.adoptBuffer(t.shape, t.dtype, {ptr, bytes, managed: false}));
}

function parseDevice(device: string): number {
  if (device === 'cpu') return -1;
  const m = /^cuda:(\d+)$/.exec(device);
  if (!m) throw new RangeError(`to: device must be 'cpu' or 'cuda:N', got '${device}'`);
  const n = Number(m[1]);
  const s = deviceStatus();
  if (!s.gpu) throw new Error(`to: '${device}' needs a GPU (${s.reason})`);
  const current = backend().deviceIndex;
  if (n !== current) throw new RangeError(`to: this process uses cuda:${current}; '${device}' is another process's GPU`);
  return n;
}

export interface ToOptions {
  /** Return before the prefetch finishes; the caller synchronises (wm.synchronize()) before touching the data from the CPU. */
  nonBlocking?: boolean;
  /** Convert while moving (always a copy). */
  dtype?: tf.DataType;
}

/**
 * Moves t to 'cpu' or 'cuda:N'. A managed tensor is not copied: the result
 * shares its memory, with the preferred location and accessed-by advice set
 * and the pages prefetched (to 'cpu' this waits unless nonBlocking). A dtype
 * change or an unmanaged tensor copies.
 */
export function to(t: tf.Tensor, device: string, opts: ToOptions = {}): tf.Tensor {
  const b = backend();
  const where = parseDevice(device);
  if (opts.dtype !== undefined && opts.dtype !== t.dtype) return to(tf.cast(t, opts.dtype), device, {...opts, dtype: undefined});
  if (!b.gpu) return view(t); // everything is host memory here
  const buf = b.deviceBuffer(t.dataId);
  if (buf?.managed) {
    if (where >= 0) {
      memoryNative().managedAdvise(buf.ptr, buf.bytes, where, where);
      memoryNative().managedPrefetch(buf.ptr, buf.bytes, where);
      b.residency.touch(buf.ptr, buf.bytes);
    } else {
      memoryNative().managedAdvise(buf.ptr, buf.bytes, -1, b.deviceIndex);
      memoryNative().managedPrefetch(buf.ptr, buf.bytes, -1);
      b.residency.forget(buf.ptr);
      if (!opts.nonBlocking) memoryNative().synchronize();
    }
    return view(t);
  }
  if (where >= 0) {
    b.devicePtr(t); // uploads if the data is only on the host
    return view(t);
  }
  // An unmanaged tensor to the CPU: a host copy.
  return tf.engine().makeTensorFromTensorInfo(b.adoptBuffer(t.shape, t.dtype, undefined, b.hostArray(t).slice()));
}

/** Keep at most this many bytes of managed memory resident on the GPU (null: no limit). */
export function setManagedBudget(bytes: number | null): void {
  backend().residency.setBudget(bytes);
}

export function getManagedBudget(): number | null {
  return backend().residency.budget;
}

export interface ManagedMemoryInfo {
  bytesInUse: number;
  bytesCached: number;
  allocations: number;
  /** Allocations served from the cache / by a new cudaMallocManaged. */
  hits: number;
  misses: number;
  /** Managed bytes counted as resident on the GPU, and the budget. */
  residentBytes: number;
  budget: number | null;
}

export function managedMemoryInfo(): ManagedMemoryInfo {
  const b = backend();
  const m = b.gpu ? memoryNative().managedInfo() : {bytesInUse: 0, bytesCached: 0, allocations: 0, hits: 0, misses: 0};
  return {...m, residentBytes: b.residency.resident, budget: b.residency.budget};
}

// The library's own API beside tfjs: device status, memory, fallbacks.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from './backend/backend_wholememory';
import {BACKEND_NAME} from './backend/backend_name';
import {dropKept} from './backend/host_pool';
import {deviceDetails, deviceStatus, DeviceStatus} from './native/device';
import {runtimeNative} from './native/domains';

export {fallbackCounts, resetFallbackCounts} from './backend/fallback';

export interface DeviceInfo extends DeviceStatus {
  device?: number;
  name?: string;
  cublas?: boolean;
  /** The CPUs this process runs on, as WM_CPU_BIND (`tfjs-wm-run --cpu-bind`) bound it, in words. */
  cpuBinding?: string;
  /**
   * Threads of the C++ CPU kernels: WM_THREADS, else the CPUs this process may run on shared among the
   * ranks a launcher started on this host (LOCAL_WORLD_SIZE), at most 16. Absent without the addon.
   */
  hostThreads?: number;
}

/** Whether the GPU is used, which one, and why not when it is not. */
export function deviceInfo(): DeviceInfo {
  const s = deviceStatus();
  const threads = s.addonLoaded ? {hostThreads: runtimeNative().cpuThreads()} : {};
  return s.gpu ? {...s, ...deviceDetails(), ...threads} : {...s, ...threads};
}

export interface MemoryInfo {
  /** Live tensors and their bytes as tfjs counts them. */
  numTensors: number;
  numBytes: number;
  /** Device bytes held by live tensors (the caching allocator's in-use count). */
  deviceBytesInUse: number;
  /** Device bytes the allocator's pool holds, cached blocks included. */
  deviceBytesReserved: number;
  deviceBytesPeak: number;
  deviceAllocations: number;
  deviceFreeBytes: number;
  deviceTotalBytes: number;
  /** The caching managed allocator: bytes handed out / cached, and its hit and miss counts. */
  managedBytesInUse: number;
  managedBytesCached: number;
  managedHits: number;
  managedMisses: number;
}

export function memoryInfo(): MemoryInfo {
  const m = tf.memory();
  const info: MemoryInfo = {
    numTensors: m.numTensors,
    numBytes: m.numBytes,
    deviceBytesInUse: 0,
    deviceBytesReserved: 0,
    deviceBytesPeak: 0,
    deviceAllocations: 0,
    deviceFreeBytes: 0,
    deviceTotalBytes: 0,
    managedBytesInUse: 0,
    managedBytesCached: 0,
    managedHits: 0,
    managedMisses: 0,
  };
  if (deviceStatus().gpu) {
    const d = runtimeNative().memoryInfo();
    info.deviceBytesInUse = d.bytesInUse;
    info.deviceBytesReserved = d.bytesReserved;
    info.deviceBytesPeak = d.peakBytesInUse;
    info.deviceAllocations = d.allocations;
    info.deviceFreeBytes = d.freeBytes;
    info.deviceTotalBytes = d.totalBytes;
    const m = runtimeNative().managedInfo();
    info.managedBytesInUse = m.bytesInUse;
    info.managedBytesCached = m.bytesCached;
    info.managedHits = m.hits;
    info.managedMisses = m.misses;
  }
  return info;
}

/** Waits until all queued GPU work is done (no-op on the CPU path). */
export function synchronize(): void {
  if (deviceStatus().gpu) runtimeNative().synchronize();
}

/**
 * How float32 matrix products may round on the GPU, as torch.set_float32_matmul_precision: 'highest' (the default)
 * full float32; 'high' TF32 tensor cores, each input rounded to 10 mantissa bits; 'medium' bfloat16 tensor cores,
 * 7 bits. Products still read and write float32 and sum in float32. Products large enough to gain from the tensor
 * cores use them (small ones stay full float32); the CPU's products are float32 whatever the setting.
 */
export type MatmulPrecision = 'highest' | 'high' | 'medium';
/** Every MatmulPrecision, from full float32 down; a precision's place is its native level. */
export const MATMUL_PRECISIONS: readonly MatmulPrecision[] = ['highest', 'high', 'medium'];
let hostMatmulPrecision: MatmulPrecision = 'highest';

/** Sets the precision of the GPU's float32 matrix products (MatmulPrecision) for every later product of this process. */
export function setMatmulPrecision(precision: MatmulPrecision): void {
  const level = MATMUL_PRECISIONS.indexOf(precision);
  if (level < 0)
    throw new RangeError(
      `setMatmulPrecision: precision must be one of ${MATMUL_PRECISIONS.map((p) => `'${p}'`).join(', ')}, got '${String(precision)}'`,
    );
  if (deviceStatus().addonLoaded) runtimeNative().setMatmulPrecision(level);
  hostMatmulPrecision = precision;
}

/** The precision of the GPU's float32 matrix products (MatmulPrecision). */
export function getMatmulPrecision(): MatmulPrecision {
  return deviceStatus().addonLoaded ? MATMUL_PRECISIONS[runtimeNative().matmulPrecision()] : hostMatmulPrecision;
}

/** One native op's share of a profiled call (profileOps). */
export interface OpTime {
  name: string;
  /** 'gpu': the GPU's own time between CUDA events on the stream the op ran on; 'cpu': the host clock around its C++ body. */
  where: 'gpu' | 'cpu';
  calls: number;
  ms: number;
}

export interface OpProfile<T> {
  result: T;
  /** Every native op f ran (the table's ops, the samplers, walks and the fused Adam step), the slowest first. */
  ops: OpTime[];
  /** f's wall time, the GPU work it queued included. GPU ops on the two streams may overlap, so their sum can exceed it. */
  wallMs: number;
}

let profiling = false;

/**
 * Runs f and says where its time went, op by op: which native ops ran, how often, and their time on the GPU
 * (or on the host clock for ops that ran on the CPU). Kernels tfjs-backend-cpu runs are not native ops and
 * are not listed. Timing adds an event pair per GPU op; for figures to quote, time without it.
 */
export function profileOps<T>(f: () => Promise<T>): Promise<OpProfile<T>>;
export function profileOps<T>(f: () => T): OpProfile<T>;
export function profileOps<T>(f: () => T | Promise<T>): OpProfile<T> | Promise<OpProfile<T>> {
  if (profiling) throw new Error('profileOps: a profiled call is already running (profiles do not nest)');
  const rt = deviceStatus().addonLoaded ? runtimeNative() : undefined;
  const take = (): OpTime[] =>
    (rt?.takeOpTimes() ?? []).map((o) => ({name: o.name, where: o.device ? 'gpu' : 'cpu', calls: o.calls, ms: o.ms}));
  synchronize();
  take(); // what ran before is not this call's
  profiling = true;
  rt?.setOpTiming(true);
  const started = performance.now();
  const end = (): OpTime[] => {
    rt?.setOpTiming(false);
    profiling = false;
    return take();
  };
  const finish = (result: T): OpProfile<T> => {
    synchronize();
    const wallMs = performance.now() - started;
    return {result, ops: end(), wallMs};
  };
  const stop = (e: unknown): never => {
    end();
    throw e;
  };
  let r: T | Promise<T>;
  try {
    r = f();
  } catch (e) {
    return stop(e);
  }
  return r instanceof Promise ? r.then(finish, stop) : finish(r);
}

/**
 * Lets go of what the allocators keep for reuse: the host buffers kept for kernel outputs (`memoryInfo()`'s
 * numBytesKeptOnHost; the collector frees them) and, on a GPU, cached unused device memory (returned to the driver).
 */
export function emptyCache(): void {
  dropKept();
  if (!deviceStatus().gpu) return;
  runtimeNative().emptyCache();
  runtimeNative().managedEmptyCache();
}

/** The registered backend instance (initialising it if needed). */
export function backend(): WholeMemoryBackend {
  return (
    (tf.findBackend(BACKEND_NAME) as WholeMemoryBackend) ??
    (() => {
      throw new Error(`the ${BACKEND_NAME} backend failed to initialise`);
    })()
  );
}

/** Whether a tensor's data currently lives on the GPU. */
export function isOnDevice(t: tf.Tensor): boolean {
  return backend().isOnDevice(t.dataId);
}

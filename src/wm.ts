// The library's own API beside tfjs: device status, memory, fallbacks.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from './backend/backend_wholememory';
import {BACKEND_NAME} from './backend/backend_name';
import {deviceDetails, deviceStatus, DeviceStatus} from './native/device';
import {runtimeNative} from './native/domains';

export {fallbackCounts, resetFallbackCounts} from './backend/fallback';

export interface DeviceInfo extends DeviceStatus {
  device?: number;
  name?: string;
  cublas?: boolean;
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

/** Returns cached, unused device memory to the driver. */
export function emptyCache(): void {
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

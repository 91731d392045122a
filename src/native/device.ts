// Loads the addon once and says what this process runs on: the GPU (tensors
// in device memory, CUDA kernels), or the CPU (the addon's C++ kernels, or
// tfjs-backend-cpu when the addon is missing), and why.
import {NativeAddon, nativeAddon} from './addon';

export interface DeviceStatus {
  /** True when tensors live on the GPU and native kernels run. */
  gpu: boolean;
  builtWithCuda: boolean;
  deviceCount: number;
  /** Why the GPU path is off, when it is, in a user's terms ("no GPU: no NVIDIA driver on this machine ..."). */
  reason: string;
  /** What the CUDA runtime said, when the GPU path is off for want of one (the doctor diagnoses from it). */
  runtimeReason?: string;
  /** Whether the native addon loaded (it carries the C++ CPU kernels too). */
  addonLoaded: boolean;
}

let status: DeviceStatus | undefined;
let addon: NativeAddon | undefined;

function unavailable(reason: string): NativeAddon {
  return new Proxy({} as NativeAddon, {
    get: (_t, name) => () => {
      throw new Error(`tfjs-backend-wholememory: native call ${String(name)} needs the addon, which is unavailable: ${reason}`);
    },
  });
}

/**
 * Why there is no GPU, in the user's terms: a machine without an NVIDIA driver has no GPU (the runtime
 * calls that "driver insufficient", kept in runtimeReason).
 */
function noGpuReason(a: NativeAddon, builtWithCuda: boolean, runtime: string): string {
  if (!builtWithCuda) return runtime || 'no GPU: the addon was compiled without CUDA (the CPU core alone)';
  try {
    if (a.cudaSetup().driverVersion === 0) return 'no GPU: no NVIDIA driver on this machine (libcuda.so.1 not found)';
  } catch {
    // the report below stands
  }
  return runtime;
}

/** Loads the addon once and decides between the GPU and the CPU path. */
export function deviceStatus(): DeviceStatus {
  if (status !== undefined) return status;
  try {
    addon = nativeAddon();
    const info = addon.info();
    const forcedCpu = process.env.TFJS_WHOLEMEMORY_DEVICE === 'cpu';
    const gpu = info.deviceCount > 0 && !forcedCpu;
    status = {
      gpu,
      builtWithCuda: info.builtWithCuda,
      deviceCount: info.deviceCount,
      reason: gpu ? '' : forcedCpu ? 'TFJS_WHOLEMEMORY_DEVICE=cpu' : noGpuReason(addon, info.builtWithCuda, info.reason),
      ...(gpu || forcedCpu ? {} : {runtimeReason: info.reason}),
      addonLoaded: true,
    };
  } catch (e) {
    const reason = (e as Error).message;
    addon = unavailable(reason);
    status = {gpu: false, builtWithCuda: false, deviceCount: 0, reason, addonLoaded: false};
  }
  return status;
}

let details: ReturnType<NativeAddon['deviceDetails']> | undefined;

/** Which GPU, its name, whether cuBLAS loaded: asked once (a driver query). */
export function deviceDetails(): ReturnType<NativeAddon['deviceDetails']> {
  details ??= native().deviceDetails();
  return details;
}

export function native(): NativeAddon {
  deviceStatus();
  return addon as NativeAddon;
}

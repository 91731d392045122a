// Registers the 'wholememory' backend and its kernels with tfjs-core. Kernels
// with a native path come from kernels/register_all_kernels.ts; every other
// kernel tfjs-backend-cpu has is forwarded to it, so every tfjs op works.
// The full tfjs registers gradients, optimizers and chained ops into
// tfjs-core (tfjs-core alone has none), so training works for users who
// import only '@tensorflow/tfjs-core'. It also brings tfjs-backend-cpu.
import '@tensorflow/tfjs';

import {getKernelsForBackend, registerBackend, registerKernel} from '@tensorflow/tfjs-core';

import {nativeKernelConfigs} from '../kernels/register_all_kernels';
import {registerReductionGradients} from './reduction_gradients';
import {registerReluGradient} from './relu_gradient';
import {WholeMemoryBackend} from './backend_wholememory';
import {fallbackKernel} from './fallback';
import {NativeAddon, nativeAddon} from './native';

export const BACKEND_NAME = 'wholememory';

export interface DeviceStatus {
  /** True when tensors live on the GPU and native kernels run. */
  gpu: boolean;
  builtWithCuda: boolean;
  deviceCount: number;
  /** Why the GPU path is off, when it is. */
  reason: string;
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
      reason: gpu ? '' : forcedCpu ? 'TFJS_WHOLEMEMORY_DEVICE=cpu' : info.reason,
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

let registered = false;

export function registerWholeMemoryBackend(): void {
  if (registered) return;
  registered = true;
  // Priority 3 (above cpu's 1): importing the package makes it the default.
  registerBackend(BACKEND_NAME, () => {
    const s = deviceStatus();
    // The C++ CPU kernels need the addon; TFJS_WHOLEMEMORY_HOST_KERNELS=0
    // forwards every host kernel to tfjs-backend-cpu instead.
    const hostKernels = s.addonLoaded && process.env.TFJS_WHOLEMEMORY_HOST_KERNELS !== '0';
    return new WholeMemoryBackend(native(), s.gpu, hostKernels);
  }, 3);
  const nativeNames = new Set<string>();
  for (const config of nativeKernelConfigs) {
    registerKernel(config);
    nativeNames.add(config.kernelName);
  }
  for (const cpu of getKernelsForBackend('cpu')) {
    if (!nativeNames.has(cpu.kernelName)) registerKernel(fallbackKernel(cpu.kernelName, BACKEND_NAME));
  }
  registerReductionGradients();
  registerReluGradient();
}

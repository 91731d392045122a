// What this install runs on and why (npx tfjs-wm-doctor prints it): which addon loaded and how it got
// here, the CUDA targets inside it, the runtime and driver versions, each GPU with its compute capability
// and the kernel image it runs, peer access, cuBLAS and NCCL, and, on the CPU path, the reason and the fix.
import * as os from 'os';

import {addonIsPrebuilt, addonLocation, NativeGpu} from './addon';
import {deviceDetails, deviceStatus} from './device';
import {runtimeNative} from './domains';

export interface InstallReport {
  node: string;
  napi: string;
  platform: string;
  addon: {
    path: string;
    /** prebuilt: shipped in the package (prebuilds/); compiled: built on this machine; chosen: $TFJS_WHOLEMEMORY_ADDON. */
    origin: 'prebuilt' | 'compiled' | 'chosen';
    /** The CUDA targets inside, CMake's form ("75-real,…,90-virtual"); empty for a CPU-only addon. */
    cudaTargets: string;
  } | null;
  /** CUDA versions as "13.0"; the driver's is the newest CUDA it supports. */
  cudaRuntime: string | null;
  cudaDriver: string | null;
  gpus: (NativeGpu & {index: number})[];
  /** The GPU this process uses and the image of our kernels it runs. */
  gpu: {index: number; name: string; kernels: string; cublas: string | null; nccl: string | null} | null;
  nccl: string;
  cpuThreads: number | null;
  /** Settings this install cannot use as given (an environment variable out of range, …), each with the fix. */
  problems: string[];
  /**
   * Why the CPU path runs and what to do about it; null on the GPU. `cause` says it in a user's words
   * ("no NVIDIA driver on this machine"); `reason` is what the runtime said.
   */
  fallback: {cause: string; reason: string; advice: string} | null;
}

const versionCode = (v: string) => {
  const [major, minor] = v.split('.').map(Number);
  return major * 1000 + minor * 10;
};
const version = (v: number) => (v > 0 ? `${Math.floor(v / 1000)}.${Math.floor((v % 1000) / 10)}` : null);

/** The CPU kernels' thread count, or the reason it cannot be had (WM_THREADS out of range) as a problem. */
function threads(count: () => number): {cpuThreads: number | null; problems: string[]} {
  try {
    return {cpuThreads: count(), problems: []};
  } catch (e) {
    return {cpuThreads: null, problems: [(e as Error).message]};
  }
}

/** Machine code in the addon for this GPU, or PTX the driver compiled for it at first use. */
export function describeKernels(targets: string, binaryVersion: number, ptxVersion: number): string {
  const real = targets.split(',').filter((t) => t.endsWith('-real'));
  const sass = real.find((t) => t.replace(/a?-real$/, '') === String(binaryVersion));
  if (sass !== undefined && ptxVersion === binaryVersion) return `machine code for sm_${sass.replace('-real', '')} inside the addon`;
  return `compute_${ptxVersion} PTX compiled by the driver for sm_${binaryVersion} (JIT at first use, then cached)`;
}

/** One entry per GPU: the GPUs whose memory it reaches directly ("0→[- 1 x]": GPU 0 reaches 1, not 2). */
export function describePeerAccess(gpus: {index: number; peerAccess: boolean[]}[]): string {
  return gpus.map((g) => `${g.index}→[${g.peerAccess.map((p, j) => (j === g.index ? '-' : p ? j : 'x')).join(' ')}]`).join('  ');
}

/**
 * Why the GPU is not used, in a user's words (`cause`), and what to do so it is (`advice`), from the report
 * and the reason the runtime gave: one chain of cases, so the two always describe the same one.
 */
export function diagnoseFallback(
  report: Omit<InstallReport, 'fallback'>,
  reason: string,
  builtWithCuda: boolean,
): {cause: string; advice: string} {
  if (reason.includes('TFJS_WHOLEMEMORY_DEVICE'))
    return {cause: 'TFJS_WHOLEMEMORY_DEVICE=cpu asks for the CPU', advice: 'unset TFJS_WHOLEMEMORY_DEVICE to use the GPU'};
  if (report.addon === null)
    return {
      cause: `no native addon for ${report.platform}`,
      advice:
        `no prebuilt addon for ${report.platform} (Node-API ${report.napi}): compile it with CMake and a C++ compiler (nvcc for the GPU): ` +
        'npm install-scripts approve tfjs-backend-wholememory && npm rebuild tfjs-backend-wholememory',
    };
  if (!builtWithCuda)
    return {
      cause: 'the addon was compiled without CUDA',
      advice:
        'this addon was compiled without nvcc: install the CUDA toolkit (13.0 or newer) and compile again ' +
        '(npm rebuild tfjs-backend-wholememory --build-from-source, or npm run build:native in a checkout)',
    };
  if (report.cudaDriver === null)
    return {
      cause: 'no NVIDIA driver on this machine (libcuda.so.1 not found)',
      advice: 'install the NVIDIA driver (libcuda.so.1, version 580 or newer for CUDA 13) and check nvidia-smi',
    };
  if (report.cudaRuntime !== null && versionCode(report.cudaDriver) < versionCode(report.cudaRuntime))
    return {
      cause: `the NVIDIA driver supports CUDA ${report.cudaDriver}, older than the ${report.cudaRuntime} this addon needs`,
      advice: `the driver supports CUDA ${report.cudaDriver}, the addon needs ${report.cudaRuntime}: update the NVIDIA driver (580 or newer)`,
    };
  const old = report.gpus.find((g) => Number(g.computeCapability) < 7.5);
  if (old !== undefined)
    return {
      cause: `${old.name} is older than Turing`,
      advice: `${old.name} (compute capability ${old.computeCapability}) is older than Turing (7.5), which this build needs`,
    };
  return {cause: 'the driver sees no GPU', advice: 'the driver sees no GPU: check nvidia-smi and CUDA_VISIBLE_DEVICES'};
}

/** diagnoseFallback's cause alone. */
export function fallbackCause(report: Omit<InstallReport, 'fallback'>, reason: string, builtWithCuda: boolean): string {
  return diagnoseFallback(report, reason, builtWithCuda).cause;
}

/** diagnoseFallback's advice alone. */
export function fallbackAdvice(report: Omit<InstallReport, 'fallback'>, reason: string, builtWithCuda: boolean): string {
  return diagnoseFallback(report, reason, builtWithCuda).advice;
}

export function installReport(): InstallReport {
  const status = deviceStatus();
  const location = addonLocation();
  const base = {node: process.version, napi: process.versions.napi ?? '?', platform: `${os.platform()}-${os.arch()}`};
  if (!status.addonLoaded || location === undefined) {
    const partial = {
      ...base,
      addon: null,
      cudaRuntime: null,
      cudaDriver: null,
      gpus: [],
      gpu: null,
      nccl: 'unavailable: no addon',
      cpuThreads: null,
      problems: [],
    };
    return {...partial, fallback: {reason: status.reason, ...diagnoseFallback(partial, status.reason, false)}};
  }
  const rt = runtimeNative();
  const setup = rt.cudaSetup();
  const origin = process.env.TFJS_WHOLEMEMORY_ADDON ? 'chosen' : addonIsPrebuilt(location) ? 'prebuilt' : 'compiled';
  let gpu: InstallReport['gpu'] = null;
  if (status.gpu) {
    const d = deviceDetails();
    const k = rt.kernelImage();
    gpu = {
      index: d.device,
      name: d.name,
      kernels: describeKernels(setup.archs, k.binaryVersion, k.ptxVersion),
      cublas: k.cublas || null,
      nccl: k.nccl || null,
    };
  }
  const report = {
    ...base,
    addon: {path: location, origin, cudaTargets: setup.archs} as InstallReport['addon'],
    cudaRuntime: version(setup.runtimeVersion),
    cudaDriver: version(setup.driverVersion),
    gpus: setup.gpus.map((g, index) => ({index, ...g})),
    gpu,
    nccl: rt.ncclStatus(),
    ...threads(() => rt.cpuThreads()),
  };
  return {
    ...report,
    fallback: status.gpu
      ? null
      : {
          reason: status.runtimeReason ?? status.reason,
          ...diagnoseFallback(report, status.runtimeReason ?? status.reason, status.builtWithCuda),
        },
  };
}

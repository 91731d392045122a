// Forwards a kernel to tfjs-backend-cpu's implementation, running it on this
// backend's host copies (the CPU kernels read `backend.data.get(id).values`).
// Every forward is counted so we know which native kernel to write next.
import {getKernel, KernelConfig, KernelFunc, NamedTensorInfoMap, TensorInfo} from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from './backend_wholememory';

const counts = new Map<string, number>();

/** How often each kernel ran on the CPU path since start (or the last reset). */
export function fallbackCounts(): {[kernelName: string]: number} {
  return Object.fromEntries([...counts.entries()].sort((a, b) => b[1] - a[1]));
}

export function resetFallbackCounts(): void {
  counts.clear();
}

function cpuKernelFunc(kernelName: string): KernelFunc {
  const k = getKernel(kernelName, 'cpu');
  if (k === undefined) throw new Error(`no CPU kernel named ${kernelName} to fall back to`);
  return k.kernelFunc;
}

function hostInputs(backend: WholeMemoryBackend, inputs: NamedTensorInfoMap): void {
  for (const key of Object.keys(inputs)) {
    const t = inputs[key] as TensorInfo | TensorInfo[] | undefined;
    if (t == null) continue;
    for (const info of Array.isArray(t) ? t : [t]) backend.ensureHost(info.dataId);
  }
}

/** Runs `kernelName` on the CPU with `args`, after bringing inputs to the host. */
export function runOnCpu(kernelName: string, args: Parameters<KernelFunc>[0]): ReturnType<KernelFunc> {
  counts.set(kernelName, (counts.get(kernelName) ?? 0) + 1);
  const backend = args.backend as WholeMemoryBackend;
  hostInputs(backend, args.inputs);
  const out = cpuKernelFunc(kernelName)(args);
  backend.claimOutputs(out);
  return out;
}

/** The kernel config that always forwards to the CPU. */
export function fallbackKernel(kernelName: string, backendName: string): KernelConfig {
  return {kernelName, backendName, kernelFunc: (args) => runOnCpu(kernelName, args)};
}

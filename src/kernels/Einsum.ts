// tf.einsum. Two operands without a repeated index (matrix products, batched
// or not, attention scores such as 'bhnd,bhmd->bhnm') are one BatchMatMul
// between transposes: indices in both operands and the output are the batch,
// in both only are contracted, in one only are its free dims (or summed
// first when not in the output). Other equations take tfjs-backend-cpu's
// route (transpose, broadcast multiply, sum per step) on our kernels.
import {backend_util, Einsum, EinsumAttrs, KernelConfig, Tensor, TensorInfo, util} from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {runOnCpu} from '../backend/fallback';
import {batchMatMulConfig} from './BatchMatMul';
import {backendOf, callKernel, nativeRunner, reshapeView} from '../kernel_utils/kernel_utils';
import {multiplyConfig} from './Multiply';
import {sumConfig} from './Sum';
import {transposeConfig} from './Transpose';

type Temps = TensorInfo[];

function transposed(backend: WholeMemoryBackend, x: TensorInfo, perm: number[], temps: Temps): TensorInfo {
  if (perm.every((p, i) => p === i)) return x;
  const t = callKernel(transposeConfig, {inputs: {x}, backend, attrs: {perm}});
  temps.push(t);
  return t;
}

function reshaped(backend: WholeMemoryBackend, x: TensorInfo, shape: number[], temps: Temps): TensorInfo {
  if (util.arraysEqual(x.shape, shape)) return x;
  const t = reshapeView(backend, x, shape);
  temps.push(t);
  return t;
}

function summedOver(backend: WholeMemoryBackend, x: TensorInfo, axes: number[], temps: Temps): TensorInfo {
  if (axes.length === 0) return x;
  const t = callKernel(sumConfig, {inputs: {x}, backend, attrs: {axis: axes, keepDims: false}});
  temps.push(t);
  return t;
}

/** The two-operand contraction as one batched matmul; dims are indices into allDims, outputs first (nOut of them). */
function contract(backend: WholeMemoryBackend, tensors: TensorInfo[], idDims: number[][], nOut: number, temps: Temps): TensorInfo {
  const sizeOf = new Map<number, number>();
  idDims.forEach((ids, t) => ids.forEach((d, k) => sizeOf.set(d, tensors[t].shape[k])));
  const [idA, idB] = idDims;
  const inOut = (d: number) => d < nOut;
  // Dims in one operand only and not in the output are summed away first.
  const prune = (x: TensorInfo, ids: number[], other: number[]) => {
    const drop = ids.map((d, k) => (!other.includes(d) && !inOut(d) ? k : -1)).filter((k) => k >= 0);
    return {x: summedOver(backend, x, drop, temps), ids: ids.filter((_, k) => !drop.includes(k))};
  };
  const a = prune(tensors[0], idA, idB),
    b = prune(tensors[1], idB, idA);
  const byOutput = (ds: number[]) => [...ds].sort((p, q) => p - q);
  const batch = byOutput(a.ids.filter((d) => b.ids.includes(d) && inOut(d)));
  const contracted = a.ids.filter((d) => b.ids.includes(d) && !inOut(d));
  const freeA = byOutput(a.ids.filter((d) => !b.ids.includes(d)));
  const freeB = byOutput(b.ids.filter((d) => !a.ids.includes(d)));
  const size = (ds: number[]) => ds.reduce((acc, d) => acc * sizeOf.get(d)!, 1);
  const [nb, m, k, n] = [size(batch), size(freeA), size(contracted), size(freeB)];
  const at = transposed(
    backend,
    a.x,
    [...batch, ...freeA, ...contracted].map((d) => a.ids.indexOf(d)),
    temps,
  );
  const bt = transposed(
    backend,
    b.x,
    [...batch, ...contracted, ...freeB].map((d) => b.ids.indexOf(d)),
    temps,
  );
  const a3 = reshaped(backend, at, [nb, m, k], temps),
    b3 = reshaped(backend, bt, [nb, k, n], temps);
  let product: TensorInfo;
  if (k === 0) {
    product = backend.makeTensorInfo([nb, m, n], 'float32', new Float32Array(nb * m * n));
  } else {
    product = callKernel(batchMatMulConfig, {inputs: {a: a3, b: b3}, backend, attrs: {transposeA: false, transposeB: false}});
  }
  temps.push(product);
  const order = [...batch, ...freeA, ...freeB];
  const full = reshaped(
    backend,
    product,
    order.map((d) => sizeOf.get(d)!),
    temps,
  );
  // Into the output's order (dims 0..nOut-1).
  const out = transposed(
    backend,
    full,
    Array.from({length: nOut}, (_, d) => order.indexOf(d)),
    temps,
  );
  return reshapeView(backend, out, out.shape); // its own reference: the temporaries are disposed
}

/** tfjs-backend-cpu's algorithm on our kernels. */
function byBroadcast(
  backend: WholeMemoryBackend,
  tensors: TensorInfo[],
  allDims: string[],
  summedDims: number[],
  idDims: number[][],
  temps: Temps,
): TensorInfo {
  const {path, steps} = backend_util.getEinsumComputePath(summedDims, idDims);
  let out: TensorInfo | null = null;
  let remaining = allDims.length;
  for (let i = 0; i < steps.length; ++i) {
    for (const term of steps[i]) {
      const {permutationIndices: perm, expandDims} = backend_util.getEinsumPermutation(remaining, idDims[term]);
      let x = transposed(backend, tensors[term], perm, temps);
      const target = x.shape.slice();
      for (const d of expandDims) target.splice(d, 0, 1);
      x = reshaped(backend, x, target, temps);
      if (out === null) {
        out = x;
      } else {
        out = callKernel(multiplyConfig, {inputs: {a: x, b: out}, backend, attrs: {}});
        temps.push(out);
      }
    }
    if (i < steps.length - 1) {
      if (path[i] >= 0) out = summedOver(backend, out!, [path[i] - (allDims.length - remaining)], temps);
      --remaining;
    }
  }
  return reshapeView(backend, out!, out!.shape); // its own reference: the temporaries are disposed
}

export const einsumConfig: KernelConfig = {
  kernelName: Einsum,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const tensors = Object.values(args.inputs) as TensorInfo[];
    const {equation} = args.attrs as unknown as EinsumAttrs;
    const runner = nativeRunner(backend, tensors, ['float32']);
    if (runner === null) return runOnCpu(Einsum, args);
    const {allDims, summedDims, idDims} = backend_util.decodeEinsumEquation(equation, tensors.length);
    backend_util.checkEinsumDimSizes(allDims.length, idDims, tensors as Tensor[]);
    const temps: Temps = [];
    try {
      const distinct = idDims.every((ids) => new Set(ids).size === ids.length);
      if (tensors.length === 2 && distinct) return contract(backend, tensors, idDims, allDims.length - summedDims.length, temps);
      return byBroadcast(backend, tensors, allDims, summedDims, idDims, temps);
    } finally {
      temps.forEach((t) => backend.disposeIntermediateTensorInfo(t));
    }
  },
};

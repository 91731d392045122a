// Helpers every native kernel uses: which backend, whether the GPU path
// applies, strides, and the device transpose that reductions build on.
import {DataType, KernelConfig, KernelFunc, TensorInfo, util} from '@tensorflow/tfjs-core';

import {bytesPerElement, nativeDType, WholeMemoryBackend} from '../backend/backend_wholememory';
import {NativeDType} from '../native/ops';
import {KernelRunner, runnerFor} from '../backend/runner';

export type KernelArgs = Parameters<KernelFunc>[0];

// The dtypes native kernels take.
export const FLOAT: readonly DataType[] = ['float32'];
export const NUMERIC: readonly DataType[] = ['float32', 'int32'];
export const STORABLE: readonly DataType[] = ['float32', 'int32', 'bool'];

export function backendOf(args: KernelArgs): WholeMemoryBackend {
  return args.backend as WholeMemoryBackend;
}

/** The native runner (GPU or host CPU core) when every input has one of the dtypes, else null (forward to the CPU backend). */
export function nativeRunner(backend: WholeMemoryBackend, inputs: TensorInfo[], dtypes: readonly DataType[]): KernelRunner | null {
  const r = runnerFor(backend);
  return r !== null && inputs.every((t) => dtypes.includes(t.dtype)) ? r : null;
}

/** True when the GPU path applies: a GPU backend and only the given dtypes. */
export function onGpu(backend: WholeMemoryBackend, inputs: TensorInfo[], dtypes: readonly DataType[]): boolean {
  return backend.gpu && inputs.every((t) => dtypes.includes(t.dtype));
}

export function nd(dtype: DataType): NativeDType {
  const d = nativeDType(dtype);
  if (d === undefined) throw new Error(`dtype ${dtype} has no native kernels`);
  return d;
}

export function contiguousStrides(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; --i) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

/** Strides that read `inShape` broadcast to `outShape` (0 on broadcast dims). */
export function broadcastStrides(inShape: readonly number[], outShape: readonly number[]): number[] {
  const own = contiguousStrides(inShape);
  const out = new Array<number>(outShape.length).fill(0);
  const lead = outShape.length - inShape.length;
  for (let i = 0; i < inShape.length; ++i) {
    out[lead + i] = inShape[i] === 1 && outShape[lead + i] !== 1 ? 0 : own[i];
  }
  return out;
}

/**
 * A new contiguous tensor of `shape` whose element at (i0, i1, ...) is x's element at
 * offset + sum ik * strides[k] (strides in elements, of either sign): transposes, slices,
 * strided slices and reversals are each one such copy.
 */
export function copyView(runner: KernelRunner, x: TensorInfo, offset: number, strides: number[], shape: number[]): TensorInfo {
  const {info, buf} = runner.output(shape, x.dtype);
  if (util.sizeFromShape(shape) === 0) return info;
  runner.native.stridedCopy(
    bytesPerElement(x.dtype),
    runner.input(x),
    offset,
    strides,
    shape.map((d) => Math.max(d, 1)),
    buf,
    0,
    contiguousStrides(shape),
    shape,
  );
  return info;
}

/** Copies x into a new tensor with axes permuted by perm. */
export function transposeWith(runner: KernelRunner, x: TensorInfo, perm: number[]): TensorInfo {
  const inStrides = contiguousStrides(x.shape);
  return copyView(
    runner,
    x,
    0,
    perm.map((p) => inStrides[p]),
    perm.map((p) => x.shape[p]),
  );
}

/** A view of x with another shape; shares the data (no copy). */
export function reshapeView(backend: WholeMemoryBackend, x: TensorInfo, shape: number[]): TensorInfo {
  util.assert(util.sizeFromShape(shape) === util.sizeFromShape(x.shape), () => `reshape: cannot view [${x.shape}] as [${shape}]`);
  backend.incRef(x.dataId);
  return {dataId: x.dataId, shape, dtype: x.dtype};
}

/** Runs another of our kernels from inside a kernel (composite kernels): its single output. */
export function callKernel(config: KernelConfig, args: KernelArgs): TensorInfo {
  return config.kernelFunc(args) as TensorInfo;
}

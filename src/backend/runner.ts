// Where a native kernel's tensors live, the GPU (device addresses) or the
// host (typed arrays), and the few calls that differ between the two; every
// other op the kernels call on the addon as it is. Kernel files are written
// once against it.
import {DataType, TensorInfo, util} from '@tensorflow/tfjs-core';

import {nativeDType, WholeMemoryBackend} from './backend_wholememory';
import {NativeAddon} from '../native/addon';
import {Buf, NativeDType, NativeOps} from '../native/ops';

export type {Buf} from '../native/ops';

export interface KernelRunner {
  readonly where: 'device' | 'host';
  /**
   * The addon. Its ops take device addresses or typed arrays alike and run where those live, so kernels
   * call them with the buffers of input() and output() directly (runner.native.reduce(...)).
   */
  readonly native: NativeAddon;
  input(t: TensorInfo): Buf;
  /** A new tensor for the kernel to write whole: not zeroed, on the GPU or the host alike. */
  output(shape: number[], dtype: DataType): {info: TensorInfo; buf: Buf};
  /** The addon's binary, or binaryFlat when neither operand broadcasts (no shape arrays to convert). */
  binary: NativeAddon['binary'];
  /** argmax (from pool2d's ArgMax) is read for Max only. */
  pool2dGrad(op: number, dy: Buf, argmax: Buf | null, dx: Buf, g: number[]): void;
  /**
   * 2-D convolutions as implicit GEMMs (windows read in place), on the GPU only: the CPU core
   * multiplies window copies with its vectorised matmul instead (conv_windows.ts).
   */
  conv2d?: {forward: NativeOps['conv2dForward']; inputGrad: NativeOps['conv2dInputGrad']; filterGrad: NativeOps['conv2dFilterGrad']};
  /** Adds row r of x [rows, inner] into row ids[r] of y [numSegments, inner]; ids outside [0, numSegments) are skipped. */
  segmentSum: NativeAddon['segmentSum'];
  /**
   * Gathers rows; returns the position of the first bad index, or -1. When
   * `check` is false the caller has validated the indices already.
   */
  gather(
    dtype: DataType,
    x: Buf,
    indices: Buf,
    y: Buf,
    outer: number,
    axisDim: number,
    inner: number,
    numIndices: number,
    outerPerBatch: number,
    check: boolean,
  ): number;
}

// Whether strides walk `shape` contiguously (no broadcasting).
function sameContiguous(shape: number[], strides: number[]): boolean {
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; --i) {
    if (shape[i] !== 1 && strides[i] !== acc) return false;
    acc *= shape[i];
  }
  return true;
}

// The addon runs each op where its buffers live (device addresses: CUDA;
// typed arrays: the C++ CPU core), so one runner serves both places; only
// where tensors live and how outputs are made differ.
class Runner implements KernelRunner {
  readonly native: NativeAddon;
  // WM_CONV_IMPLICIT=0 takes the window copies on the GPU too (to compare them).
  readonly conv2d;
  constructor(
    private readonly b: WholeMemoryBackend,
    readonly where: 'device' | 'host',
  ) {
    this.native = b.native;
    const n = this.native;
    this.conv2d =
      where === 'host' || process.env.WM_CONV_IMPLICIT === '0'
        ? undefined
        : {forward: n.conv2dForward, inputGrad: n.conv2dInputGrad, filterGrad: n.conv2dFilterGrad};
  }
  input(t: TensorInfo): Buf {
    return this.where === 'device' ? this.b.devicePtr(t) : this.b.hostArray(t);
  }
  output(shape: number[], dtype: DataType) {
    if (this.where === 'device') {
      const {info, ptr} = this.b.makeDeviceOutput(shape, dtype);
      return {info, buf: ptr as Buf};
    }
    const {info, values} = this.b.hostOutput(shape, dtype);
    return {info, buf: values as Buf};
  }
  binary(op: number, dtIn: NativeDType, dtOut: NativeDType, a: Buf, b: Buf, y: Buf, shape: number[], as: number[], bs: number[]) {
    if (sameContiguous(shape, as) && sameContiguous(shape, bs)) {
      this.native.binaryFlat(
        op,
        dtIn,
        dtOut,
        a,
        b,
        y,
        shape.reduce((x, d) => x * d, 1),
      );
    } else {
      this.native.binary(op, dtIn, dtOut, a, b, y, shape, as, bs);
    }
  }
  pool2dGrad(op: number, dy: Buf, argmax: Buf | null, dx: Buf, g: number[]) {
    this.native.pool2dGrad(op, dy, argmax ?? (this.where === 'device' ? 0 : null), dx, g);
  }
  segmentSum(dt: NativeDType, x: Buf, ids: Buf, y: Buf, rows: number, inner: number, numSegments: number) {
    if (rows * inner > 0) this.native.segmentSum(dt, x, ids, y, rows, inner, numSegments);
  }
  gather(
    dtype: DataType,
    x: Buf,
    idx: Buf,
    y: Buf,
    outer: number,
    axisDim: number,
    inner: number,
    numIndices: number,
    outerPerBatch: number,
    check: boolean,
  ): number {
    const nd = nativeDType(dtype)!;
    if (this.where === 'host') return this.native.gather(nd, x, idx, y, outer, axisDim, inner, numIndices, outerPerBatch, null) as number;
    const launch = (flag: number) => {
      this.native.gather(nd, x, idx, y, outer, axisDim, inner, numIndices, outerPerBatch, flag);
    };
    if (!check) {
      launch(0);
      return -1;
    }
    // The kernel never reads out of range; it records the first bad position.
    return this.b.withErrorFlag(launch);
  }
}

const runners = new WeakMap<WholeMemoryBackend, KernelRunner | null>();

/** Where native kernels run for this backend: the GPU, the host CPU core, or nowhere (forward to tfjs-backend-cpu). */
export function runnerFor(backend: WholeMemoryBackend): KernelRunner | null {
  let r = runners.get(backend);
  if (r === undefined) {
    r = backend.gpu ? new Runner(backend, 'device') : backend.hostKernels ? new Runner(backend, 'host') : null;
    runners.set(backend, r);
  }
  return r;
}

// One interface over the two places a native kernel runs: the GPU (device
// addresses, CUDA kernels) and the host (typed arrays, the C++ CPU core).
// Kernel files are written once against it.
import {DataType, TensorInfo, util} from '@tensorflow/tfjs-core';

import {nativeDType, typedArrayFor, WholeMemoryBackend} from './backend_wholememory';
import {Buf, NativeAddon, NativeDType} from '../native/addon';

export type {Buf} from '../native/addon';

export interface KernelRunner {
  readonly where: 'device' | 'host';
  /** The addon: ops take device addresses or typed arrays alike and run where those live. */
  readonly native: NativeAddon;
  input(t: TensorInfo): Buf;
  output(shape: number[], dtype: DataType): {info: TensorInfo; buf: Buf};
  unary(op: number, dtIn: NativeDType, dtOut: NativeDType, x: Buf, y: Buf, n: number, alpha: number, beta: number): void;
  binary(
    op: number,
    dtIn: NativeDType,
    dtOut: NativeDType,
    a: Buf,
    b: Buf,
    y: Buf,
    shape: number[],
    aStrides: number[],
    bStrides: number[],
  ): void;
  /** y = op(x, value), or op(value, x) when scalarFirst, over n contiguous elements. */
  binaryScalar(op: number, dtIn: NativeDType, dtOut: NativeDType, x: Buf, value: number, scalarFirst: boolean, y: Buf, n: number): void;
  select(
    dt: NativeDType,
    cond: Buf,
    a: Buf,
    b: Buf,
    y: Buf,
    shape: number[],
    condStrides: number[],
    aStrides: number[],
    bStrides: number[],
  ): void;
  fill(dt: NativeDType, y: Buf, n: number, value: number): void;
  stridedCopy(
    elemSize: number,
    src: Buf,
    srcOffset: number,
    srcStrides: number[],
    srcMod: number[],
    dst: Buf,
    dstOffset: number,
    dstStrides: number[],
    shape: number[],
  ): void;
  /** Reduces the middle axis of [outer, inner, after] (the last when after is 1). */
  reduce(op: number, dtIn: NativeDType, dtOut: NativeDType, x: Buf, y: Buf, outer: number, inner: number, after?: number): void;
  softmax(x: Buf, y: Buf, outer: number, inner: number): void;
  cumulative(
    product: boolean,
    dt: NativeDType,
    x: Buf,
    y: Buf,
    outer: number,
    n: number,
    inner: number,
    exclusive: boolean,
    reverse: boolean,
  ): void;
  batchMatMul(
    a: Buf,
    b: Buf,
    c: Buf,
    batch: number,
    m: number,
    n: number,
    k: number,
    transA: boolean,
    transB: boolean,
    aBatchStride: number,
    bBatchStride: number,
  ): void;
  /** The 2-D window kernels (wm/window2d.h); g is the 14 numbers of wm::Window2D. */
  depthwiseConv2d(x: Buf, w: Buf, y: Buf, g: number[], mult: number): void;
  depthwiseConv2dInputGrad(dy: Buf, w: Buf, dx: Buf, g: number[], mult: number, dyH: number, dyW: number): void;
  depthwiseConv2dFilterGrad(x: Buf, dy: Buf, dw: Buf, g: number[], mult: number): void;
  pool2d(op: number, x: Buf, y: Buf, g: number[]): void;
  /** argmax (from pool2d's ArgMax) is read for Max only. */
  pool2dGrad(op: number, dy: Buf, argmax: Buf | null, dx: Buf, g: number[]): void;
  /**
   * 2-D convolutions as implicit GEMMs (windows read in place), on the GPU only: the CPU core
   * multiplies window copies with its vectorised matmul instead (conv_windows.ts).
   */
  conv2d?: {
    forward(x: Buf, w: Buf, y: Buf, g: number[], outC: number): void;
    inputGrad(dy: Buf, w: Buf, dx: Buf, g: number[], outC: number, dyH: number, dyW: number): void;
    filterGrad(x: Buf, dy: Buf, dw: Buf, g: number[], outC: number): void;
  };
  /** Adds row r of x [rows, inner] into row ids[r] of y [numSegments, inner]; ids outside [0, numSegments) are skipped. */
  segmentSum(dt: NativeDType, x: Buf, ids: Buf, y: Buf, rows: number, inner: number, numSegments: number): void;
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
        : {
            forward: (x: Buf, w: Buf, y: Buf, g: number[], outC: number) => n.conv2dForward(x, w, y, g, outC),
            inputGrad: (dy: Buf, w: Buf, dx: Buf, g: number[], outC: number, dyH: number, dyW: number) =>
              n.conv2dInputGrad(dy, w, dx, g, outC, dyH, dyW),
            filterGrad: (x: Buf, dy: Buf, dw: Buf, g: number[], outC: number) => n.conv2dFilterGrad(x, dy, dw, g, outC),
          };
  }
  input(t: TensorInfo): Buf {
    return this.where === 'device' ? this.b.devicePtr(t) : this.b.hostArray(t);
  }
  output(shape: number[], dtype: DataType) {
    if (this.where === 'device') {
      const {info, ptr} = this.b.makeDeviceOutput(shape, dtype);
      return {info, buf: ptr as Buf};
    }
    const values = typedArrayFor(dtype, util.sizeFromShape(shape));
    return {info: this.b.makeTensorInfo(shape, dtype, values), buf: values as Buf};
  }
  unary(op: number, dtIn: NativeDType, dtOut: NativeDType, x: Buf, y: Buf, n: number, alpha: number, beta: number) {
    this.native.unary(op, dtIn, dtOut, x, y, n, alpha, beta);
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
  binaryScalar(op: number, dtIn: NativeDType, dtOut: NativeDType, x: Buf, value: number, scalarFirst: boolean, y: Buf, n: number) {
    this.native.binaryScalar(op, dtIn, dtOut, x, value, scalarFirst, y, n);
  }
  select(dt: NativeDType, c: Buf, a: Buf, b: Buf, y: Buf, shape: number[], cs: number[], as: number[], bs: number[]) {
    this.native.select(dt, c, a, b, y, shape, cs, as, bs);
  }
  fill(dt: NativeDType, y: Buf, n: number, value: number) {
    this.native.fill(dt, y, n, value);
  }
  stridedCopy(e: number, src: Buf, so: number, ss: number[], sm: number[], dst: Buf, d0: number, ds: number[], shape: number[]) {
    this.native.stridedCopy(e, src, so, ss, sm, dst, d0, ds, shape);
  }
  reduce(op: number, dtIn: NativeDType, dtOut: NativeDType, x: Buf, y: Buf, outer: number, inner: number, after = 1) {
    this.native.reduce(op, dtIn, dtOut, x, y, outer, inner, after);
  }
  softmax(x: Buf, y: Buf, outer: number, inner: number) {
    this.native.softmax(x, y, outer, inner, false);
  }
  cumulative(
    product: boolean,
    dt: NativeDType,
    x: Buf,
    y: Buf,
    outer: number,
    n: number,
    inner: number,
    exclusive: boolean,
    reverse: boolean,
  ) {
    this.native.cumulative(product, dt, x, y, outer, n, inner, exclusive, reverse);
  }
  batchMatMul(a: Buf, b: Buf, c: Buf, batch: number, m: number, n: number, k: number, ta: boolean, tb: boolean, sa: number, sb: number) {
    this.native.batchMatMul(a, b, c, batch, m, n, k, ta, tb, sa, sb);
  }
  depthwiseConv2d(x: Buf, w: Buf, y: Buf, g: number[], mult: number) {
    this.native.depthwiseConv2d(x, w, y, g, mult);
  }
  depthwiseConv2dInputGrad(dy: Buf, w: Buf, dx: Buf, g: number[], mult: number, dyH: number, dyW: number) {
    this.native.depthwiseConv2dInputGrad(dy, w, dx, g, mult, dyH, dyW);
  }
  depthwiseConv2dFilterGrad(x: Buf, dy: Buf, dw: Buf, g: number[], mult: number) {
    this.native.depthwiseConv2dFilterGrad(x, dy, dw, g, mult);
  }
  pool2d(op: number, x: Buf, y: Buf, g: number[]) {
    this.native.pool2d(op, x, y, g);
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

// One interface over the two places a native kernel runs: the GPU (device
// addresses, CUDA kernels) and the host (typed arrays, the C++ CPU core).
// Kernel files are written once against it.
import {DataType, TensorInfo, util} from '@tensorflow/tfjs-core';

import {bytesPerElement, nativeDType, typedArrayFor, WholeMemoryBackend} from './backend_wholememory';
import {NativeDType, WindowBuf} from './native';

export type Buf = number | Float32Array | Int32Array | Uint8Array;

export interface KernelRunner {
  readonly where: 'device' | 'host';
  input(t: TensorInfo): Buf;
  output(shape: number[], dtype: DataType): {info: TensorInfo; buf: Buf};
  unary(op: number, dtIn: NativeDType, dtOut: NativeDType, x: Buf, y: Buf, n: number, alpha: number, beta: number): void;
  binary(op: number, dtIn: NativeDType, dtOut: NativeDType, a: Buf, b: Buf, y: Buf, shape: number[],
         aStrides: number[], bStrides: number[]): void;
  /** y = op(x, value), or op(value, x) when scalarFirst, over n contiguous elements. */
  binaryScalar(op: number, dtIn: NativeDType, dtOut: NativeDType, x: Buf, value: number, scalarFirst: boolean,
               y: Buf, n: number): void;
  select(dt: NativeDType, cond: Buf, a: Buf, b: Buf, y: Buf, shape: number[], condStrides: number[],
         aStrides: number[], bStrides: number[]): void;
  fill(dt: NativeDType, y: Buf, n: number, value: number): void;
  stridedCopy(elemSize: number, src: Buf, srcOffset: number, srcStrides: number[], srcMod: number[], dst: Buf,
              dstOffset: number, dstStrides: number[], shape: number[]): void;
  /** Reduces the middle axis of [outer, inner, after] (the last when after is 1). */
  reduce(op: number, dtIn: NativeDType, dtOut: NativeDType, x: Buf, y: Buf, outer: number, inner: number, after?: number): void;
  softmax(x: Buf, y: Buf, outer: number, inner: number): void;
  cumulative(product: boolean, dt: NativeDType, x: Buf, y: Buf, outer: number, n: number, inner: number, exclusive: boolean, reverse: boolean): void;
  topK(dt: NativeDType, x: Buf, values: Buf, indices: Buf, rows: number, n: number, k: number): void;
  batchMatMul(a: Buf, b: Buf, c: Buf, batch: number, m: number, n: number, k: number, transA: boolean,
              transB: boolean, aBatchStride: number, bBatchStride: number): void;
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
  gather(dtype: DataType, x: Buf, indices: Buf, y: Buf, outer: number, axisDim: number, inner: number,
         numIndices: number, outerPerBatch: number, check: boolean): number;
}

const num = (b: Buf) => b as number;
const arr = (b: Buf) => b as Float32Array | Int32Array | Uint8Array;

// Whether strides walk `shape` contiguously (no broadcasting).
function sameContiguous(shape: number[], strides: number[]): boolean {
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; --i) {
    if (shape[i] !== 1 && strides[i] !== acc) return false;
    acc *= shape[i];
  }
  return true;
}

const win = (b: Buf) => b as WindowBuf;

// What both runners call the same way: the addon's window bindings take
// device addresses and typed arrays alike.
abstract class WindowCalls {
  constructor(protected readonly b: WholeMemoryBackend) {}
  depthwiseConv2d(x: Buf, w: Buf, y: Buf, g: number[], mult: number) {
    this.b.native.depthwiseConv2d(win(x), win(w), win(y), g, mult);
  }
  depthwiseConv2dInputGrad(dy: Buf, w: Buf, dx: Buf, g: number[], mult: number, dyH: number, dyW: number) {
    this.b.native.depthwiseConv2dInputGrad(win(dy), win(w), win(dx), g, mult, dyH, dyW);
  }
  depthwiseConv2dFilterGrad(x: Buf, dy: Buf, dw: Buf, g: number[], mult: number) {
    this.b.native.depthwiseConv2dFilterGrad(win(x), win(dy), win(dw), g, mult);
  }
  pool2d(op: number, x: Buf, y: Buf, g: number[]) {
    this.b.native.pool2d(op, win(x), win(y), g);
  }
  pool2dGrad(op: number, dy: Buf, argmax: Buf | null, dx: Buf, g: number[]) {
    this.b.native.pool2dGrad(op, win(dy), win(argmax ?? 0), win(dx), g);
  }
}

class DeviceRunner extends WindowCalls implements KernelRunner {
  readonly where = 'device' as const;
  // WM_CONV_IMPLICIT=0 takes the window copies on the GPU too (to compare them).
  readonly conv2d = process.env.WM_CONV_IMPLICIT === '0' ? undefined : {
    forward: (x: Buf, w: Buf, y: Buf, g: number[], outC: number) => this.b.native.conv2dForward(num(x), num(w), num(y), g, outC),
    inputGrad: (dy: Buf, w: Buf, dx: Buf, g: number[], outC: number, dyH: number, dyW: number) =>
        this.b.native.conv2dInputGrad(num(dy), num(w), num(dx), g, outC, dyH, dyW),
    filterGrad: (x: Buf, dy: Buf, dw: Buf, g: number[], outC: number) => this.b.native.conv2dFilterGrad(num(x), num(dy), num(dw), g, outC),
  };
  input(t: TensorInfo): Buf {
    return this.b.devicePtr(t);
  }
  output(shape: number[], dtype: DataType) {
    const {info, ptr} = this.b.makeDeviceOutput(shape, dtype);
    return {info, buf: ptr};
  }
  unary(op: number, dtIn: NativeDType, dtOut: NativeDType, x: Buf, y: Buf, n: number, alpha: number, beta: number) {
    this.b.native.unary(op, dtIn, dtOut, num(x), num(y), n, alpha, beta);
  }
  binary(op: number, dtIn: NativeDType, dtOut: NativeDType, a: Buf, b: Buf, y: Buf, shape: number[], as: number[], bs: number[]) {
    if (sameContiguous(shape, as) && sameContiguous(shape, bs)) {
      this.b.native.binaryFlat(op, dtIn, dtOut, num(a), num(b), num(y), shape.reduce((x, d) => x * d, 1));
    } else {
      this.b.native.binary(op, dtIn, dtOut, num(a), num(b), num(y), shape, as, bs);
    }
  }
  binaryScalar(op: number, dtIn: NativeDType, dtOut: NativeDType, x: Buf, value: number, scalarFirst: boolean, y: Buf, n: number) {
    this.b.native.binaryScalar(op, dtIn, dtOut, num(x), value, scalarFirst, num(y), n);
  }
  select(dt: NativeDType, c: Buf, a: Buf, b: Buf, y: Buf, shape: number[], cs: number[], as: number[], bs: number[]) {
    this.b.native.select(dt, num(c), num(a), num(b), num(y), shape, cs, as, bs);
  }
  fill(dt: NativeDType, y: Buf, n: number, value: number) {
    this.b.native.fill(dt, num(y), n, value);
  }
  stridedCopy(e: number, src: Buf, so: number, ss: number[], sm: number[], dst: Buf, d0: number, ds: number[], shape: number[]) {
    this.b.native.stridedCopy(e, num(src), so, ss, sm, num(dst), d0, ds, shape);
  }
  reduce(op: number, dtIn: NativeDType, dtOut: NativeDType, x: Buf, y: Buf, outer: number, inner: number, after = 1) {
    this.b.native.reduce(op, dtIn, dtOut, num(x), num(y), outer, inner, after);
  }
  softmax(x: Buf, y: Buf, outer: number, inner: number) {
    this.b.native.softmax(num(x), num(y), outer, inner, false);
  }
  cumulative(product: boolean, dt: NativeDType, x: Buf, y: Buf, outer: number, n: number, inner: number, exclusive: boolean, reverse: boolean) {
    this.b.native.cumulative(product, dt, num(x), num(y), outer, n, inner, exclusive, reverse);
  }
  topK(dt: NativeDType, x: Buf, values: Buf, indices: Buf, rows: number, n: number, k: number) {
    this.b.native.topK(dt, num(x), num(values), num(indices), rows, n, k);
  }
  batchMatMul(a: Buf, b: Buf, c: Buf, batch: number, m: number, n: number, k: number, ta: boolean, tb: boolean, sa: number, sb: number) {
    this.b.native.batchMatMul(num(a), num(b), num(c), batch, m, n, k, ta, tb, sa, sb);
  }
  segmentSum(dt: NativeDType, x: Buf, ids: Buf, y: Buf, rows: number, inner: number, numSegments: number) {
    if (rows * inner > 0) this.b.native.unsortedSegmentSum(dt, num(x), num(ids), num(y), rows, inner, numSegments);
  }
  gather(dtype: DataType, x: Buf, idx: Buf, y: Buf, outer: number, axisDim: number, inner: number, numIndices: number,
         outerPerBatch: number, check: boolean): number {
    const nd = nativeDType(dtype)!;
    const launch = (flag: number) =>
        this.b.native.gather(nd, num(x), num(idx), num(y), outer, axisDim, inner, numIndices, outerPerBatch, flag);
    if (!check) {
      launch(0);
      return -1;
    }
    // The kernel never reads out of range; it records the first bad position.
    return this.b.withErrorFlag(launch);
  }
}

class HostRunner extends WindowCalls implements KernelRunner {
  readonly where = 'host' as const;
  input(t: TensorInfo): Buf {
    return this.b.hostArray(t);
  }
  output(shape: number[], dtype: DataType) {
    const values = typedArrayFor(dtype, util.sizeFromShape(shape));
    return {info: this.b.makeTensorInfo(shape, dtype, values), buf: values};
  }
  unary(op: number, dtIn: NativeDType, dtOut: NativeDType, x: Buf, y: Buf, _n: number, alpha: number, beta: number) {
    this.b.native.hostUnary(op, dtIn, dtOut, arr(x), arr(y), alpha, beta);
  }
  binary(op: number, dtIn: NativeDType, dtOut: NativeDType, a: Buf, b: Buf, y: Buf, shape: number[], as: number[], bs: number[]) {
    this.b.native.hostBinary(op, dtIn, dtOut, arr(a), arr(b), arr(y), shape, as, bs);
  }
  binaryScalar(op: number, dtIn: NativeDType, dtOut: NativeDType, x: Buf, value: number, scalarFirst: boolean, y: Buf, n: number) {
    const s = new (arr(x).constructor as Float32ArrayConstructor)(1);
    s[0] = value;
    const [a, b, as, bs] = scalarFirst ? [s, arr(x), [0], [1]] : [arr(x), s, [1], [0]];
    this.b.native.hostBinary(op, dtIn, dtOut, a, b, arr(y), [n], as, bs);
  }
  select(dt: NativeDType, c: Buf, a: Buf, b: Buf, y: Buf, shape: number[], cs: number[], as: number[], bs: number[]) {
    this.b.native.hostSelect(dt, arr(c), arr(a), arr(b), arr(y), shape, cs, as, bs);
  }
  fill(_dt: NativeDType, y: Buf, _n: number, value: number) {
    arr(y).fill(value);
  }
  stridedCopy(e: number, src: Buf, so: number, ss: number[], sm: number[], dst: Buf, d0: number, ds: number[], shape: number[]) {
    this.b.native.hostStridedCopy(e, arr(src), so, ss, sm, arr(dst), d0, ds, shape);
  }
  reduce(op: number, dtIn: NativeDType, dtOut: NativeDType, x: Buf, y: Buf, outer: number, inner: number, after = 1) {
    this.b.native.hostReduce(op, dtIn, dtOut, arr(x), arr(y), outer, inner, after);
  }
  softmax(x: Buf, y: Buf, outer: number, inner: number) {
    this.b.native.hostSoftmax(x as Float32Array, y as Float32Array, outer, inner, false);
  }
  cumulative(product: boolean, dt: NativeDType, x: Buf, y: Buf, outer: number, n: number, inner: number, exclusive: boolean, reverse: boolean) {
    this.b.native.hostCumulative(product, dt, arr(x), arr(y), outer, n, inner, exclusive, reverse);
  }
  topK(dt: NativeDType, x: Buf, values: Buf, indices: Buf, rows: number, n: number, k: number) {
    this.b.native.hostTopK(dt, arr(x), arr(values), indices as Int32Array, rows, n, k);
  }
  batchMatMul(a: Buf, b: Buf, c: Buf, batch: number, m: number, n: number, k: number, ta: boolean, tb: boolean, sa: number, sb: number) {
    this.b.native.hostBatchMatMul(a as Float32Array, b as Float32Array, c as Float32Array, batch, m, n, k, ta, tb, sa, sb);
  }
  segmentSum(dt: NativeDType, x: Buf, ids: Buf, y: Buf, rows: number, inner: number, numSegments: number) {
    this.b.native.hostSegmentSum(dt, arr(x), ids as Int32Array, arr(y), rows, inner, numSegments);
  }
  gather(dtype: DataType, x: Buf, idx: Buf, y: Buf, outer: number, axisDim: number, inner: number, numIndices: number,
         outerPerBatch: number): number {
    return this.b.native.hostGather(bytesPerElement(dtype), arr(x), idx as Int32Array, arr(y), outer, axisDim, inner,
                                    numIndices, outerPerBatch);
  }
}

const runners = new WeakMap<WholeMemoryBackend, KernelRunner | null>();

/** Where native kernels run for this backend: the GPU, the host CPU core, or nowhere (forward to tfjs-backend-cpu). */
export function runnerFor(backend: WholeMemoryBackend): KernelRunner | null {
  let r = runners.get(backend);
  if (r === undefined) {
    r = backend.gpu ? new DeviceRunner(backend) : backend.hostKernels ? new HostRunner(backend) : null;
    runners.set(backend, r);
  }
  return r;
}

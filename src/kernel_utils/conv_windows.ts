// What the 2-D convolutions and pools share: their geometry (and its form
// for the native window kernels, wm/window2d.h), the pools' setup, layout
// changes, and the CPU core's convolutions as window copies (im2col)
// feeding its vectorised matmul. On the GPU the convolutions are implicit
// GEMMs instead (conv2d_*.cu). The gradients with respect to an input are
// convolutions too, over the upstream gradient spread out by the stride (a
// transposed convolution), so nothing scatters and every result has a fixed
// summation order.
import {backend_util, MaxPoolAttrs, TensorInfo, util} from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {runOnCpu} from '../backend/fallback';
import {KernelRunner} from '../backend/runner';
import {addConfig} from '../kernels/Add';
import {batchMatMulConfig} from '../kernels/BatchMatMul';
import {backendOf, callKernel, contiguousStrides, copyView, FLOAT, KernelArgs, nativeRunner, nd, reshapeView} from './kernel_utils';
import {PoolOp} from './op_codes';
import {padV2Config} from '../kernels/PadV2';

/** Where windows are taken from an NHWC tensor [batch, inH, inW, chans] and how many there are. */
export interface WindowGeometry {
  batch: number;
  inH: number;
  inW: number;
  chans: number;
  outH: number;
  outW: number;
  fH: number;
  fW: number;
  sH: number;
  sW: number;
  dH: number;
  dW: number;
  /** Padding before the first row / column (the rest of the padding follows from the sizes). */
  top: number;
  left: number;
}

type ConvArgs = Parameters<typeof backend_util.computeConv2DInfo>;

/** tfjs' geometry of a 2-D convolution from a kernel's attributes (dilations default to 1). */
export function convInfo(
  inShape: readonly number[],
  filterShape: readonly number[],
  attrs: {strides: ConvArgs[2]; dilations?: ConvArgs[3]; pad: ConvArgs[4]; dimRoundingMode?: ConvArgs[5]},
  depthwise: boolean,
  format?: ConvArgs[7],
): backend_util.Conv2DInfo {
  const shape4 = (s: readonly number[]) => s as [number, number, number, number];
  const {strides, dilations, pad, dimRoundingMode} = attrs;
  return backend_util.computeConv2DInfo(
    shape4(inShape),
    shape4(filterShape),
    strides,
    dilations ?? 1,
    pad,
    dimRoundingMode,
    depthwise,
    format,
  );
}

export function geometryOf(info: backend_util.Conv2DInfo): WindowGeometry {
  return {
    batch: info.batchSize,
    inH: info.inHeight,
    inW: info.inWidth,
    chans: info.inChannels,
    outH: info.outHeight,
    outW: info.outWidth,
    fH: info.filterHeight,
    fW: info.filterWidth,
    sH: info.strideHeight,
    sW: info.strideWidth,
    dH: info.dilationHeight,
    dW: info.dilationWidth,
    top: info.padInfo.top,
    left: info.padInfo.left,
  };
}

/** The 14 numbers of wm::Window2D, the geometry the native window kernels take. */
export function windowArray(g: WindowGeometry): number[] {
  return [g.batch, g.inH, g.inW, g.chans, g.outH, g.outW, g.fH, g.fW, g.sH, g.sW, g.dH, g.dW, g.top, g.left];
}

/** A pool of x (NHWC) in one native kernel: [batch, outH, outW, chans], int32 window positions for ArgMax. */
export function pool2d(runner: KernelRunner, x: TensorInfo, g: WindowGeometry, op: PoolOp): TensorInfo {
  const {info, buf} = runner.output([g.batch, g.outH, g.outW, g.chans], op === PoolOp.ArgMax ? 'int32' : 'float32');
  runner.native.pool2d(op, runner.input(x), buf, windowArray(g));
  return info;
}

// Window copies above this many elements are made a few images at a time
// (a 3x3 convolution's copy is 9x its input).
function windowBudget(): number {
  const v = Number(process.env.WM_CONV_WINDOW_ELEMENTS);
  return Number.isFinite(v) && v > 0 ? v : 1 << 25;
}

/** Image ranges [first, count) whose window copies stay within the budget. */
function batchChunks(batch: number, elementsPerImage: number): [number, number][] {
  const per = Math.max(1, Math.floor(windowBudget() / Math.max(1, elementsPerImage)));
  const chunks: [number, number][] = [];
  for (let n0 = 0; n0 < batch; n0 += per) chunks.push([n0, Math.min(per, batch - n0)]);
  return chunks;
}

/** A padded input every window lies inside, with the geometry of windows over it (no padding left). */
export interface Padded {
  t: TensorInfo;
  g: WindowGeometry;
  /** Whether `t` is a new tensor the caller disposes (else it is the input itself). */
  owned: boolean;
}

/** Pads x (NHWC) with `value` where windows of g reach outside it; x itself when none do. */
export function padForWindows(backend: WholeMemoryBackend, x: TensorInfo, g: WindowGeometry, value: number): Padded {
  const hp = Math.max(g.inH + g.top, (g.outH - 1) * g.sH + (g.fH - 1) * g.dH + 1);
  const wp = Math.max(g.inW + g.left, (g.outW - 1) * g.sW + (g.fW - 1) * g.dW + 1);
  const inner = {...g, inH: hp, inW: wp, top: 0, left: 0};
  if (g.top === 0 && g.left === 0 && hp === g.inH && wp === g.inW) return {t: x, g: inner, owned: false};
  const paddings = [
    [0, 0],
    [g.top, hp - g.inH - g.top],
    [g.left, wp - g.inW - g.left],
    [0, 0],
  ];
  return {t: callKernel(padV2Config, {inputs: {x}, backend, attrs: {paddings, constantValue: value}}), g: inner, owned: true};
}

/**
 * Spreads src [batch, rows, cols, inner] into zeros of [batch, hp, wp, inner]: element (r, c) goes to
 * (r * sH + top, c * sW + left), those falling outside are dropped. With the top/left of a transposed
 * convolution this is the input whose plain windows give an input gradient. Only the first `used`
 * rows and columns are read (tfjs-backend-cpu reads a dy larger than the geometry's output that way).
 */
export function spread(
  runner: KernelRunner,
  src: TensorInfo,
  hp: number,
  wp: number,
  sH: number,
  sW: number,
  top: number,
  left: number,
  used: [number, number] = [src.shape[1], src.shape[2]],
): TensorInfo {
  const [batch, , cols] = src.shape;
  const rows = Math.min(src.shape[1], used[0]),
    usedCols = Math.min(cols, used[1]);
  const inner = util.sizeFromShape(src.shape.slice(3));
  const {info, buf} = runner.output([batch, hp, wp, ...src.shape.slice(3)], src.dtype);
  const total = batch * hp * wp * inner;
  if (total === 0) return info;
  runner.native.fill(nd(src.dtype), buf, total, 0);
  // The source rows that land inside: 0 <= r * s + top < hp.
  const r0 = Math.max(0, Math.ceil(-top / sH)),
    r1 = Math.min(rows, Math.floor((hp - 1 - top) / sH) + 1);
  const c0 = Math.max(0, Math.ceil(-left / sW)),
    c1 = Math.min(usedCols, Math.floor((wp - 1 - left) / sW) + 1);
  if (r1 <= r0 || c1 <= c0 || inner === 0) return info;
  const shape = [batch, r1 - r0, c1 - c0, inner];
  runner.native.stridedCopy(
    4,
    runner.input(src),
    (r0 * cols + c0) * inner,
    [src.shape[1] * cols * inner, cols * inner, inner, 1],
    shape,
    buf,
    ((r0 * sH + top) * wp + c0 * sW + left) * inner,
    [hp * wp * inner, sH * wp * inner, sW * inner, 1],
    shape,
  );
  return info;
}

/**
 * The geometry of an input gradient as a stride-1 convolution over `spread(dy)`: the forward geometry g
 * turned around (the filter is read flipped by the caller).
 */
export function transposedGeometry(
  g: WindowGeometry,
  chans: number,
): {g: WindowGeometry; hp: number; wp: number; top: number; left: number} {
  const effH = (g.fH - 1) * g.dH + 1,
    effW = (g.fW - 1) * g.dW + 1;
  const hp = g.inH + effH - 1,
    wp = g.inW + effW - 1;
  return {
    g: {
      batch: g.batch,
      inH: hp,
      inW: wp,
      chans,
      outH: g.inH,
      outW: g.inW,
      fH: g.fH,
      fW: g.fW,
      sH: 1,
      sW: 1,
      dH: g.dH,
      dW: g.dW,
      top: 0,
      left: 0,
    },
    hp,
    wp,
    top: effH - 1 - g.top,
    left: effW - 1 - g.left,
  };
}

/**
 * Copies the windows of images [n0, n0 + nb) of p (already padded: g.top = g.left = 0) out as rows:
 * [nb*outH*outW, fH*fW*chans] (im2col).
 */
export function windows(runner: KernelRunner, p: TensorInfo, g: WindowGeometry, n0: number, nb: number): TensorInfo {
  const c = g.chans,
    row = g.inW * c;
  const view = copyView(
    runner,
    p,
    n0 * g.inH * row,
    [g.inH * row, g.sH * row, g.sW * c, g.dH * row, g.dW * c, 1],
    [nb, g.outH, g.outW, g.fH, g.fW, c],
  );
  return {...view, shape: [nb * g.outH * g.outW, g.fH * g.fW * c]};
}

function dispose(backend: WholeMemoryBackend, ...ts: TensorInfo[]): void {
  for (const t of ts) backend.disposeIntermediateTensorInfo(t);
}

function matMul(backend: WholeMemoryBackend, a: TensorInfo, b: TensorInfo, transposeA = false): TensorInfo {
  return callKernel(batchMatMulConfig, {inputs: {a, b}, backend, attrs: {transposeA, transposeB: false}});
}

/** A zero-filled float32 tensor (an empty sum). */
function zeros(runner: KernelRunner, shape: number[]): TensorInfo {
  const {info, buf} = runner.output(shape, 'float32');
  runner.native.fill(nd('float32'), buf, util.sizeFromShape(shape), 0);
  return info;
}

/**
 * A convolution over p (padded, NHWC) with the filter as a [fH*fW*chans, outC] matrix, from window copies:
 * [batch, outH, outW, outC].
 */
export function windowConv(
  backend: WholeMemoryBackend,
  runner: KernelRunner,
  p: TensorInfo,
  g: WindowGeometry,
  filter: TensorInfo,
  outC: number,
): TensorInfo {
  const pixels = g.outH * g.outW,
    k = g.fH * g.fW * g.chans;
  const outShape = [g.batch, g.outH, g.outW, outC];
  if (g.batch * pixels * outC === 0 || k === 0) return zeros(runner, outShape);
  const w = reshapeView(backend, filter, [k, outC]);
  try {
    // A 1x1 window of stride 1 over an unpadded input is the input itself.
    if (g.fH === 1 && g.fW === 1 && g.sH === 1 && g.sW === 1 && g.inH === g.outH && g.inW === g.outW) {
      const rows = reshapeView(backend, p, [g.batch * pixels, k]);
      const product = matMul(backend, rows, w);
      dispose(backend, rows);
      return {...product, shape: outShape};
    }
    const chunks = batchChunks(g.batch, pixels * k);
    const product = (n0: number, nb: number) => {
      // [nb*pixels, outC]
      const cols = windows(runner, p, g, n0, nb);
      const y = matMul(backend, cols, w);
      dispose(backend, cols);
      return y;
    };
    if (chunks.length === 1) return {...product(0, g.batch), shape: outShape};
    const {info, buf} = runner.output(outShape, 'float32');
    for (const [n0, nb] of chunks) {
      const part = product(n0, nb);
      const n = nb * pixels * outC;
      runner.native.stridedCopy(4, runner.input(part), 0, [1], [n], buf, n0 * pixels * outC, [1], [n]);
      dispose(backend, part);
    }
    return info;
  } finally {
    dispose(backend, w);
  }
}

/**
 * The filter gradient of windowConv: the windows' transpose times dy ([batch, outH, outW, outC]), summed
 * over the chunks in order. Returns [fH*fW*chans, outC].
 */
export function windowConvFilterGrad(
  backend: WholeMemoryBackend,
  runner: KernelRunner,
  p: TensorInfo,
  g: WindowGeometry,
  dy: TensorInfo,
  outC: number,
): TensorInfo {
  const pixels = g.outH * g.outW,
    k = g.fH * g.fW * g.chans;
  if (g.batch * pixels === 0 || k * outC === 0) return zeros(runner, [k, outC]);
  let sum: TensorInfo | null = null;
  for (const [n0, nb] of batchChunks(g.batch, pixels * k)) {
    const rows = nb * pixels;
    const cols = windows(runner, p, g, n0, nb);
    const dyRows = copyView(runner, dy, n0 * pixels * outC, [outC, 1], [rows, outC]);
    const part = matMul(backend, cols, dyRows, true);
    dispose(backend, cols, dyRows);
    if (sum === null) {
      sum = part;
    } else {
      const next = callKernel(addConfig, {inputs: {a: sum, b: part}, backend, attrs: {}});
      dispose(backend, sum, part);
      sum = next;
    }
  }
  return sum!;
}

/** A filter [fH, fW, inC, outC] rotated half a turn with its channel axes swapped: [fH, fW, outC, inC]. */
export function flippedFilter(runner: KernelRunner, filter: TensorInfo): TensorInfo {
  const [fH, fW, inC, outC] = filter.shape;
  const s = contiguousStrides(filter.shape);
  return copyView(runner, filter, (fH - 1) * s[0] + (fW - 1) * s[1], [-s[0], -s[1], 1, s[2]], [fH, fW, outC, inC]);
}

/** x NCHW as NHWC, or x itself (not owned) when already channels-last. */
export function toChannelsLast(runner: KernelRunner, x: TensorInfo, channelsFirst: boolean): {t: TensorInfo; owned: boolean} {
  if (!channelsFirst) return {t: x, owned: false};
  const s = contiguousStrides(x.shape);
  const [n, c, h, w] = x.shape;
  return {t: copyView(runner, x, 0, [s[0], s[2], s[3], s[1]], [n, h, w, c]), owned: true};
}

/** y NHWC back to NCHW when the kernel was asked for channels-first (disposes y then). */
export function fromChannelsLast(backend: WholeMemoryBackend, runner: KernelRunner, y: TensorInfo, channelsFirst: boolean): TensorInfo {
  if (!channelsFirst) return y;
  const s = contiguousStrides(y.shape);
  const [n, h, w, c] = y.shape;
  const out = copyView(runner, y, 0, [s[0], s[3], s[1], s[2]], [n, c, h, w]);
  dispose(backend, y);
  return out;
}

/**
 * What MaxPool and AvgPool start with: the runner, input and geometry, or their result already (the CPU
 * fallback, or a copy for a 1x1 pool that changes nothing).
 */
export function poolSetup(
  args: KernelArgs,
  kernelName: string,
): TensorInfo | {backend: WholeMemoryBackend; runner: KernelRunner; x: TensorInfo; g: WindowGeometry} {
  const backend = backendOf(args);
  const x = args.inputs.x as TensorInfo;
  const {filterSize, strides, pad, dimRoundingMode} = args.attrs as unknown as MaxPoolAttrs;
  const runner = nativeRunner(backend, [x], FLOAT);
  if (runner === null || x.shape.length !== 4) return runOnCpu(kernelName, args) as TensorInfo;
  const info = backend_util.computePool2DInfo(x.shape as [number, number, number, number], filterSize, strides, 1, pad, dimRoundingMode);
  if (info.filterWidth === 1 && info.filterHeight === 1 && util.arraysEqual(info.inShape, info.outShape)) {
    return copyView(runner, x, 0, contiguousStrides(x.shape), x.shape);
  }
  return {backend, runner, x, g: geometryOf(info)};
}

export {dispose as disposeAll};

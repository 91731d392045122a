// Graph attention's native passes (wm/graph_ops.h) on the GPU (device addresses) or the CPU core (typed arrays):
// the forward pass, and the gradient's row pass and column pass. Each reads feat, src and dst as columns of wider
// matrices in place (row strides) and writes their gradients in the same layout, so a layer that computes many
// relations' features and logits in one product (rgat_pass.ts) neither splits the product nor concatenates the
// gradients.
import * as tf from '@tensorflow/tfjs-core';

import type {WholeMemoryBackend} from '../backend/backend_wholememory';
import type {CsrBlock} from '../graph/aggregate';
import {layerNative} from '../native/domains';
import type {Buf} from '../native/ops';

/**
 * A float32 matrix's columns read in place, from column `offset` of each row of the 2-D t (row i's start
 * `offset + i * t.shape[1]` floats into its data). A tensor alone: its own packed rows.
 */
export type Columns = tf.Tensor | {t: tf.Tensor2D; offset: number};

/** Where a pass writes a gradient: row i's values start `offset + i * stride` floats into buf (a device address or a Float32Array). */
export interface Place {
  buf: Buf;
  offset: number;
  stride: number;
}

/** The floats of buf from `offset` on: an address on the GPU, a view of the array on the host. */
export function floatsAt(buf: Buf, offset: number): Buf {
  if (typeof buf === 'number') return buf + 4 * offset;
  return (buf as Float32Array).subarray(offset);
}

const strideOf = (c: Columns, packed: number) => (c instanceof tf.Tensor ? packed : c.t.shape[1]);

/** The native passes' three row strides (feat's, src's, dst's; their gradients' alike); the ops check each holds a row. */
function strides(feat: Columns, src: Columns, dst: Columns, heads: number, dim: number): [number, number, number] {
  return [strideOf(feat, heads * dim), strideOf(src, heads), strideOf(dst, heads)];
}

/**
 * The pass's three inputs where the native op reads them, each checked to lie within its tensor (`rows` rows of
 * `width` floats at its stride): the GPU's kernels cannot check an address.
 */
function inputs(b: WholeMemoryBackend, block: CsrBlock, cs: [Columns, Columns, Columns], heads: number, dim: number): Buf[] {
  const shapes = [
    ['feat', block.numCols, heads * dim],
    ['src', block.numCols, heads],
    ['dst', block.numRows, heads],
  ] as const;
  return cs.map((c, k) => {
    const [name, rows, width] = shapes[k];
    const {t, offset} = c instanceof tf.Tensor ? {t: c, offset: 0} : c;
    const stride = strideOf(c, width);
    const span = rows === 0 ? 0 : offset + (rows - 1) * stride + width;
    if (t.dtype !== 'float32' || span > t.size)
      throw new RangeError(
        `graph attention: ${name} must hold ${rows} rows of ${width} floats ${stride} apart from ${offset} (${span} floats), got a ${t.dtype} tensor of ${t.size}`,
      );
    return floatsAt(b.gpu ? b.devicePtr(t) : b.hostArray(t), offset);
  });
}

/** The forward pass: its output [rows, heads, dim] and the attention weights [entries, heads]. */
export function gatForwardPass(
  b: WholeMemoryBackend,
  block: CsrBlock,
  feat: Columns,
  src: Columns,
  dst: Columns,
  heads: number,
  dim: number,
  slope: number,
): tf.Tensor[] {
  const c = block.entries(false),
    rows = block.numRows,
    cols = block.numCols,
    nnz = block.numEntries;
  const st = strides(feat, src, dst, heads, dim);
  const [f, s, t] = inputs(b, block, [feat, src, dst], heads, dim);
  if (b.gpu) {
    const d = block.onDevice(c);
    return b.deviceOutputs(
      [
        [rows, heads, dim],
        [nnz, heads],
      ],
      ([out, alpha]) =>
        layerNative().gatForward(b.devicePtr(d.rowPtr), b.devicePtr(d.colIdx), rows, cols, f, s, t, heads, dim, slope, out, alpha, ...st),
    );
  }
  const out = new Float32Array(rows * heads * dim),
    alpha = new Float32Array(nnz * heads);
  layerNative().gatForward(c.rowPtr, c.colIdx, rows, cols, f, s, t, heads, dim, slope, out, alpha, ...st);
  return [tf.tensor3d(out, [rows, heads, dim]), tf.tensor2d(alpha, [nnz, heads])];
}

/** A scratch buffer of n floats for the passes: device memory on the GPU (free it with freeScratch), else an array. */
export function scratch(b: WholeMemoryBackend, n: number): Buf {
  return b.gpu ? b.allocDevice(Math.max(1, n) * 4) : new Float32Array(n);
}

export function freeScratch(b: WholeMemoryBackend, buf: Buf): void {
  if (typeof buf === 'number') b.freeDevice(buf); // stream-ordered: reused only after the passes queued before
}

/**
 * The gradient's row pass from the forward pass's inputs, its attention weights and the output's gradient dOut
 * [rows, heads, dim]: each entry's dz into `dz` ([entries, heads], scratch) and dDst where `dDst` says (dst's layout).
 */
export function gatRowsPass(
  b: WholeMemoryBackend,
  block: CsrBlock,
  [feat, src, dst]: [Columns, Columns, Columns],
  alpha: tf.Tensor,
  dOut: tf.Tensor,
  heads: number,
  dim: number,
  slope: number,
  dz: Buf,
  dDst: Place,
): void {
  const st = strides(feat, src, dst, heads, dim);
  if (dDst.stride !== st[2]) throw new RangeError(`gatRowsPass: dDst's row stride ${dDst.stride} must be dst's, ${st[2]}`);
  const [f, s, t] = inputs(b, block, [feat, src, dst], heads, dim);
  const ins = [f, s, t, heads, dim, slope] as const;
  if (b.gpu) {
    const d = block.onDevice(block.entries(false));
    layerNative().gatBackwardRows(
      b.devicePtr(d.rowPtr),
      b.devicePtr(d.colIdx),
      block.numRows,
      block.numCols,
      ...ins,
      b.devicePtr(alpha),
      b.devicePtr(dOut),
      dz,
      floatsAt(dDst.buf, dDst.offset),
      ...st,
    );
    return;
  }
  const c = block.entries(false);
  const args = [b.hostArray(alpha) as Float32Array, b.hostArray(dOut) as Float32Array, dz, floatsAt(dDst.buf, dDst.offset)] as const;
  layerNative().gatBackwardRows(c.rowPtr, c.colIdx, block.numRows, block.numCols, ...ins, ...args, ...st);
}

/**
 * The gradient's column pass from the attention weights, the row pass's dz and dOut: dFeat and dSrc written where
 * they say (each [numCols] rows of heads * dim and heads floats, at the strides given). Their rows must hold zeros
 * (zeroedOutputs): on a block that scatters (GPU) the pass adds into them.
 */
export function gatColsPass(
  b: WholeMemoryBackend,
  block: CsrBlock,
  alpha: tf.Tensor,
  dz: Buf,
  dOut: tf.Tensor,
  heads: number,
  dim: number,
  dFeat: Place,
  dSrc: Place,
): void {
  const rows = block.numRows,
    cols = block.numCols;
  const st = [dFeat.stride, dSrc.stride, heads] as const;
  const outs = [floatsAt(dFeat.buf, dFeat.offset), floatsAt(dSrc.buf, dSrc.offset)] as const;
  if (b.gpu) {
    const ap = b.devicePtr(alpha),
      dyp = b.devicePtr(dOut);
    // A block sampled for one step scatters its column pass from the forward block (no transpose made on the host).
    if (block.scatters) {
      const d = block.onDevice(block.entries(false));
      const [df, ds] = outs as unknown as [number, number];
      layerNative().gatBackwardScatter(
        b.devicePtr(d.rowPtr),
        b.devicePtr(d.colIdx),
        rows,
        cols,
        ap,
        dz as number,
        dyp,
        heads,
        dim,
        df,
        ds,
        ...st,
      );
      return;
    }
    const dt = block.onDevice(block.entries(true));
    const t = [b.devicePtr(dt.rowPtr), b.devicePtr(dt.colIdx), dt.edge ? b.devicePtr(dt.edge) : 0] as const;
    layerNative().gatBackwardCols(...t, cols, rows, ap, dz, dyp, heads, dim, ...outs, ...st);
    return;
  }
  const t = block.entries(true);
  const g = [b.hostArray(alpha) as Float32Array, dz, b.hostArray(dOut) as Float32Array] as const;
  layerNative().gatBackwardCols(t.rowPtr, t.colIdx, t.edge!, cols, rows, ...g, heads, dim, ...outs, ...st);
}

/**
 * New float32 tensors of these shapes, the first `zeroed` (default all) holding zeros, then written by `run` (device
 * addresses on the GPU, else arrays, which start as zeros).
 */
export function zeroedOutputs(b: WholeMemoryBackend, shapes: number[][], run: (outs: Buf[]) => void, zeroed = shapes.length): tf.Tensor[] {
  return b.nativeOutputs([], shapes, (_ins, outs) => {
    if (b.gpu) outs.slice(0, zeroed).forEach((o, i) => layerNative().fill(0 /* float32 */, o, tf.util.sizeFromShape(shapes[i]), 0));
    run(outs);
  });
}

/** The backward pass from saved [feat, src, dst, alpha] (packed) and the output's gradient: [dFeat, dSrc, dDst], packed. */
export function gatBackwardPass(
  b: WholeMemoryBackend,
  block: CsrBlock,
  saved: tf.Tensor[],
  dy: tf.Tensor,
  heads: number,
  dim: number,
  slope: number,
): tf.Tensor[] {
  const [feat, src, dst, alpha] = saved;
  const rows = block.numRows,
    cols = block.numCols;
  const dz = scratch(b, alpha.size);
  try {
    return zeroedOutputs(
      b,
      [
        [cols, heads, dim],
        [cols, heads],
        [rows, heads],
      ],
      ([dFeat, dSrc, dDst]) => {
        gatRowsPass(b, block, [feat, src, dst], alpha, dy, heads, dim, slope, dz, {buf: dDst, offset: 0, stride: heads});
        const place = (buf: Buf, stride: number) => ({buf, offset: 0, stride});
        gatColsPass(b, block, alpha, dz, dy, heads, dim, place(dFeat, heads * dim), place(dSrc, heads));
      },
      // The row pass writes every row of dDst, the column pass every row of dFeat and dSrc unless it scatters (adds).
      block.scatters ? 2 : 0,
    );
  } finally {
    freeScratch(b, dz);
  }
}

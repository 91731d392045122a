// Graph attention (GAT, Veličković et al.) over a CSR block as one native op
// each way: the edge softmax and the weighted sum of the sources' features
// (a warp per row and head on the GPU; the CPU core's loops elsewhere), and
// for the gradient a pass over the rows and one over the transposed block,
// which gathers what the forward scattered: no atomics, no [edges, dim]
// intermediate, deterministic. The projections (feat = x W, the logits'
// halves src = feat · a_src, dst = featDst · a_dst) stay ordinary tfjs ops,
// as in DGL's GATConv, so any layer built around them trains with tfjs'
// optimizers.
import * as tf from '@tensorflow/tfjs-core';

import {nativeBackend, WholeMemoryBackend} from '../backend/backend_wholememory';
import {CsrBlock} from '../graph/aggregate';
import {layerNative} from '../native/domains';
import {dropout} from './dropout';

export interface GatOptions {
  /** LeakyReLU slope of the attention logits (GAT's 0.2). */
  negativeSlope?: number;
}

/**
 * For each row r of `block` and head h: weights alpha = softmax over r's entries e (source s) of
 * leakyRelu(src[s, h] + dst[r, h]), and out[r, h, :] = sum_e alpha_e feat[s, h, :]; a row without
 * entries gives zeros. feat: [block.numCols, heads, dim]; src: [block.numCols, heads]; dst:
 * [block.numRows, heads]; all float32. Differentiable in all three.
 */
export function gatAggregate(
  block: CsrBlock,
  feat: tf.Tensor3D,
  src: tf.Tensor2D,
  dst: tf.Tensor2D,
  options: GatOptions = {},
): tf.Tensor3D {
  const slope = options.negativeSlope ?? 0.2;
  if (typeof slope !== 'number' || !Number.isFinite(slope))
    throw new RangeError(`gatAggregate: negativeSlope must be a finite number, got ${slope}`);
  if (!(block instanceof CsrBlock)) throw new TypeError('gatAggregate: block must be a CsrBlock');
  if (block.weights)
    throw new TypeError('gatAggregate: the block has edge weights, which attention does not read; pass the block without them');
  for (const [name, t, rank] of [
    ['feat', feat, 3],
    ['src', src, 2],
    ['dst', dst, 2],
  ] as const) {
    if (!(t instanceof tf.Tensor) || t.rank !== rank || t.dtype !== 'float32') {
      throw new TypeError(
        `gatAggregate: ${name} must be a float32 tensor of rank ${rank}, got ${t instanceof tf.Tensor ? `${t.dtype} [${t.shape}]` : typeof t}`,
      );
    }
  }
  const [cols, heads, dim] = feat.shape;
  if (cols !== block.numCols) throw new RangeError(`gatAggregate: feat has ${cols} rows, the block reads ${block.numCols}`);
  if (src.shape[0] !== cols || src.shape[1] !== heads)
    throw new RangeError(`gatAggregate: src must be [${cols}, ${heads}], got [${src.shape}]`);
  if (dst.shape[0] !== block.numRows || dst.shape[1] !== heads) {
    throw new RangeError(`gatAggregate: dst must be [${block.numRows}, ${heads}], got [${dst.shape}]`);
  }
  const b = nativeBackend();
  if (!b) return composite(block, feat, src, dst, slope);
  const f = tf.customGrad(((fe: tf.Tensor, s: tf.Tensor, d: tf.Tensor, save: tf.GradSaveFunc) => {
    const [out, alpha] = gatForwardPass(b, block, fe, s, d, heads, dim, slope);
    save([fe, s, d, alpha]);
    return {
      value: out,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => gatBackwardPass(b, block, saved, dy, heads, dim, slope),
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return f(feat, src, dst) as tf.Tensor3D;
}

/** @internal gatAggregate's native forward pass: its output [rows, heads, dim] and the attention weights [entries, heads]. */
export function gatForwardPass(
  b: WholeMemoryBackend,
  block: CsrBlock,
  feat: tf.Tensor,
  src: tf.Tensor,
  dst: tf.Tensor,
  heads: number,
  dim: number,
  slope: number,
): tf.Tensor[] {
  const c = block.entries(false),
    rows = block.numRows,
    cols = block.numCols,
    nnz = c.colIdx.length;
  if (b.gpu) {
    const d = block.onDevice(c);
    return b.deviceOutputs(
      [
        [rows, heads, dim],
        [nnz, heads],
      ],
      ([out, alpha]) => {
        layerNative().gatForward(
          b.devicePtr(d.rowPtr),
          b.devicePtr(d.colIdx),
          rows,
          cols,
          b.devicePtr(feat),
          b.devicePtr(src),
          b.devicePtr(dst),
          heads,
          dim,
          slope,
          out,
          alpha,
        );
      },
    );
  }
  const out = new Float32Array(rows * heads * dim),
    alpha = new Float32Array(nnz * heads);
  layerNative().gatForward(
    c.rowPtr,
    c.colIdx,
    rows,
    cols,
    b.hostArray(feat) as Float32Array,
    b.hostArray(src) as Float32Array,
    b.hostArray(dst) as Float32Array,
    heads,
    dim,
    slope,
    out,
    alpha,
  );
  return [tf.tensor3d(out, [rows, heads, dim]), tf.tensor2d(alpha, [nnz, heads])];
}

/** @internal gatAggregate's native backward pass from saved [feat, src, dst, alpha] and the output's gradient: [dFeat, dSrc, dDst]. */
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
  const c = block.entries(false);
  const rows = block.numRows,
    cols = block.numCols,
    nnz = c.colIdx.length;
  if (b.gpu) {
    // A block sampled for one step scatters its column pass from the forward block (no transpose made on the host).
    const d = block.onDevice(c),
      dt = block.scatters ? undefined : block.onDevice(block.entries(true));
    const dz = b.allocDevice(Math.max(1, nnz * heads) * 4);
    try {
      return b.deviceOutputs(
        [
          [cols, heads, dim],
          [cols, heads],
          [rows, heads],
        ],
        ([dFeat, dSrc, dDst]) => {
          const dyp = b.devicePtr(dy),
            ap = b.devicePtr(alpha);
          layerNative().gatBackwardRows(
            b.devicePtr(d.rowPtr),
            b.devicePtr(d.colIdx),
            rows,
            cols,
            b.devicePtr(feat),
            b.devicePtr(src),
            b.devicePtr(dst),
            heads,
            dim,
            slope,
            ap,
            dyp,
            dz,
            dDst,
          );
          const tail = [ap, dz, dyp, heads, dim, dFeat, dSrc] as const;
          if (!dt) layerNative().gatBackwardScatter(b.devicePtr(d.rowPtr), b.devicePtr(d.colIdx), rows, cols, ...tail);
          else
            layerNative().gatBackwardCols(
              b.devicePtr(dt.rowPtr),
              b.devicePtr(dt.colIdx),
              dt.edge ? b.devicePtr(dt.edge) : 0,
              cols,
              rows,
              ...tail,
            );
        },
      );
    } finally {
      b.freeDevice(dz); // stream-ordered: reused only after the column pass that reads it
    }
  }
  const t = block.entries(true);
  const a = b.hostArray(alpha) as Float32Array,
    g = b.hostArray(dy) as Float32Array;
  const dz = new Float32Array(nnz * heads),
    dDst = new Float32Array(rows * heads);
  const dFeat = new Float32Array(cols * heads * dim),
    dSrc = new Float32Array(cols * heads);
  layerNative().gatBackwardRows(
    c.rowPtr,
    c.colIdx,
    rows,
    cols,
    b.hostArray(feat) as Float32Array,
    b.hostArray(src) as Float32Array,
    b.hostArray(dst) as Float32Array,
    heads,
    dim,
    slope,
    a,
    g,
    dz,
    dDst,
  );
  layerNative().gatBackwardCols(t.rowPtr, t.colIdx, t.edge!, cols, rows, a, dz, g, heads, dim, dFeat, dSrc);
  return [tf.tensor3d(dFeat, [cols, heads, dim]), tf.tensor2d(dSrc, [cols, heads]), tf.tensor2d(dDst, [rows, heads])];
}

/**
 * @internal On another backend: the same function from tfjs ops (gathers and segment sums; each row's
 * maximum, taken on the host, only steadies the exponentials: the softmax does not depend on it).
 * bench:gat times it on our backend too, against the fused op.
 */
export function composite(
  block: CsrBlock,
  feat: tf.Tensor3D,
  src: tf.Tensor2D,
  dst: tf.Tensor2D,
  slope: number,
  attentionDropout?: {rate: number; seed: number},
): tf.Tensor3D {
  const c = block.entries(false),
    rows = block.numRows,
    heads = feat.shape[1];
  const rowOf = block.entryRows;
  return tf.tidy(() => {
    const colT = tf.tensor1d(c.colIdx, 'int32'),
      rowT = tf.tensor1d(rowOf, 'int32');
    const z = tf.leakyRelu(tf.add(tf.gather(src, colT), tf.gather(dst, rowT)), slope); // [nnz, heads]
    const zs = z.dataSync();
    const max = new Float32Array(rows * heads).fill(-Infinity);
    rowOf.forEach((r, e) => {
      for (let h = 0; h < heads; ++h) max[r * heads + h] = Math.max(max[r * heads + h], zs[e * heads + h]);
    });
    const ex = tf.exp(tf.sub(z, tf.gather(tf.tensor2d(max, [rows, heads]), rowT)));
    let alpha = tf.div(ex, tf.gather(tf.unsortedSegmentSum(ex, rowT, rows), rowT));
    // GAT's dropout on the attention coefficients (each entry's weight zeroed, the others scaled up).
    if (attentionDropout && attentionDropout.rate > 0) alpha = dropout(alpha, attentionDropout.rate, attentionDropout.seed);
    return tf.unsortedSegmentSum(tf.mul(tf.expandDims(alpha, 2), tf.gather(feat, colT)), rowT, rows) as tf.Tensor3D;
  });
}

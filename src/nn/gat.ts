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

import {nativeBackend} from '../backend/backend_wholememory';
import {CsrBlock} from '../graph/aggregate';
import {dropout} from './dropout';
import {gatBackwardPass, gatForwardPass} from './gat_passes';

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

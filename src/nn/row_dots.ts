// Dot products of each row of a [n, d] with the matching row of every block
// of b [m, n, d] — tf.sum(tf.mul(b, a), 2) — as one native op each way
// (skip-gram scores of centers against their positive and negative
// contexts): the products are never written out, and the gradient is one
// pass over a's rows (no broadcast reduction). Other backends get the tfjs ops.
import * as tf from '@tensorflow/tfjs-core';

import {nativeBackend, WholeMemoryBackend} from '../backend/backend_wholememory';
import {layerNative} from '../native/domains';

/** out[j, i] = a[i] . b[j, i]: a float32 [n, d], b float32 [m, n, d], out [m, n]. Differentiable in both. */
export function rowDots(a: tf.Tensor2D, b: tf.Tensor3D): tf.Tensor2D {
  for (const [name, t, rank] of [
    ['a', a, 2],
    ['b', b, 3],
  ] as const) {
    if (!(t instanceof tf.Tensor) || t.rank !== rank || t.dtype !== 'float32') {
      throw new TypeError(
        `rowDots: ${name} must be a float32 tensor of rank ${rank}, got ${t instanceof tf.Tensor ? `${t.dtype} [${t.shape}]` : typeof t}`,
      );
    }
  }
  const [n, d] = a.shape,
    m = b.shape[0];
  if (b.shape[1] !== n || b.shape[2] !== d)
    throw new RangeError(`rowDots: b must be [m, ${n}, ${d}] to match a [${n}, ${d}], got [${b.shape}]`);
  const be = nativeBackend();
  if (!be) return composite(a, b);
  const f = tf.customGrad(((x: tf.Tensor, y: tf.Tensor, save: tf.GradSaveFunc) => {
    save([x, y]);
    return {
      value: forward(be, x, y, n, m, d),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => backward(be, saved[0], saved[1], dy, n, m, d),
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return f(a, b) as tf.Tensor2D;
}

function forward(be: WholeMemoryBackend, a: tf.Tensor, b: tf.Tensor, n: number, m: number, d: number): tf.Tensor {
  return be.nativeOutputs([a, b], [[m, n]], ([pa, pb], [out]) => layerNative().rowDots(pa, pb, n, m, d, out))[0];
}

function backward(be: WholeMemoryBackend, a: tf.Tensor, b: tf.Tensor, dy: tf.Tensor, n: number, m: number, d: number): tf.Tensor[] {
  return be.nativeOutputs(
    [a, b, dy],
    [
      [n, d],
      [m, n, d],
    ],
    ([pa, pb, pdy], [dA, dB]) => layerNative().rowDotsGrad(pa, pb, pdy as number | Float32Array, n, m, d, dA, dB),
  );
}

/** @internal The same from tfjs ops (other backends; the tests' reference). */
export function composite(a: tf.Tensor2D, b: tf.Tensor3D): tf.Tensor2D {
  return tf.sum(tf.mul(b, a), 2) as tf.Tensor2D;
}

// Rows of complex numbers stored as [real parts | imaginary parts] (the first half of each row, then
// the second), and the products the complex models compose queries with: one native op each way on
// this backend (`complexProduct`, native/src/embedding/complex_product.*), tfjs ops elsewhere.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../../backend/backend_wholememory';
import {embeddingNative} from '../../native/domains';

export interface ComplexRows {
  re: tf.Tensor;
  im: tf.Tensor;
}

/** The halves of rows [..., 2k]. */
export function complexParts(x: tf.Tensor): ComplexRows {
  const [re, im] = tf.split(x, 2, x.rank - 1);
  return {re, im};
}

/** The rows [..., 2k] of complex numbers. */
export function complexRows(z: ComplexRows): tf.Tensor {
  return tf.concat([z.re, z.im], z.re.rank - 1);
}

/**
 * The elementwise product of complex rows a, b [n, 2k] (float32, [real | imaginary]), either factor
 * conjugated first: conj?(a) * conj?(b). Differentiable in both.
 */
export function complexProduct(a: tf.Tensor2D, b: tf.Tensor2D, conjA = false, conjB = false): tf.Tensor2D {
  for (const [name, t] of [
    ['a', a],
    ['b', b],
  ] as const) {
    if (!(t instanceof tf.Tensor) || t.rank !== 2 || t.dtype !== 'float32' || t.shape[1] % 2 !== 0)
      throw new TypeError(
        `complexProduct: ${name} must be a float32 [rows, 2k] tensor of complex rows, got ${t instanceof tf.Tensor ? `${t.dtype} [${t.shape}]` : typeof t}`,
      );
  }
  if (a.shape[0] !== b.shape[0] || a.shape[1] !== b.shape[1])
    throw new RangeError(`complexProduct: b must be [${a.shape}] like a, got [${b.shape}]`);
  const be = tf.backend();
  if (!(be instanceof WholeMemoryBackend && (be.gpu || be.hostKernels)) || a.size === 0) return composite(a, b, conjA, conjB);
  const f = tf.customGrad(((x: tf.Tensor2D, y: tf.Tensor2D, save: tf.GradSaveFunc) => {
    save([x, y]);
    return {
      value: product(be, x, y, conjA, conjB),
      // With g the gradient as a complex row: d a = g * conj(b') (conjugated once more when a was), likewise for b.
      gradFunc: (dy: tf.Tensor2D, [sx, sy]: tf.Tensor2D[]) => [
        conjA ? product(be, dy, sy, true, conjB) : product(be, dy, sy, false, !conjB),
        conjB ? product(be, dy, sx, true, conjA) : product(be, dy, sx, false, !conjA),
      ],
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return f(a, b) as tf.Tensor2D;
}

/**
 * The gradients of a loss with respect to a and b given its gradient g with respect to complexProduct(a, b, false,
 * conjB), made with the same products (no tape): d a = g * conj?(b) and d b = g * conj(a) (conjugated once more
 * when b was).
 */
export function complexProductGradients(a: tf.Tensor2D, b: tf.Tensor2D, conjB: boolean, g: tf.Tensor2D): [tf.Tensor2D, tf.Tensor2D] {
  return [complexProduct(g, b, false, !conjB), conjB ? complexProduct(g, a, true, false) : complexProduct(g, a, false, true)];
}

function product(be: WholeMemoryBackend, a: tf.Tensor2D, b: tf.Tensor2D, conjA: boolean, conjB: boolean): tf.Tensor2D {
  const [rows, w] = a.shape;
  const native = embeddingNative();
  if (be.gpu)
    return be.deviceOutputs([[rows, w]], ([out]) =>
      native.complexProduct(rows, w / 2, conjA, conjB, be.devicePtr(a), be.devicePtr(b), out),
    )[0] as tf.Tensor2D;
  const out = new Float32Array(rows * w);
  native.complexProduct(rows, w / 2, conjA, conjB, be.hostArray(a) as Float32Array, be.hostArray(b) as Float32Array, out);
  return tf.tensor2d(out, [rows, w]);
}

/** @internal The same from tfjs ops (other backends; the tests' reference). */
export function composite(a: tf.Tensor2D, b: tf.Tensor2D, conjA = false, conjB = false): tf.Tensor2D {
  const x = complexParts(a),
    y = complexParts(b);
  const ai = conjA ? tf.neg(x.im) : x.im,
    bi = conjB ? tf.neg(y.im) : y.im;
  return complexRows({re: tf.sub(tf.mul(x.re, y.re), tf.mul(ai, bi)), im: tf.add(tf.mul(x.re, bi), tf.mul(ai, y.re))}) as tf.Tensor2D;
}

/** The moduli of rows [..., 2k] of complex numbers: [..., k]. */
export function complexModuli(x: tf.Tensor): tf.Tensor {
  const {re, im} = complexParts(x);
  return tf.sqrt(tf.add(tf.add(tf.square(re), tf.square(im)), 1e-12));
}

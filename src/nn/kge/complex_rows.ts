// Rows of complex numbers stored as [real parts | imaginary parts] (the first half of each row, then
// the second), and the products the complex models compose queries with: one native op each way on
// this backend (`complexProduct`, native/src/embedding/complex_product.*), tfjs ops elsewhere.
import * as tf from '@tensorflow/tfjs-core';

import {nativeBackend, WholeMemoryBackend} from '../../backend/backend_wholememory';
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
  const be = a.size > 0 ? nativeBackend() : undefined;
  if (!be) return composite(a, b, conjA, conjB);
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

function product(be: WholeMemoryBackend, a: tf.Tensor2D, b: tf.Tensor2D, conjA: boolean, conjB: boolean): tf.Tensor2D {
  const [rows, w] = a.shape;
  return be.nativeOutputs([a, b], [[rows, w]], ([pa, pb], [out]) =>
    embeddingNative().complexProduct(rows, w / 2, conjA, conjB, pa, pb, out),
  )[0] as tf.Tensor2D;
}

/**
 * Complex rows x [n, 2k] each rotated by its phases [n, k] times `scale` (the other way with conj): x * e^(i scale
 * phase), RotatE's query. One native op each way on this backend; differentiable in both.
 */
export function complexRotation(x: tf.Tensor2D, phase: tf.Tensor2D, scale: number, conj = false): tf.Tensor2D {
  checkRotation(x, phase);
  const be = x.size > 0 ? nativeBackend() : undefined;
  if (!be) return composite(x, unitRows(tf.mul(phase, scale) as tf.Tensor2D), false, conj);
  const f = tf.customGrad(((a: tf.Tensor2D, p: tf.Tensor2D, save: tf.GradSaveFunc) => {
    save([a, p]);
    return {
      value: rotation(be, a, p, scale, conj),
      gradFunc: (dy: tf.Tensor2D, [sa, sp]: tf.Tensor2D[]) => complexRotationGradients(sa, sp, scale, conj, dy),
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return f(x, phase) as tf.Tensor2D;
}

/** The gradients of a loss with respect to x and phase given its gradient g with respect to complexRotation(x, phase, scale, conj) (no tape). */
export function complexRotationGradients(
  x: tf.Tensor2D,
  phase: tf.Tensor2D,
  scale: number,
  conj: boolean,
  g: tf.Tensor2D,
): [tf.Tensor2D, tf.Tensor2D] {
  checkRotation(x, phase);
  const be = x.size > 0 ? nativeBackend() : undefined;
  if (be) {
    const [rows, w] = x.shape;
    const [dx, dp] = be.nativeOutputs(
      [x, phase, g],
      [
        [rows, w],
        [rows, w / 2],
      ],
      ([px, pp, pg], [pdx, pdp]) => embeddingNative().complexRotationGrad(rows, w / 2, scale, conj, px, pp, pg, pdx, pdp),
    );
    return [dx as tf.Tensor2D, dp as tf.Tensor2D];
  }
  const [dx, dp] = tf.grads((a: tf.Tensor, p: tf.Tensor) =>
    tf.sum(tf.mul(complexRotation(a as tf.Tensor2D, p as tf.Tensor2D, scale, conj), g)),
  )([x, phase]);
  return [dx as tf.Tensor2D, dp as tf.Tensor2D];
}

/** The unit complex numbers (cos p, sin p) of phases p [n, k], as rows [n, 2k]. */
export function unitRows(phase: tf.Tensor2D): tf.Tensor2D {
  return tf.concat([tf.cos(phase), tf.sin(phase)], 1) as tf.Tensor2D;
}

function checkRotation(x: tf.Tensor2D, phase: tf.Tensor2D): void {
  if (!(x instanceof tf.Tensor) || x.rank !== 2 || x.dtype !== 'float32' || x.shape[1] % 2 !== 0)
    throw new TypeError(
      `complexRotation: x must be a float32 [rows, 2k] tensor of complex rows, got ${x instanceof tf.Tensor ? `${x.dtype} [${x.shape}]` : typeof x}`,
    );
  if (
    !(phase instanceof tf.Tensor) ||
    phase.dtype !== 'float32' ||
    phase.rank !== 2 ||
    phase.shape[0] !== x.shape[0] ||
    phase.shape[1] * 2 !== x.shape[1]
  )
    throw new RangeError(
      `complexRotation: phase must be float32 [${x.shape[0]}, ${x.shape[1] / 2}] (a phase per complex coordinate of x), got ${phase instanceof tf.Tensor ? `${phase.dtype} [${phase.shape}]` : typeof phase}`,
    );
}

function rotation(be: WholeMemoryBackend, x: tf.Tensor2D, phase: tf.Tensor2D, scale: number, conj: boolean): tf.Tensor2D {
  const [rows, w] = x.shape;
  return be.nativeOutputs([x, phase], [[rows, w]], ([px, pp], [out]) =>
    embeddingNative().complexRotation(rows, w / 2, scale, conj, px, pp, out),
  )[0] as tf.Tensor2D;
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

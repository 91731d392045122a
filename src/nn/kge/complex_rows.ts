// Rows of complex numbers stored as [real parts | imaginary parts] (the first half of each row, then
// the second), and the products the complex models compose queries with.
import * as tf from '@tensorflow/tfjs-core';

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

/** a * b, or a * conj(b) when conjugate is true, elementwise. */
export function complexMul(a: ComplexRows, b: ComplexRows, conjugate = false): ComplexRows {
  const bi = conjugate ? tf.neg(b.im) : b.im;
  return {re: tf.sub(tf.mul(a.re, b.re), tf.mul(a.im, bi)), im: tf.add(tf.mul(a.re, bi), tf.mul(a.im, b.re))};
}

/** The moduli of rows [..., 2k] of complex numbers: [..., k]. */
export function complexModuli(x: tf.Tensor): tf.Tensor {
  const {re, im} = complexParts(x);
  return tf.sqrt(tf.add(tf.add(tf.square(re), tf.square(im)), 1e-12));
}

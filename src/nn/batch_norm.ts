// Batch normalisation over the rows of a training batch, with its gradient written out: y = (x - mean) /
// sqrt(variance + epsilon) * gamma + beta over the batch's own (biased) statistics, and dx = gamma / sigma *
// (dy - mean(dy) - xhat mean(dy xhat)), dgamma = sum(dy xhat), dbeta = sum(dy). tfjs differentiates
// moments() and batchNorm() op by op (about twice the ops each way); a step of a small model is made of such
// ops, each a launch on the GPU.
import * as tf from '@tensorflow/tfjs-core';

/** Running statistics a training pass moves toward its batch's: r += momentum (batch - r). */
export interface RunningStats {
  mean: tf.Variable;
  variance: tf.Variable;
  momentum: number;
}

/**
 * The normalised rows and the batch's statistics (no gradient flows through them; kept out of any tidy scope:
 * the caller disposes them). With `running`, its averages are moved toward the batch's inside the op, where no
 * gradient tape records (or copies the inputs of) the update's arithmetic.
 */
export function batchNormTraining(
  x: tf.Tensor2D,
  gamma: tf.Tensor1D,
  beta: tf.Tensor1D,
  epsilon: number,
  running?: RunningStats,
): {y: tf.Tensor2D; mean: tf.Tensor1D; variance: tf.Tensor1D} {
  const rows = x.shape[0];
  if (rows < 1) throw new RangeError('batchNormTraining: a batch of no rows has no statistics');
  let mean: tf.Tensor1D | undefined, variance: tf.Tensor1D | undefined;
  const f = tf.customGrad(((xs: tf.Tensor, g: tf.Tensor, b: tf.Tensor, save: tf.GradSaveFunc) => {
    mean = tf.keep(tf.mean(xs, 0) as tf.Tensor1D);
    const centered = tf.sub(xs, mean);
    variance = tf.keep(tf.mean(tf.square(centered), 0) as tf.Tensor1D);
    const invStd = tf.rsqrt(tf.add(variance, epsilon));
    const xhat = tf.mul(centered, invStd);
    if (running) {
      const {momentum: m} = running;
      running.mean.assign(tf.add(running.mean, tf.mul(tf.sub(mean, running.mean), m)));
      running.variance.assign(tf.add(running.variance, tf.mul(tf.sub(variance, running.variance), m)));
    }
    save([xhat, invStd, g]);
    return {
      value: tf.add(tf.mul(xhat, g), b),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [xh, inv, gm] = saved;
        const dBeta = tf.sum(dy, 0),
          dGamma = tf.sum(tf.mul(dy, xh), 0);
        const inner = tf.sub(tf.sub(dy, tf.mul(dBeta, 1 / rows)), tf.mul(xh, tf.mul(dGamma, 1 / rows)));
        return [tf.mul(inner, tf.mul(gm, inv)), dGamma, dBeta];
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  const y = f(x, gamma, beta) as tf.Tensor2D;
  return {y, mean: mean!, variance: variance!};
}

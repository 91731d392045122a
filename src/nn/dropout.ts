// Dropout in one native pass each way. tf.dropout draws its mask on the host
// in JavaScript and applies it with four more kernels (on a GPU the mask is
// uploaded every step); here the mask is a pure function of (seed, position)
// (native/src/kernels/dropout_mask.h), the same on the CPU and the GPU, and
// the gradient rebuilds it from the seed instead of keeping it.
import * as tf from '@tensorflow/tfjs-core';

import {nativeBackend} from '../backend/backend_wholememory';
import {layerNative} from '../native/domains';
import {tfSeed} from '../util/random';

/** The mask's threshold for a rate: a position whose 24-bit draw u satisfies u >= threshold is kept. */
export function dropoutThreshold(rate: number): number {
  return Math.ceil(rate * 2 ** 24);
}

/**
 * x with each element zeroed with probability `rate`, the others scaled by
 * 1 / (1 - rate), as tf.dropout; the mask depends only on `seed` and the
 * position. Differentiable. On backends other than 'wholememory', tf.dropout.
 */
export function dropout(x: tf.Tensor, rate: number, seed: number): tf.Tensor {
  if (!(x instanceof tf.Tensor) || x.dtype !== 'float32')
    throw new TypeError(`dropout: x must be a float32 tensor, got ${x instanceof tf.Tensor ? x.dtype : typeof x}`);
  if (!(typeof rate === 'number' && rate >= 0 && rate < 1)) throw new RangeError(`dropout: rate must be in [0, 1), got ${rate}`);
  if (!(Number.isSafeInteger(seed) && seed >= 0)) throw new RangeError(`dropout: seed must be an integer from 0 to 2^53 - 1, got ${seed}`);
  if (rate === 0) return x.clone();
  const b = nativeBackend();
  if (!b) return tf.dropout(x, rate, undefined, tfSeed(seed));
  const threshold = dropoutThreshold(rate),
    scale = Math.fround(1 / (1 - rate));
  const high = Math.floor(seed / 2 ** 32),
    low = seed >>> 0;
  const apply = (t: tf.Tensor): tf.Tensor => {
    if (b.gpu) return b.deviceOutputs([t.shape], ([y]) => layerNative().dropout(b.devicePtr(t), y, t.size, threshold, scale, high, low))[0];
    const y = new Float32Array(t.size);
    layerNative().dropout(b.hostArray(t), y, t.size, threshold, scale, high, low);
    return tf.tensor(y, t.shape, 'float32');
  };
  const f = tf.customGrad(((t: tf.Tensor) => ({value: apply(t), gradFunc: (dy: tf.Tensor) => apply(dy)})) as unknown as Parameters<
    typeof tf.customGrad
  >[0]);
  return f(x) as tf.Tensor;
}

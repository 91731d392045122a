// tf.relu's gradient as one native pass where this backend runs it natively
// (the GPU or the host CPU core), tfjs-core's Step-then-Multiply elsewhere;
// the same values either way (ReluGrad in kernels/elementwise.h multiplies dy by
// step(x) as tfjs does, NaNs included). Registered over tfjs-core's: the
// gradient registry is global, so it must serve every backend.
import * as tf from '@tensorflow/tfjs-core';
import {GradConfig, registerGradient, Relu} from '@tensorflow/tfjs-core';

import {nativeRunner} from '../kernel_utils/kernel_utils';
import {WM_RELU_GRAD} from '../kernels/ReluGrad';
import {WholeMemoryBackend} from '../backend/backend_wholememory';

function native(dy: tf.Tensor, x: tf.Tensor): boolean {
  const be = tf.backend();
  return be instanceof WholeMemoryBackend && nativeRunner(be, [dy, x], ['float32']) !== null && tf.util.arraysEqual(dy.shape, x.shape);
}

/** dy where y (ReLU's input, or its output: the same sign) is positive, else 0: tf.relu's backward pass. */
export function reluBackward(dy: tf.Tensor, y: tf.Tensor): tf.Tensor {
  return native(dy, y) ? (tf.engine().runKernel(WM_RELU_GRAD, {dy, x: y}) as tf.Tensor) : tf.mul(dy, tf.cast(tf.step(y), 'float32'));
}

const reluGrad: GradConfig = {
  kernelName: Relu,
  inputsToSave: ['x'],
  gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[]) => {
    const d = dy as tf.Tensor,
      [x] = saved;
    return {
      x: () => reluBackward(d, x),
    };
  },
};

export function registerReluGradient(): void {
  registerGradient(reluGrad);
}

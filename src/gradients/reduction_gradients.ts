// Gradients of tf.sum and tf.mean without tf.ones: tfjs-core's versions
// multiply dy by tf.ones(x.shape), which tfjs builds as a host typed array of
// x's full size — on a GPU backend a JavaScript fill and an upload of that
// size on every backward pass (22 of 29 ms per GraphSAGE step on the H100,
// before meanOfNeighbors wrote its own gradient). Tiling dy to x's shape is
// the same value, made on the device. Registered over tfjs-core's (the
// registry is global; the results are identical on every backend).
import * as tf from '@tensorflow/tfjs-core';
import {GradConfig, Mean, MeanAttrs, NamedAttrMap, registerGradient, Sum, SumAttrs} from '@tensorflow/tfjs-core';

function broadcastBack(dy: tf.Tensor, x: tf.Tensor, axis: number | number[]): {grad: tf.Tensor; reduced: number} {
  const axes = tf.util.parseAxisParam(axis, x.shape);
  const kept = x.shape.map((d, i) => (axes.includes(i) ? 1 : d));
  const reps = x.shape.map((d, i) => (axes.includes(i) ? d : 1));
  const reduced = axes.reduce((n, a) => n * x.shape[a], 1);
  return {grad: tf.tile(tf.reshape(tf.cast(dy, 'float32'), kept), reps), reduced};
}

const sumGrad: GradConfig = {
  kernelName: Sum,
  inputsToSave: ['x'],
  gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[], attrs?: NamedAttrMap) => {
    const {axis} = attrs as unknown as SumAttrs;
    return {x: () => broadcastBack(dy as tf.Tensor, saved[0], axis).grad};
  },
};

const meanGrad: GradConfig = {
  kernelName: Mean,
  inputsToSave: ['x'],
  gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[], attrs?: NamedAttrMap) => {
    const {axis} = attrs as unknown as MeanAttrs;
    return {
      x: () => {
        const {grad, reduced} = broadcastBack(dy as tf.Tensor, saved[0], axis);
        return tf.div(grad, reduced);
      },
    };
  },
};

export function registerReductionGradients(): void {
  registerGradient(sumGrad);
  registerGradient(meanGrad);
}

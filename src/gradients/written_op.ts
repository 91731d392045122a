// An op whose forward pass runs untaped and whose backward pass is written out, as tf.customGrad's, with two
// differences: it returns several outputs, and an input's gradient is computed only when the gradient being taken
// reaches that input (tf.customGrad computes every input's: a first layer's input features need none, and theirs
// would be the largest product of a step). It goes onto the tape as tf.customGrad does (tfjs-core's
// Engine.runKernelFunc with a forward function), which prunes the inputs no gradient reaches.
import * as tf from '@tensorflow/tfjs-core';

/** Each input's gradient, in the inputs' order, as a function the tape calls only for inputs a gradient reaches. */
export type LazyGradients = (dys: tf.Tensor[], saved: tf.Tensor[]) => (() => tf.Tensor)[];

interface KernelFuncEngine {
  runKernelFunc(p: {
    forwardFunc: (backend: unknown, save: tf.GradSaveFunc) => tf.Tensor[];
    backwardsFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[]) => Record<string, () => tf.Tensor>;
    inputs: Record<string, tf.Tensor>;
  }): tf.Tensor | tf.Tensor[];
}

/**
 * Runs forward (untaped; what it passes to save, once, comes back to backward when a gradient is taken) and returns
 * its outputs; backward gives each input's gradient from the outputs' (zeros for an output no gradient reached).
 */
export function writtenOp(inputs: tf.Tensor[], forward: (save: tf.GradSaveFunc) => tf.Tensor[], backward: LazyGradients): tf.Tensor[] {
  const engine = tf.engine() as unknown as Partial<KernelFuncEngine>;
  if (typeof engine.runKernelFunc !== 'function')
    throw new Error("writtenOp: this tfjs-core's engine has no runKernelFunc (tf.customGrad's way onto the tape)");
  const out = engine.runKernelFunc.call(engine, {
    forwardFunc: (_backend, save) => forward(save),
    backwardsFunc: (dy, saved) => {
      const grads = backward(Array.isArray(dy) ? dy : [dy], saved);
      return Object.fromEntries(grads.map((g, i) => [String(i), g]));
    },
    inputs: Object.fromEntries(inputs.map((t, i) => [String(i), t])),
  });
  return Array.isArray(out) ? out : [out];
}

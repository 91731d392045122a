// GIN's dense part as one differentiable op with its backward pass written out: z = (1 + eps) x_self + agg,
// then act(relu(z W1 + b1) W2 + b2) with act ReLU or linear. Under a gradient tape, tfjs records each op of
// the composed form and copies every input it saves (an Identity kernel each); a small model's step is mostly
// such bookkeeping. Here the forward ops run unrecorded (the products with their bias and ReLU fused), and the
// backward pass is the products' transposes, the ReLU masks and the column sums.
import * as tf from '@tensorflow/tfjs-core';

import {reluBackward} from '../../gradients/relu_gradient';

export interface GinMlpWeights {
  w1: tf.Tensor2D;
  b1?: tf.Tensor1D;
  w2: tf.Tensor2D;
  b2?: tf.Tensor1D;
  /** A learned eps ([1]); without it the own rows weigh 1 + fixedEps. */
  eps?: tf.Tensor;
  fixedEps: number;
  /** ReLU after the second product (else linear). */
  relu: boolean;
}

/** act(MLP((1 + eps) self + agg)), differentiable in self, agg and every weight given. */
export function ginMlp(self: tf.Tensor2D, agg: tf.Tensor2D, w: GinMlpWeights): tf.Tensor2D {
  const inputs: tf.Tensor[] = [self, agg, w.w1, w.w2];
  const at = (t: tf.Tensor | undefined) => (t ? inputs.push(t) - 1 : -1);
  const ib1 = at(w.b1),
    ib2 = at(w.b2),
    ieps = at(w.eps);
  const f = tf.customGrad(((...args: unknown[]) => {
    const save = args.pop() as tf.GradSaveFunc;
    const x = args as tf.Tensor[];
    const [s, a, w1, w2] = x as [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D, tf.Tensor2D];
    const eps = ieps >= 0 ? x[ieps] : undefined;
    const own = onePlusEps(s, eps, w.fixedEps);
    const z = tf.add(own, a) as tf.Tensor2D;
    const hidden = fusedProduct(z, w1, ib1 >= 0 ? x[ib1] : undefined, true);
    const out = fusedProduct(hidden, w2, ib2 >= 0 ? x[ib2] : undefined, w.relu);
    save([s, z, hidden, out, w1, w2, ...(eps ? [eps] : [])]);
    return {
      value: out,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [ss, zs, hs, os, w1s, w2s, es] = saved as tf.Tensor2D[];
        const g2 = w.relu ? (reluBackward(dy, os) as tf.Tensor2D) : (dy as tf.Tensor2D);
        const dHidden = tf.matMul(g2, w2s, false, true);
        const g1 = reluBackward(dHidden, hs) as tf.Tensor2D;
        const dz = tf.matMul(g1, w1s, false, true);
        const grads: tf.Tensor[] = [onePlusEps(dz, es, w.fixedEps), dz, tf.matMul(zs, g1, true, false), tf.matMul(hs, g2, true, false)];
        if (ib1 >= 0) grads[ib1] = tf.sum(g1, 0);
        if (ib2 >= 0) grads[ib2] = tf.sum(g2, 0);
        if (ieps >= 0) grads[ieps] = tf.reshape(tf.sum(tf.mul(dz, ss)), [1]);
        return grads;
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return f(...inputs) as tf.Tensor2D;
}

/** (1 + eps) t: eps learned ([1]) or fixed; t itself for a fixed eps of 0 (GIN's default), no product by one. */
export function onePlusEps(t: tf.Tensor, eps: tf.Tensor | undefined, fixedEps: number): tf.Tensor {
  return eps ? tf.mul(t, tf.add(1, eps)) : fixedEps === 0 ? t : tf.mul(t, 1 + fixedEps);
}

// x W + b with ReLU or not, as tfjs' fused kernel (one product and one pass for the bias and activation): called
// directly, since tf.fused.matMul unfuses under a gradient tape.
function fusedProduct(x: tf.Tensor2D, w: tf.Tensor2D, bias: tf.Tensor | undefined, relu: boolean): tf.Tensor2D {
  const inputs: tf.NamedTensorMap = bias ? {a: x, b: w, bias} : {a: x, b: w};
  return tf.engine().runKernel('_FusedMatMul', inputs, {
    transposeA: false,
    transposeB: false,
    activation: relu ? 'relu' : 'linear',
  } as unknown as tf.NamedAttrMap) as tf.Tensor2D;
}

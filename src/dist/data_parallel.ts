// Data-parallel training in a few lines: each rank computes gradients on its
// share of the batch, the gradients are averaged across ranks (all-reduce),
// and every rank applies the same update, so the replicas stay identical.
// Embedding tables in WholeMemory are shared, not all-reduced: their sparse
// steps (emb.step()) write straight into the one table.
import * as tf from '@tensorflow/tfjs-core';

import type {Communicator} from '../memory/communicator';
import type {WireType} from './allreduce';
import {applyAdamFused, isAdam} from '../train/fused_adam';

export interface DataParallel {
  /** Like optimizer.minimize: gradients of f over varList (default: all trainable variables), averaged over ranks. */
  minimize(f: () => tf.Scalar, varList?: tf.Variable[]): tf.Scalar;
  /** Copies rank 0's values into every rank's variables (call once after creating them). */
  broadcastVariables(vars: tf.Variable[]): void;
}

export interface DataParallelOptions {
  /**
   * 'mean' (default): each rank's loss is the mean over its share, and the
   * gradients are averaged. 'sum': each rank's loss is its share of the
   * global loss (e.g. its sum divided by the global batch), and the gradients
   * are summed — with equal or unequal shares the step is exactly the
   * single-process step on the global batch.
   */
  gradients?: 'mean' | 'sum';
  /**
   * The type gradients travel in between ranks (sums are float32): 'bfloat16' or 'float16' halve
   * the bytes on NVLink, each gradient value rounded to nearest. Every rank gets the same sums, so
   * the replicas stay identical. Default 'float32'. broadcastVariables always sends float32.
   */
  wire?: WireType;
}

export function dataParallel(optimizer: tf.Optimizer, comm: Communicator, opts: DataParallelOptions = {}): DataParallel {
  const op = opts.gradients ?? 'mean';
  if (op !== 'mean' && op !== 'sum') throw new RangeError(`dataParallel: gradients must be 'mean' or 'sum', got '${op}'`);
  const wire = opts.wire ?? 'float32';
  if (!['float32', 'float16', 'bfloat16'].includes(wire)) throw new RangeError(`dataParallel: wire must be float32, float16 or bfloat16, got '${wire}'`);
  return {
    minimize(f, varList) {
      const {value, grads} = tf.variableGrads(f, varList);
      const names = Object.keys(grads).sort();  // the same order on every rank
      // Exactly tfjs' SGD (not instanceof: tfjs answers it by duck typing, true for every optimizer; not a subclass such as Momentum).
      if (Object.getPrototypeOf(optimizer) === tf.SGDOptimizer.prototype) {
        // Plain SGD: the averaging and the update happen in one all-reduce pass.
        const vars = names.map((k) => tf.engine().registeredVariables[k]);
        const lr = (optimizer as unknown as {learningRate: number}).learningRate;
        const stepped = comm.allReduce(names.map((k) => grads[k]), {op, wire, sgd: {params: vars, lr}});
        vars.forEach((v, i) => v.assign(stepped[i]));
        tf.dispose([...Object.values(grads), ...stepped]);
        return value;
      }
      const reduced = comm.allReduce(names.map((k) => grads[k]), {op, wire});
      const averaged: tf.NamedTensorMap = {};
      names.forEach((k, i) => (averaged[k] = reduced[i]));
      // Adam (tf.train.adam or wm.train.adam): one native pass over every variable.
      if (!(isAdam(optimizer) && applyAdamFused(optimizer, averaged))) optimizer.applyGradients(averaged);
      tf.dispose([...Object.values(grads), ...reduced]);
      return value;
    },
    broadcastVariables(vars) {
      // Rank 0 contributes its values, the others zeros: the sum is rank 0's.
      const contributions = vars.map((v) => (comm.rank === 0 ? v : tf.zerosLike(v)));
      const synced = comm.allReduce(contributions as tf.Tensor[], {op: 'sum'});
      vars.forEach((v, i) => v.assign(synced[i]));
      if (comm.rank !== 0) tf.dispose(contributions);
      tf.dispose(synced);
    },
  };
}

// Data-parallel training in a few lines: each rank computes gradients on its
// share of the batch, the gradients are averaged across ranks (all-reduce),
// and every rank applies the same update, so the replicas stay identical.
// Embedding tables in WholeMemory are shared, not all-reduced: their sparse
// steps (emb.step()) write straight into the one table.
import * as tf from '@tensorflow/tfjs-core';

import type {Communicator} from '../memory/communicator';
import {isWireType, WireType} from '../memory/allreduce';
import {applyAdamFused, isAdam} from '../optimizers/fused_adam';

export interface DataParallel {
  /** Gradients of f over varList (default: all trainable variables), averaged over ranks, then a step; returns f's value. */
  minimize(f: () => tf.Scalar, varList?: tf.Variable[]): tf.Scalar;
  /** tf.Optimizer.minimize's form: the value when returnCost (else it is disposed and null comes back). */
  minimize(f: () => tf.Scalar, returnCost: boolean, varList?: tf.Variable[]): tf.Scalar | null;
  /** Copies rank 0's values into every rank's variables (call once after creating them). */
  broadcastVariables(vars: Array<tf.Variable | LayerWeight>): void;
  /**
   * The same for APIs that take a tf.Optimizer (tfjs-layers' `model.compile({optimizer})` and
   * `model.fit`, `optimizer.minimize`): its applyGradients reduces the gradients over the ranks, then
   * applies the wrapped optimizer's step. Every rank must take the same number of steps.
   */
  readonly optimizer: tf.Optimizer;
}

/** A tfjs-layers weight (LayerVariable): model.trainableWeights holds these. */
export interface LayerWeight {
  read(): tf.Tensor;
  write(value: tf.Tensor): unknown;
}

type Grads = Parameters<tf.Optimizer['applyGradients']>[0];

// Wraps an optimizer for callers that want a tf.Optimizer: the step is the wrapped one's, the
// gradients are the ranks' reduction; state, iterations and serialisation are the wrapped one's.
class DataParallelOptimizer extends tf.Optimizer {
  constructor(
    private readonly inner: tf.Optimizer,
    private readonly step: (grads: tf.NamedTensorMap) => void,
  ) {
    super();
  }
  override applyGradients(grads: Grads): void {
    const map: tf.NamedTensorMap = {};
    // Optimizer.minimize with a varList passes {name, tensor} pairs, tensor undefined for a variable f does not use.
    if (Array.isArray(grads)) grads.forEach((g) => g.tensor != null && (map[g.name] = g.tensor));
    else Object.entries(grads).forEach(([k, g]) => g != null && (map[k] = g));
    this.step(map);
  }
  override get iterations(): number {
    return this.inner.iterations;
  }
  override getConfig(): tf.serialization.ConfigDict {
    return this.inner.getConfig();
  }
  override getClassName(): string {
    return this.inner.getClassName();
  }
  override getWeights(): ReturnType<tf.Optimizer['getWeights']> {
    return this.inner.getWeights();
  }
  override setWeights(weights: Parameters<tf.Optimizer['setWeights']>[0]): Promise<void> {
    return this.inner.setWeights(weights);
  }
  override dispose(): void {
    this.inner.dispose();
  }
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
  if (!isWireType(wire)) throw new RangeError(`dataParallel: wire must be float32, float16 or bfloat16, got '${wire}'`);
  // Reduces the gradients over the ranks and applies the optimizer's step; the caller keeps (and disposes) grads.
  const step = (grads: tf.NamedTensorMap): void => {
    const names = Object.keys(grads).sort(); // the same order on every rank
    // Exactly tfjs' SGD (not instanceof: tfjs answers it by duck typing, true for every optimizer; not a subclass such as Momentum).
    if (Object.getPrototypeOf(optimizer) === tf.SGDOptimizer.prototype) {
      // Plain SGD: the averaging and the update happen in one all-reduce pass.
      const vars = names.map((k) => tf.engine().registeredVariables[k]);
      const lr = (optimizer as unknown as {learningRate: number}).learningRate;
      const stepped = comm.allReduce(
        names.map((k) => grads[k]),
        {op, wire, sgd: {params: vars, lr}},
      );
      vars.forEach((v, i) => v.assign(stepped[i]));
      tf.dispose(stepped);
      // As SGDOptimizer.applyGradients would (the count is the optimizer's state: getWeights, checkpoints).
      (optimizer as unknown as {incrementIterations(): void}).incrementIterations();
      return;
    }
    const reduced = comm.allReduce(
      names.map((k) => grads[k]),
      {op, wire},
    );
    const averaged: tf.NamedTensorMap = {};
    names.forEach((k, i) => (averaged[k] = reduced[i]));
    // Adam (tf.train.adam or wm.train.adam): one native pass over every variable.
    if (!(isAdam(optimizer) && applyAdamFused(optimizer, averaged))) optimizer.applyGradients(averaged);
    tf.dispose(reduced);
  };
  return {
    minimize: ((f: () => tf.Scalar, second?: boolean | tf.Variable[], third?: tf.Variable[]) => {
      const [returnCost, varList] = typeof second === 'boolean' ? [second, third] : [true, second];
      if (varList !== undefined && !Array.isArray(varList)) throw new TypeError('minimize: varList must be an array of tf.Variable');
      const {value, grads} = tf.variableGrads(f, varList);
      step(grads);
      tf.dispose(Object.values(grads));
      if (returnCost) return value;
      value.dispose();
      return null;
    }) as DataParallel['minimize'],
    broadcastVariables(vars) {
      // Rank 0 contributes its values, the others zeros: the sum is rank 0's.
      const values = vars.map((v) => (v instanceof tf.Variable ? v : v.read()));
      const contributions = values.map((v) => (comm.rank === 0 ? v : tf.zerosLike(v)));
      const synced = comm.allReduce(contributions as tf.Tensor[], {op: 'sum'});
      vars.forEach((v, i) => (v instanceof tf.Variable ? v.assign(synced[i]) : v.write(synced[i])));
      if (comm.rank !== 0) tf.dispose(contributions);
      tf.dispose(synced);
    },
    optimizer: new DataParallelOptimizer(optimizer, step),
  };
}

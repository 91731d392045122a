// tfjs' Adam in one native pass. tf.train.adam runs 14 kernels per variable
// per step (a GraphSAGE model's seven variables: ~100 launches, each with
// tfjs' bookkeeping); here one GPU kernel (or one C++ loop on the CPU)
// updates every variable, its moments, and nothing else, with tfjs' own
// float32 arithmetic in tfjs' order. The state stays in the optimizer's own
// variables, so getWeights/setWeights, checkpoints and a switch back to
// tfjs' ops all see the same thing.
import * as tf from '@tensorflow/tfjs-core';

import {nativeBackend} from '../backend/backend_wholememory';
import type {AdamScalars} from '../native/addon';
import {optimizerNative} from '../native/domains';

// What tfjs' Optimizer.applyGradients takes.
type Grads = Parameters<tf.AdamOptimizer['applyGradients']>[0];

// The parts of tfjs' AdamOptimizer the fused step reads and writes (tfjs 4.x).
interface AdamState {
  learningRate: number;
  beta1: number;
  beta2: number;
  epsilon: number;
  accBeta1: tf.Variable;
  accBeta2: tf.Variable;
  accumulatedFirstMoment: Array<{originalName: string; variable: tf.Variable} | undefined>;
  accumulatedSecondMoment: Array<{originalName: string; variable: tf.Variable} | undefined>;
  incrementIterations(): void;
}

// beta^t as float32 on the host, so a step needs no read of accBeta1/2 from
// the GPU; read again whenever the variables were assigned by someone else
// (setWeights, a checkpoint).
interface Powers {
  acc1: number;
  acc2: number;
  id1: object;
  id2: object;
}
const powers = new WeakMap<object, Powers>();

function currentPowers(o: AdamState): Powers {
  const known = powers.get(o);
  if (known && known.id1 === o.accBeta1.dataId && known.id2 === o.accBeta2.dataId) return known;
  const fresh = {acc1: o.accBeta1.dataSync()[0], acc2: o.accBeta2.dataSync()[0], id1: o.accBeta1.dataId, id2: o.accBeta2.dataId};
  powers.set(o, fresh);
  return fresh;
}

/** Whether opt is exactly tfjs' AdamOptimizer or our subclass (not another subclass that changes the step). */
export function isAdam(opt: tf.Optimizer): opt is tf.AdamOptimizer {
  // Not instanceof: tfjs' Optimizer answers instanceof by duck typing, so every optimizer is "an SGDOptimizer".
  const proto = Object.getPrototypeOf(opt);
  return proto === tf.AdamOptimizer.prototype || proto === FusedAdamOptimizer.prototype;
}

/**
 * Applies Adam's step for these gradients to the optimizer's variables in
 * one native pass. Returns false, having changed nothing, where it cannot
 * (another backend, a non-float32 variable, an unexpected tfjs version): the
 * caller then uses opt.applyGradients.
 */
export function applyAdamFused(opt: tf.AdamOptimizer, grads: Grads | tf.NamedTensorMap): boolean {
  const b = nativeBackend();
  if (!b) return false;
  const o = opt as unknown as AdamState;
  if (
    !o.accBeta1?.dataId ||
    !o.accBeta2?.dataId ||
    !Array.isArray(o.accumulatedFirstMoment) ||
    !Array.isArray(o.accumulatedSecondMoment) ||
    typeof o.incrementIterations !== 'function'
  ) {
    return false;
  }
  const entries = Array.isArray(grads) ? grads.map((g) => [g.name, g.tensor] as const) : Object.entries(grads);
  const vars = entries.map(([name]) => tf.engine().registeredVariables[name]);
  const ok = entries.every(
    ([, g], i) =>
      vars[i] !== undefined &&
      vars[i].dtype === 'float32' &&
      (g == null || (g.dtype === 'float32' && tf.util.arraysEqual(g.shape, vars[i].shape))),
  );
  if (!ok) return false;
  // Moments are indexed by position, as tfjs does (the same list order every step): an optimizer
  // handed another set of variables would step one variable with another's moments.
  entries.forEach(([name], i) => {
    const held = o.accumulatedFirstMoment[i];
    if (held != null && !tf.util.arraysEqual(held.variable.shape, vars[i].shape)) {
      throw new Error(
        `adam: gradient ${i} is for '${name}' [${vars[i].shape}], but this optimizer's moments at that position are for ` +
          `'${held.originalName}' [${held.variable.shape}]: it keeps them by position, so use one optimizer per set of variables`,
      );
    }
  });
  entries.forEach(([name], i) => {
    for (const [list, suffix] of [
      [o.accumulatedFirstMoment, 'm'],
      [o.accumulatedSecondMoment, 'v'],
    ] as const) {
      if (list[i] == null) list[i] = {originalName: `${name}/${suffix}`, variable: tf.tidy(() => tf.zerosLike(vars[i]).variable(false))};
    }
  });
  const live = entries.map((_, i) => i).filter((i) => entries[i][1] != null);
  const p = currentPowers(o);
  const f = Math.fround;
  // 1 - beta rounded from double (tfjs computes it in JavaScript), 1 - beta^t in float32 (a tfjs op).
  const scalars: AdamScalars = [o.learningRate, o.beta1, o.beta2, o.epsilon, 1 - o.beta1, 1 - o.beta2, f(1 - p.acc1), f(1 - p.acc2)];
  const replaced: [tf.Variable, tf.Tensor][] = []; // variables given a new buffer, with the tensor over it
  if (b.gpu) {
    // A variable that alone holds its data (the usual case) is updated in place; one sharing it
    // (a clone, an assign from a tensor still alive) gets a new buffer and an assign.
    const addresses: number[] = [],
      sizes: number[] = [];
    const written: tf.Tensor[] = [];
    for (const i of live) {
      const state = [vars[i], o.accumulatedFirstMoment[i]!.variable, o.accumulatedSecondMoment[i]!.variable];
      const inputs = state.map((t) => b.devicePtr(t));
      const outs = state.map((t, k) => {
        if (b.ownsDeviceData(t)) {
          written.push(t);
          return inputs[k];
        }
        const fresh = b.makeDeviceOutput(t.shape, 'float32');
        replaced.push([t as tf.Variable, tf.engine().makeTensorFromTensorInfo(fresh.info)]);
        return fresh.ptr;
      });
      addresses.push(inputs[0], b.devicePtr(entries[i][1]), inputs[1], inputs[2], ...outs);
      sizes.push(vars[i].size);
    }
    optimizerNative().denseAdam(addresses, sizes, ...scalars);
    for (const t of written) b.deviceWritten(t);
  } else {
    const arrays: Float32Array[] = [];
    const sizes: number[] = [];
    // A state tensor whose values are the backend's own, seen by it alone, is updated in place; others (tfjs keeps
    // the array a tensor was made from, which the caller may hold) get a new buffer from the host pool and an assign.
    for (const i of live) {
      const state = [vars[i], o.accumulatedFirstMoment[i]!.variable, o.accumulatedSecondMoment[i]!.variable];
      const ins = state.map((t) => b.hostArray(t) as Float32Array);
      const outs = state.map((t, k) => {
        if (b.ownsHostData(t)) return ins[k];
        const fresh = b.hostOutput(t.shape, 'float32');
        replaced.push([t as tf.Variable, tf.engine().makeTensorFromTensorInfo(fresh.info)]);
        return fresh.values as Float32Array;
      });
      arrays.push(ins[0], b.hostArray(entries[i][1]) as Float32Array, ins[1], ins[2], ...outs);
      sizes.push(vars[i].size);
    }
    optimizerNative().denseAdam(arrays, sizes, ...scalars);
  }
  for (const [v, t] of replaced) v.assign(t);
  tf.dispose(replaced.map(([, t]) => t));
  // tfjs multiplies the float32 accumulators by beta in float32: the same here.
  const acc1 = f(p.acc1 * f(o.beta1)),
    acc2 = f(p.acc2 * f(o.beta2));
  const next = [tf.scalar(acc1), tf.scalar(acc2)];
  o.accBeta1.assign(next[0]);
  o.accBeta2.assign(next[1]);
  tf.dispose(next);
  powers.set(o, {acc1, acc2, id1: o.accBeta1.dataId, id2: o.accBeta2.dataId});
  o.incrementIterations();
  return true;
}

/** tf.train.adam whose step is one native pass on this backend (tfjs' ops elsewhere). */
export class FusedAdamOptimizer extends tf.AdamOptimizer {
  /** The step size of the steps that follow (a schedule's value: warm-up, cosine, decay); a finite number >= 0. */
  setLearningRate(learningRate: number): void {
    if (!(Number.isFinite(learningRate) && learningRate >= 0))
      throw new RangeError(`adam.setLearningRate: learningRate must be a finite number >= 0, got ${learningRate}`);
    this.learningRate = learningRate;
  }

  override applyGradients(grads: Grads): void {
    if (!applyAdamFused(this, grads)) super.applyGradients(grads);
  }
}

/** Like tf.train.adam (same arguments, same results, same saved state), one native pass per step. */
export function adam(learningRate = 0.001, beta1 = 0.9, beta2 = 0.999, epsilon?: number): FusedAdamOptimizer {
  return new FusedAdamOptimizer(learningRate, beta1, beta2, epsilon ?? (null as unknown as number));
}

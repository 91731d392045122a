// tf.losses.softmaxCrossEntropy in one native pass forward and one backward
// (tfjs composes it from about fifteen kernels each way, and a GNN step on a
// GPU spends its time launching kernels, not running them). Labels may be
// class ids, which also saves building the one-hot matrix.
import * as tf from '@tensorflow/tfjs-core';

import {nativeBackend, WholeMemoryBackend} from '../backend/backend_wholememory';
import {knownValid, markValid} from '../backend/index_validation';
import {int32Ids} from '../util/arrays';
import {layerNative} from '../native/domains';

export type LossReduction = 'mean' | 'sum' | 'none';

/**
 * Softmax cross-entropy of logits [rows, classes] against `labels`: float32
 * [rows, classes] (one-hot rows or any distributions), or class ids (int32
 * tensor [rows] or an Int32Array). reduction 'mean' (default, as
 * tf.losses.softmaxCrossEntropy without weights: NaN for no rows), 'sum',
 * or 'none' (the [rows] losses). Differentiable in the logits only.
 */
export function softmaxCrossEntropy(
  labels: tf.Tensor | Int32Array | readonly number[],
  logits: tf.Tensor,
  opts?: {reduction?: 'mean' | 'sum'},
): tf.Scalar;
export function softmaxCrossEntropy(
  labels: tf.Tensor | Int32Array | readonly number[],
  logits: tf.Tensor,
  opts: {reduction: 'none'},
): tf.Tensor1D;
export function softmaxCrossEntropy(
  labels: tf.Tensor | Int32Array | readonly number[],
  logits: tf.Tensor,
  opts?: {reduction?: LossReduction},
): tf.Tensor;
export function softmaxCrossEntropy(
  given: tf.Tensor | Int32Array | readonly number[],
  logits: tf.Tensor,
  opts: {reduction?: LossReduction} = {},
): tf.Tensor {
  // Plain arrays are class ids (one per row).
  if (!(given instanceof tf.Tensor) && !(given instanceof Int32Array) && !Array.isArray(given))
    throw new TypeError(`softmaxCrossEntropy: labels must be a tensor, an Int32Array or an array of class ids, got ${typeof given}`);
  const labels = Array.isArray(given) ? int32Ids(given, 'softmaxCrossEntropy: labels') : (given as tf.Tensor | Int32Array);
  const reduction = opts.reduction ?? 'mean';
  if (!['mean', 'sum', 'none'].includes(reduction))
    throw new RangeError(`softmaxCrossEntropy: reduction must be 'mean', 'sum' or 'none', got '${reduction}'`);
  if (logits.rank !== 2 || logits.dtype !== 'float32') {
    throw new TypeError(`softmaxCrossEntropy: logits must be a float32 [rows, classes] tensor, got ${logits.dtype} [${logits.shape}]`);
  }
  const [rows, classes] = logits.shape as [number, number];
  if (classes < 1) throw new RangeError('softmaxCrossEntropy: logits need at least one class');
  const ids = labels instanceof Int32Array || labels.dtype === 'int32';
  if (ids) {
    const n = labels instanceof Int32Array ? labels.length : labels.size;
    if ((labels instanceof tf.Tensor && labels.rank !== 1) || n !== rows) {
      throw new RangeError(
        `softmaxCrossEntropy: class-id labels must hold one id per row (${rows}), got ${labels instanceof Int32Array ? n : `[${(labels as tf.Tensor).shape}]`}`,
      );
    }
  } else if ((labels as tf.Tensor).dtype !== 'float32' || !tf.util.arraysEqual((labels as tf.Tensor).shape, logits.shape)) {
    throw new TypeError(
      `softmaxCrossEntropy: labels must be float32 [${logits.shape}] or int32 class ids, got ${(labels as tf.Tensor).dtype} [${(labels as tf.Tensor).shape}]`,
    );
  }
  const owned = labels instanceof Int32Array;
  if (ids) checkClassIds(labels as tf.Tensor | Int32Array, classes);
  const y = labels instanceof Int32Array ? tf.tensor1d(labels, 'int32') : labels;
  if (owned) markValid(y, classes);
  try {
    const b = nativeBackend();
    if (!b) return composite(y, logits, ids, classes, reduction);
    const scale = reduction === 'mean' ? 1 / rows : 1;
    const outShape = reduction === 'none' ? [rows] : [];
    // The gradient reads the logits and labels after the forward's scope has
    // ended: saved tensors live until tfjs has run the backward pass.
    const f = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
      save([x, y]);
      return {
        value: forward(b, x, y, ids, rows, classes, scale, outShape),
        gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) =>
          backward(b, saved[0], saved[1], ids, rows, classes, dy, reduction === 'none', scale),
      };
    }) as unknown as Parameters<typeof tf.customGrad>[0]);
    return f(logits) as tf.Tensor;
  } finally {
    if (owned) y.dispose();
  }
}

// Ids are checked once per tensor (then marked), on the host for arrays.
function checkClassIds(labels: tf.Tensor | Int32Array, classes: number): void {
  if (labels instanceof tf.Tensor && knownValid(labels, classes)) return;
  const v = labels instanceof Int32Array ? labels : (labels.dataSync() as Int32Array);
  for (let i = 0; i < v.length; ++i) {
    if (!(v[i] >= 0 && v[i] < classes))
      throw new RangeError(`softmaxCrossEntropy: label ${v[i]} at position ${i} is not a class id in [0, ${classes})`);
  }
  if (labels instanceof tf.Tensor) markValid(labels, classes);
}

function forward(
  b: WholeMemoryBackend,
  x: tf.Tensor,
  y: tf.Tensor,
  ids: boolean,
  rows: number,
  classes: number,
  scale: number,
  outShape: number[],
): tf.Tensor {
  const perRow = outShape.length === 1;
  if (b.gpu) {
    return b.deviceOutputs([outShape], ([ptr]) => {
      layerNative().softmaxCrossEntropy(b.devicePtr(x), b.devicePtr(y), ids, rows, classes, scale, perRow ? ptr : 0, perRow ? 0 : ptr);
    })[0];
  }
  const out = new Float32Array(perRow ? rows : 1);
  layerNative().softmaxCrossEntropy(b.hostArray(x), b.hostArray(y), ids, rows, classes, scale, perRow ? out : null, perRow ? null : out);
  return tf.tensor(out, outShape, 'float32');
}

function backward(
  b: WholeMemoryBackend,
  x: tf.Tensor,
  y: tf.Tensor,
  ids: boolean,
  rows: number,
  classes: number,
  dy: tf.Tensor,
  perRow: boolean,
  scale: number,
): tf.Tensor {
  return b.nativeOutputs([x, y, dy], [[rows, classes]], ([px, py, pdy], [out]) =>
    layerNative().softmaxCrossEntropyGrad(px, py, ids, rows, classes, pdy, perRow, scale, out),
  )[0];
}

// Other backends: tfjs' own composite loss.
function composite(y: tf.Tensor, logits: tf.Tensor, ids: boolean, classes: number, reduction: LossReduction): tf.Tensor {
  return tf.tidy(() => {
    const oneHot = ids ? tf.oneHot(y as tf.Tensor1D, classes).toFloat() : y;
    const r = reduction === 'mean' ? tf.Reduction.SUM_BY_NONZERO_WEIGHTS : reduction === 'sum' ? tf.Reduction.SUM : tf.Reduction.NONE;
    return tf.losses.softmaxCrossEntropy(oneHot, logits, undefined, 0, r);
  });
}

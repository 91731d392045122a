// What a typed layer's input must be: for every vertex type the layer reads, a matrix of its rows
// (layer.src's count) `inDim` wide. `what` names the layer in the error.
import type * as tf from '@tensorflow/tfjs-core';

import type {TypedLayer} from '../../graph/typed_sampling';

export function checkTypedInputs(what: string, x: Record<string, tf.Tensor2D>, layer: TypedLayer, inDim: number): void {
  for (const [t, rows] of Object.entries(layer.src)) {
    const xt = x[t];
    if (rows.length > 0 && !xt) throw new RangeError(`${what}: no input rows for vertex type '${t}' (the layer reads ${rows.length})`);
    if (xt && (xt.rank !== 2 || xt.shape[0] !== rows.length || xt.shape[1] !== inDim))
      throw new RangeError(`${what}: inputs of '${t}' must be [${rows.length}, ${inDim}], got [${xt.shape}]`);
  }
}

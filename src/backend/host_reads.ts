// A tensor's values read on the host by a native call, not handed out: dataSync() gives the reader an array of
// its own (an exact copy where the values lie in a longer buffer of the host pool, whose buffer then never returns
// to the pool); a call that reads the values and returns needs neither.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from './backend_wholememory';

/** The values of a tensor of this backend, downloaded if needed; else undefined. */
function ownValues(t: tf.Tensor): ArrayLike<number> | undefined {
  const b = tf.backend();
  return b instanceof WholeMemoryBackend && b.data.has(t.dataId) ? b.hostArray(t) : undefined;
}

/** t's values as float32 for a read that ends before t is disposed; never written to. */
export function hostFloats(t: tf.Tensor): Float32Array {
  const v = ownValues(t) ?? t.dataSync();
  return v instanceof Float32Array ? v : Float32Array.from(v);
}

/** t's values as int32 for a read that ends before t is disposed; never written to. */
export function hostInts(t: tf.Tensor): Int32Array {
  const v = ownValues(t) ?? t.dataSync();
  return v instanceof Int32Array ? v : Int32Array.from(v);
}

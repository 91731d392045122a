// A tensor made in a tidy scope, its values read out and the tensor freed. tf.tidy walks whatever its function
// returns in search of tensors, an array element by element: a tensor's values returned from it cost a walk of
// every element (4M values: 482 ms, against 7 ms to read them, CPU box) and, past some tens of millions (a
// hierarchical table's cache of 2M rows of 128), throw "Invalid array length".
import * as tf from '@tensorflow/tfjs-core';

export function tidyValues(make: () => tf.Tensor): tf.DataTypeMap[tf.NumericDataType] {
  const t = tf.tidy(make);
  try {
    return t.dataSync() as tf.DataTypeMap[tf.NumericDataType];
  } finally {
    t.dispose();
  }
}

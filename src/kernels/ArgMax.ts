import {ArgMax} from '@tensorflow/tfjs-core';

import {ReduceOp} from '../kernel_utils/op_codes';
import {reduceKernel} from '../kernel_utils/reduce_kernel';

export const argMaxConfig = reduceKernel(ArgMax, ReduceOp.ArgMax, {
  dtypes: ['float32', 'int32'],
  outDtype: () => 'int32',
  arg: true,
  needsNonEmpty: true,
});

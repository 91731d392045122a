import {Prod} from '@tensorflow/tfjs-core';

import {ReduceOp} from '../kernel_utils/op_codes';
import {reduceKernel} from '../kernel_utils/reduce_kernel';

export const prodConfig = reduceKernel(Prod, ReduceOp.Prod, {
  dtypes: ['float32', 'int32', 'bool'],
  outDtype: (d) => (d === 'float32' ? 'float32' : 'int32'),
});

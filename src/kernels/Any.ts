import {Any} from '@tensorflow/tfjs-core';

import {ReduceOp} from '../kernel_utils/op_codes';
import {reduceKernel} from '../kernel_utils/reduce_kernel';

export const anyConfig = reduceKernel(Any, ReduceOp.Any, {dtypes: ['bool'], outDtype: () => 'bool'});

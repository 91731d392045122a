import {Any} from '@tensorflow/tfjs-core';

import {ReduceOp} from './op_codes';
import {reduceKernel} from './reduce_kernel';

export const anyConfig = reduceKernel(Any, ReduceOp.Any, {dtypes: ['bool'], outDtype: () => 'bool'});

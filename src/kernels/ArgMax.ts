import {ArgMax} from '@tensorflow/tfjs-core';

import {ReduceOp} from './op_codes';
import {reduceKernel} from './reduce_kernel';

export const argMaxConfig = reduceKernel(ArgMax, ReduceOp.ArgMax, {dtypes: ['float32', 'int32'], outDtype: () => 'int32', arg: true, needsNonEmpty: true});

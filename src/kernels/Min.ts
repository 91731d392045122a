import {Min} from '@tensorflow/tfjs-core';

import {ReduceOp} from '../kernel_utils/op_codes';
import {reduceKernel} from '../kernel_utils/reduce_kernel';

export const minConfig = reduceKernel(Min, ReduceOp.Min, {dtypes: ['float32', 'int32'], outDtype: (d) => d, needsNonEmpty: true});

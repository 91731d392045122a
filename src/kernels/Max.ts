import {Max} from '@tensorflow/tfjs-core';

import {ReduceOp} from '../kernel_utils/op_codes';
import {reduceKernel} from '../kernel_utils/reduce_kernel';

export const maxConfig = reduceKernel(Max, ReduceOp.Max, {dtypes: ['float32', 'int32'], outDtype: (d) => d, needsNonEmpty: true});

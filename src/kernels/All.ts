import {All} from '@tensorflow/tfjs-core';

import {ReduceOp} from '../kernel_utils/op_codes';
import {reduceKernel} from '../kernel_utils/reduce_kernel';

// Empty reduced axes go to tfjs-backend-cpu for its values (0 for a mean, false for all).
export const allConfig = reduceKernel(All, ReduceOp.All, {dtypes: ['bool'], outDtype: () => 'bool', needsNonEmpty: true});

import {Mean} from '@tensorflow/tfjs-core';

import {ReduceOp} from '../kernel_utils/op_codes';
import {reduceKernel} from '../kernel_utils/reduce_kernel';

// Empty reduced axes go to tfjs-backend-cpu for its values (0 for a mean, false for all).
export const meanConfig = reduceKernel(Mean, ReduceOp.Mean, {dtypes: ['float32'], outDtype: () => 'float32', needsNonEmpty: true});

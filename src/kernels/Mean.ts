import {Mean} from '@tensorflow/tfjs-core';

import {ReduceOp} from './op_codes';
import {reduceKernel} from './reduce_kernel';

export const meanConfig = reduceKernel(Mean, ReduceOp.Mean, {dtypes: ['float32'], outDtype: () => 'float32'});

import {Max} from '@tensorflow/tfjs-core';

import {ReduceOp} from './op_codes';
import {reduceKernel} from './reduce_kernel';

export const maxConfig = reduceKernel(Max, ReduceOp.Max, {dtypes: ['float32', 'int32'], outDtype: (d) => d, needsNonEmpty: true});

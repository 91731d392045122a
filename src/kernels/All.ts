import {All} from '@tensorflow/tfjs-core';

import {ReduceOp} from './op_codes';
import {reduceKernel} from './reduce_kernel';

export const allConfig = reduceKernel(All, ReduceOp.All, {dtypes: ['bool'], outDtype: () => 'bool'});

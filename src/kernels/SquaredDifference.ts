import {SquaredDifference} from '@tensorflow/tfjs-core';

import {binaryKernel} from './binary_kernel';
import {BinaryOp} from './op_codes';

export const squaredDifferenceConfig = binaryKernel(SquaredDifference, BinaryOp.SquaredDifference, {dtypes: ['float32', 'int32']});

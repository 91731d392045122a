import {SquaredDifference} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

export const squaredDifferenceConfig = binaryKernel(SquaredDifference, BinaryOp.SquaredDifference, {dtypes: ['float32', 'int32']});

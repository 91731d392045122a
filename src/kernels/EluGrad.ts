import {EluGrad} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

// elu's gradient from its output: dy where y >= 0, else dy * (y + 1).
export const eluGradConfig = binaryKernel(EluGrad, BinaryOp.EluGrad, {dtypes: ['float32'], names: ['dy', 'y']});

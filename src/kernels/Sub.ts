import {Sub} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

export const subConfig = binaryKernel(Sub, BinaryOp.Sub, {dtypes: ['float32', 'int32']});

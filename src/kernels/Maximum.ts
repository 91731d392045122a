import {Maximum} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

export const maximumConfig = binaryKernel(Maximum, BinaryOp.Maximum, {dtypes: ['float32', 'int32']});

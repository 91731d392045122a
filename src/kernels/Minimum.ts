import {Minimum} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

export const minimumConfig = binaryKernel(Minimum, BinaryOp.Minimum, {dtypes: ['float32', 'int32']});

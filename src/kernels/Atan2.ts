import {Atan2} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

export const atan2Config = binaryKernel(Atan2, BinaryOp.Atan2, {dtypes: ['float32']});

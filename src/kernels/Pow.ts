import {Pow} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

export const powConfig = binaryKernel(Pow, BinaryOp.Pow, {dtypes: ['float32', 'int32']});

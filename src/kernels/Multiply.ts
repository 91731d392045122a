import {Multiply} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

export const multiplyConfig = binaryKernel(Multiply, BinaryOp.Mul, {dtypes: ['float32', 'int32']});

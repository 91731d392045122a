import {Multiply} from '@tensorflow/tfjs-core';

import {binaryKernel} from './binary_kernel';
import {BinaryOp} from './op_codes';

export const multiplyConfig = binaryKernel(Multiply, BinaryOp.Mul, {dtypes: ['float32', 'int32']});

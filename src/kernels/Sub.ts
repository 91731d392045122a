import {Sub} from '@tensorflow/tfjs-core';

import {binaryKernel} from './binary_kernel';
import {BinaryOp} from './op_codes';

export const subConfig = binaryKernel(Sub, BinaryOp.Sub, {dtypes: ['float32', 'int32']});

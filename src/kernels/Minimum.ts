import {Minimum} from '@tensorflow/tfjs-core';

import {binaryKernel} from './binary_kernel';
import {BinaryOp} from './op_codes';

export const minimumConfig = binaryKernel(Minimum, BinaryOp.Minimum, {dtypes: ['float32', 'int32']});

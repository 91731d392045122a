import {Atan2} from '@tensorflow/tfjs-core';

import {binaryKernel} from './binary_kernel';
import {BinaryOp} from './op_codes';

export const atan2Config = binaryKernel(Atan2, BinaryOp.Atan2, {dtypes: ['float32']});

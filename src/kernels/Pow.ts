import {Pow} from '@tensorflow/tfjs-core';

import {binaryKernel} from './binary_kernel';
import {BinaryOp} from './op_codes';

export const powConfig = binaryKernel(Pow, BinaryOp.Pow, {dtypes: ['float32', 'int32']});

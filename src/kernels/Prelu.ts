import {Prelu} from '@tensorflow/tfjs-core';

import {binaryKernel} from './binary_kernel';
import {BinaryOp} from './op_codes';

export const preluConfig = binaryKernel(Prelu, BinaryOp.Prelu, {dtypes: ['float32'], names: ['x', 'alpha']});

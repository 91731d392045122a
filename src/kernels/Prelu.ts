import {Prelu} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

export const preluConfig = binaryKernel(Prelu, BinaryOp.Prelu, {dtypes: ['float32'], names: ['x', 'alpha']});

import {RealDiv} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

export const realDivConfig = binaryKernel(RealDiv, BinaryOp.Div, {dtypes: ['float32']});

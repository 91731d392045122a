import {RealDiv} from '@tensorflow/tfjs-core';

import {binaryKernel} from './binary_kernel';
import {BinaryOp} from './op_codes';

export const realDivConfig = binaryKernel(RealDiv, BinaryOp.Div, {dtypes: ['float32']});

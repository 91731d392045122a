import {Maximum} from '@tensorflow/tfjs-core';

import {binaryKernel} from './binary_kernel';
import {BinaryOp} from './op_codes';

export const maximumConfig = binaryKernel(Maximum, BinaryOp.Maximum, {dtypes: ['float32', 'int32']});

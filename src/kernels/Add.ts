import {Add} from '@tensorflow/tfjs-core';

import {binaryKernel} from './binary_kernel';
import {BinaryOp} from './op_codes';

export const addConfig = binaryKernel(Add, BinaryOp.Add, {dtypes: ['float32', 'int32']});

import {Add} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

export const addConfig = binaryKernel(Add, BinaryOp.Add, {dtypes: ['float32', 'int32']});

import {Greater} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

export const greaterConfig = binaryKernel(Greater, BinaryOp.Greater, {dtypes: ['float32', 'int32', 'bool'], outDtype: 'bool'});

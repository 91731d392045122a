import {Equal} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

export const equalConfig = binaryKernel(Equal, BinaryOp.Equal, {dtypes: ['float32', 'int32', 'bool'], outDtype: 'bool'});

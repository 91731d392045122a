import {LogicalOr} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

export const logicalOrConfig = binaryKernel(LogicalOr, BinaryOp.LogicalOr, {dtypes: ['bool'], outDtype: 'bool'});

import {LogicalAnd} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

export const logicalAndConfig = binaryKernel(LogicalAnd, BinaryOp.LogicalAnd, {dtypes: ['bool'], outDtype: 'bool'});

import {LogicalAnd} from '@tensorflow/tfjs-core';

import {binaryKernel} from './binary_kernel';
import {BinaryOp} from './op_codes';

export const logicalAndConfig = binaryKernel(LogicalAnd, BinaryOp.LogicalAnd, {dtypes: ['bool'], outDtype: 'bool'});

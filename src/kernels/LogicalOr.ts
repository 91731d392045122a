import {LogicalOr} from '@tensorflow/tfjs-core';

import {binaryKernel} from './binary_kernel';
import {BinaryOp} from './op_codes';

export const logicalOrConfig = binaryKernel(LogicalOr, BinaryOp.LogicalOr, {dtypes: ['bool'], outDtype: 'bool'});

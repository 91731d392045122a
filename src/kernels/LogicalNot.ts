import {LogicalNot} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const logicalNotConfig = unaryKernel(LogicalNot, UnaryOp.LogicalNot, {dtypes: ['bool'], outDtype: () => 'bool'});

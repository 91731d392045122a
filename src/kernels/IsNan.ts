import {IsNan} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const isNanConfig = unaryKernel(IsNan, UnaryOp.IsNan, {outDtype: () => 'bool'});

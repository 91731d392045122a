import {IsInf} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const isInfConfig = unaryKernel(IsInf, UnaryOp.IsInf, {outDtype: () => 'bool'});

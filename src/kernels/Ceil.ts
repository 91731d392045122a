import {Ceil} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const ceilConfig = unaryKernel(Ceil, UnaryOp.Ceil);

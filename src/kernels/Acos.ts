import {Acos} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const acosConfig = unaryKernel(Acos, UnaryOp.Acos);

import {Cos} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const cosConfig = unaryKernel(Cos, UnaryOp.Cos);

import {Softplus} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const softplusConfig = unaryKernel(Softplus, UnaryOp.Softplus);

import {Rsqrt} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const rsqrtConfig = unaryKernel(Rsqrt, UnaryOp.Rsqrt);

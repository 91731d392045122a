import {Sqrt} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const sqrtConfig = unaryKernel(Sqrt, UnaryOp.Sqrt);

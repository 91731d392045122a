import {Tan} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const tanConfig = unaryKernel(Tan, UnaryOp.Tan);

import {Selu} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const seluConfig = unaryKernel(Selu, UnaryOp.Selu);

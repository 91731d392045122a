import {Tanh} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const tanhConfig = unaryKernel(Tanh, UnaryOp.Tanh);

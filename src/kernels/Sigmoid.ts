import {Sigmoid} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const sigmoidConfig = unaryKernel(Sigmoid, UnaryOp.Sigmoid);

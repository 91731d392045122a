import {Reciprocal} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const reciprocalConfig = unaryKernel(Reciprocal, UnaryOp.Reciprocal);

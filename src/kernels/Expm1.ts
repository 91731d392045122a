import {Expm1} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const expm1Config = unaryKernel(Expm1, UnaryOp.Expm1);

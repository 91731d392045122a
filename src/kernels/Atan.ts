import {Atan} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const atanConfig = unaryKernel(Atan, UnaryOp.Atan);

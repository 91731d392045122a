import {Atanh} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const atanhConfig = unaryKernel(Atanh, UnaryOp.Atanh);

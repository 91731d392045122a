import {Exp} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const expConfig = unaryKernel(Exp, UnaryOp.Exp);

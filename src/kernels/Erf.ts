import {Erf} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const erfConfig = unaryKernel(Erf, UnaryOp.Erf);

import {Log1p} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const log1pConfig = unaryKernel(Log1p, UnaryOp.Log1p);

import {Log} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const logConfig = unaryKernel(Log, UnaryOp.Log);

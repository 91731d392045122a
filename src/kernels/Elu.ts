import {Elu} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const eluConfig = unaryKernel(Elu, UnaryOp.Elu);

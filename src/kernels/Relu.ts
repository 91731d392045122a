import {Relu} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel, NUMERIC} from './unary_kernel';

export const reluConfig = unaryKernel(Relu, UnaryOp.Relu, {dtypes: NUMERIC});

import {Relu6} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel, NUMERIC} from './unary_kernel';

export const relu6Config = unaryKernel(Relu6, UnaryOp.Relu6, {dtypes: NUMERIC});

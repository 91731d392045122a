import {Abs} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel, NUMERIC} from './unary_kernel';

export const absConfig = unaryKernel(Abs, UnaryOp.Abs, {dtypes: NUMERIC});

import {Neg} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel, NUMERIC} from './unary_kernel';

export const negConfig = unaryKernel(Neg, UnaryOp.Neg, {dtypes: NUMERIC});

import {Sign} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel, NUMERIC} from './unary_kernel';

export const signConfig = unaryKernel(Sign, UnaryOp.Sign, {dtypes: NUMERIC});

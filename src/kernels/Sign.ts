import {Sign} from '@tensorflow/tfjs-core';

import {NUMERIC} from './kernel_utils';
import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const signConfig = unaryKernel(Sign, UnaryOp.Sign, {dtypes: NUMERIC});

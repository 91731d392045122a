import {Relu6} from '@tensorflow/tfjs-core';

import {NUMERIC} from './kernel_utils';
import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const relu6Config = unaryKernel(Relu6, UnaryOp.Relu6, {dtypes: NUMERIC});

import {Relu6} from '@tensorflow/tfjs-core';

import {NUMERIC} from '../kernel_utils/kernel_utils';
import {UnaryOp} from '../kernel_utils/op_codes';
import {unaryKernel} from '../kernel_utils/unary_kernel';

export const relu6Config = unaryKernel(Relu6, UnaryOp.Relu6, {dtypes: NUMERIC});

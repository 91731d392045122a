import {Atan} from '@tensorflow/tfjs-core';

import {UnaryOp} from '../kernel_utils/op_codes';
import {unaryKernel} from '../kernel_utils/unary_kernel';

export const atanConfig = unaryKernel(Atan, UnaryOp.Atan);

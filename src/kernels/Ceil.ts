import {Ceil} from '@tensorflow/tfjs-core';

import {UnaryOp} from '../kernel_utils/op_codes';
import {unaryKernel} from '../kernel_utils/unary_kernel';

export const ceilConfig = unaryKernel(Ceil, UnaryOp.Ceil);

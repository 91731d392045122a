import {Expm1} from '@tensorflow/tfjs-core';

import {UnaryOp} from '../kernel_utils/op_codes';
import {unaryKernel} from '../kernel_utils/unary_kernel';

export const expm1Config = unaryKernel(Expm1, UnaryOp.Expm1);

import {Log1p} from '@tensorflow/tfjs-core';

import {UnaryOp} from '../kernel_utils/op_codes';
import {unaryKernel} from '../kernel_utils/unary_kernel';

export const log1pConfig = unaryKernel(Log1p, UnaryOp.Log1p);

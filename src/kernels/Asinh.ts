import {Asinh} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const asinhConfig = unaryKernel(Asinh, UnaryOp.Asinh);

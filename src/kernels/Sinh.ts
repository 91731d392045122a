import {Sinh} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const sinhConfig = unaryKernel(Sinh, UnaryOp.Sinh);

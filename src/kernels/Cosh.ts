import {Cosh} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const coshConfig = unaryKernel(Cosh, UnaryOp.Cosh);

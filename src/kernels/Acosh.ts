import {Acosh} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const acoshConfig = unaryKernel(Acosh, UnaryOp.Acosh);

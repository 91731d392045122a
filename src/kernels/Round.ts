import {Round} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const roundConfig = unaryKernel(Round, UnaryOp.Round);

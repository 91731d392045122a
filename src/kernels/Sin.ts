import {Sin} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const sinConfig = unaryKernel(Sin, UnaryOp.Sin);

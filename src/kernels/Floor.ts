import {Floor} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const floorConfig = unaryKernel(Floor, UnaryOp.Floor);

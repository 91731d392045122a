import {Square} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel, NUMERIC} from './unary_kernel';

export const squareConfig = unaryKernel(Square, UnaryOp.Square, {dtypes: NUMERIC});

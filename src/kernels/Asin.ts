import {Asin} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const asinConfig = unaryKernel(Asin, UnaryOp.Asin);

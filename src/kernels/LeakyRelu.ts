import {LeakyRelu} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const leakyReluConfig = unaryKernel(LeakyRelu, UnaryOp.LeakyRelu, {scalars: (attrs) => [attrs.alpha as number, 0]});

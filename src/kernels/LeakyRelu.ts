import {LeakyRelu} from '@tensorflow/tfjs-core';

import {UnaryOp} from '../kernel_utils/op_codes';
import {unaryKernel} from '../kernel_utils/unary_kernel';

export const leakyReluConfig = unaryKernel(LeakyRelu, UnaryOp.LeakyRelu, {scalars: (attrs) => [attrs.alpha as number, 0]});

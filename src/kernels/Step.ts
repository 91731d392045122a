import {Step} from '@tensorflow/tfjs-core';

import {UnaryOp} from '../kernel_utils/op_codes';
import {unaryKernel} from '../kernel_utils/unary_kernel';

export const stepConfig = unaryKernel(Step, UnaryOp.Step, {scalars: (attrs) => [attrs.alpha as number, 0]});

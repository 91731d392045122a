import {Step} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const stepConfig = unaryKernel(Step, UnaryOp.Step, {scalars: (attrs) => [attrs.alpha as number, 0]});

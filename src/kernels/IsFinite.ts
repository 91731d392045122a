import {IsFinite} from '@tensorflow/tfjs-core';

import {UnaryOp} from './op_codes';
import {unaryKernel} from './unary_kernel';

export const isFiniteConfig = unaryKernel(IsFinite, UnaryOp.IsFinite, {outDtype: () => 'bool'});

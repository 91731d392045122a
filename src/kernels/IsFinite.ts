import {IsFinite} from '@tensorflow/tfjs-core';

import {UnaryOp} from '../kernel_utils/op_codes';
import {unaryKernel} from '../kernel_utils/unary_kernel';

export const isFiniteConfig = unaryKernel(IsFinite, UnaryOp.IsFinite, {outDtype: () => 'bool'});

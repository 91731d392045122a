import {Neg} from '@tensorflow/tfjs-core';

import {NUMERIC} from '../kernel_utils/kernel_utils';
import {UnaryOp} from '../kernel_utils/op_codes';
import {unaryKernel} from '../kernel_utils/unary_kernel';

export const negConfig = unaryKernel(Neg, UnaryOp.Neg, {dtypes: NUMERIC});

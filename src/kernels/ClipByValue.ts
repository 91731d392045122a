import {ClipByValue} from '@tensorflow/tfjs-core';

import {UnaryOp} from '../kernel_utils/op_codes';
import {unaryKernel} from '../kernel_utils/unary_kernel';

export const clipByValueConfig = unaryKernel(ClipByValue, UnaryOp.ClipByValue, {
  scalars: (attrs) => [attrs.clipValueMin as number, attrs.clipValueMax as number],
});

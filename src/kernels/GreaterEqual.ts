import {GreaterEqual} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

export const greaterEqualConfig = binaryKernel(GreaterEqual, BinaryOp.GreaterEqual, {
  dtypes: ['float32', 'int32', 'bool'],
  outDtype: 'bool',
});

import {LessEqual} from '@tensorflow/tfjs-core';

import {binaryKernel} from './binary_kernel';
import {BinaryOp} from './op_codes';

export const lessEqualConfig = binaryKernel(LessEqual, BinaryOp.LessEqual, {dtypes: ['float32', 'int32', 'bool'], outDtype: 'bool'});

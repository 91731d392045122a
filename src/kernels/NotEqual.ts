import {NotEqual} from '@tensorflow/tfjs-core';

import {binaryKernel} from './binary_kernel';
import {BinaryOp} from './op_codes';

export const notEqualConfig = binaryKernel(NotEqual, BinaryOp.NotEqual, {dtypes: ['float32', 'int32', 'bool'], outDtype: 'bool'});

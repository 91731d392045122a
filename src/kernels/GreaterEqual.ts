import {GreaterEqual} from '@tensorflow/tfjs-core';

import {binaryKernel} from './binary_kernel';
import {BinaryOp} from './op_codes';

export const greaterEqualConfig = binaryKernel(GreaterEqual, BinaryOp.GreaterEqual, {dtypes: ['float32', 'int32', 'bool'], outDtype: 'bool'});

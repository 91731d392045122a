import {FloorDiv} from '@tensorflow/tfjs-core';

import {binaryKernel} from './binary_kernel';
import {BinaryOp} from './op_codes';

export const floorDivConfig = binaryKernel(FloorDiv, BinaryOp.FloorDiv, {dtypes: ['float32', 'int32'], outDtype: 'int32'});

import {FloorDiv} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

export const floorDivConfig = binaryKernel(FloorDiv, BinaryOp.FloorDiv, {dtypes: ['float32', 'int32'], outDtype: 'int32'});

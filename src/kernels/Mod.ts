import {Mod} from '@tensorflow/tfjs-core';

import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

export const modConfig = binaryKernel(Mod, BinaryOp.Mod, {dtypes: ['float32', 'int32']});

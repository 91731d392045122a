import {Mod} from '@tensorflow/tfjs-core';

import {binaryKernel} from './binary_kernel';
import {BinaryOp} from './op_codes';

export const modConfig = binaryKernel(Mod, BinaryOp.Mod, {dtypes: ['float32', 'int32']});

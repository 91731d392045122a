import {Cumsum} from '@tensorflow/tfjs-core';

import {cumulativeKernel} from '../kernel_utils/cumulative_kernel';

export const cumsumConfig = cumulativeKernel(Cumsum, false);

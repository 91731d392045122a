import {Cumsum} from '@tensorflow/tfjs-core';

import {cumulativeKernel} from './cumulative_kernel';

export const cumsumConfig = cumulativeKernel(Cumsum, false);

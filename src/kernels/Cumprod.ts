import {Cumprod} from '@tensorflow/tfjs-core';

import {cumulativeKernel} from './cumulative_kernel';

export const cumprodConfig = cumulativeKernel(Cumprod, true);

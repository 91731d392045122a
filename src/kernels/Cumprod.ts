import {Cumprod} from '@tensorflow/tfjs-core';

import {cumulativeKernel} from '../kernel_utils/cumulative_kernel';

export const cumprodConfig = cumulativeKernel(Cumprod, true);

import {SparseSegmentMean} from '@tensorflow/tfjs-core';

import {sparseSegmentKernel} from '../kernel_utils/sparse_segment';

export const sparseSegmentMeanConfig = sparseSegmentKernel(SparseSegmentMean, true);

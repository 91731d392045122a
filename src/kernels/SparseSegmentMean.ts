import {SparseSegmentMean} from '@tensorflow/tfjs-core';

import {sparseSegmentKernel} from './sparse_segment';

export const sparseSegmentMeanConfig = sparseSegmentKernel(SparseSegmentMean, true);

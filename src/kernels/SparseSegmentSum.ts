import {SparseSegmentSum} from '@tensorflow/tfjs-core';

import {sparseSegmentKernel} from './sparse_segment';

export const sparseSegmentSumConfig = sparseSegmentKernel(SparseSegmentSum, false);

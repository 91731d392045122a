import {SparseSegmentSum} from '@tensorflow/tfjs-core';

import {sparseSegmentKernel} from '../kernel_utils/sparse_segment';

export const sparseSegmentSumConfig = sparseSegmentKernel(SparseSegmentSum, false);

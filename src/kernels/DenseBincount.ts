import {DenseBincount, DenseBincountAttrs, KernelConfig, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {binCounts} from '../kernel_utils/bin_counts';
import {backendOf, nativeRunner} from '../kernel_utils/kernel_utils';

export const denseBincountConfig: KernelConfig = {
  kernelName: DenseBincount,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {x, weights} = args.inputs as {x: TensorInfo; weights: TensorInfo};
    const {size, binaryOutput} = args.attrs as unknown as DenseBincountAttrs;
    const runner = nativeRunner(backend, [weights], ['float32', 'int32']);
    if (runner === null || x.dtype !== 'int32' || (x.shape.length !== 1 && x.shape.length !== 2)) return runOnCpu(DenseBincount, args);
    // tfjs-backend-cpu ignores binaryOutput for a 1-D x; so do we.
    return binCounts(backend, runner, x, weights, size, x.shape.length === 2 && Boolean(binaryOutput));
  },
};

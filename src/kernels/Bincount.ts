import {Bincount, BincountAttrs, KernelConfig, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {binCounts} from '../kernel_utils/bin_counts';
import {backendOf, nativeRunner} from '../kernel_utils/kernel_utils';

export const bincountConfig: KernelConfig = {
  kernelName: Bincount,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {x, weights} = args.inputs as {x: TensorInfo; weights: TensorInfo};
    const {size} = args.attrs as unknown as BincountAttrs;
    const runner = nativeRunner(backend, [weights], ['float32', 'int32']);
    if (runner === null || x.dtype !== 'int32' || x.shape.length !== 1) return runOnCpu(Bincount, args);
    return binCounts(backend, runner, x, weights, size, false);
  },
};

import {KernelConfig, OnesLike, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {fillWith} from '../kernel_utils/fill_kernel';
import {backendOf, nativeRunner, STORABLE} from '../kernel_utils/kernel_utils';

export const onesLikeConfig: KernelConfig = {
  kernelName: OnesLike,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    const runner = nativeRunner(backend, [x], STORABLE);
    if (runner === null) return runOnCpu(OnesLike, args);
    return fillWith(runner, x.shape, x.dtype, 1);
  },
};

// tf.maxPool: one native kernel, each window's maximum per channel, NaN and
// -Infinity never taken (as tfjs-backend-cpu's pool).
import {KernelConfig, MaxPool} from '@tensorflow/tfjs-core';

import {pool2d, poolSetup} from '../kernel_utils/conv_windows';
import {PoolOp} from '../kernel_utils/op_codes';

export const maxPoolConfig: KernelConfig = {
  kernelName: MaxPool,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const s = poolSetup(args, MaxPool);
    return 'g' in s ? pool2d(s.runner, s.x, s.g, PoolOp.Max) : s;
  },
};

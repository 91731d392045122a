// tf.avgPool: one native kernel, each window's sum per channel over the
// number of its pixels inside the input (padding is not counted, as in
// tfjs-backend-cpu).
import {AvgPool, KernelConfig} from '@tensorflow/tfjs-core';

import {pool2d, poolSetup} from '../kernel_utils/conv_windows';
import {PoolOp} from '../kernel_utils/op_codes';

export const avgPoolConfig: KernelConfig = {
  kernelName: AvgPool,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const s = poolSetup(args, AvgPool);
    return 'g' in s ? pool2d(s.runner, s.x, s.g, PoolOp.Avg) : s;
  },
};

// tf.maxPool: the input padded with -Infinity, each window's maximum per
// channel, NaN and -Infinity never taken (as tfjs-backend-cpu's pool).
import {KernelConfig, MaxPool} from '@tensorflow/tfjs-core';

import {disposeAll, padForWindows, poolSetup, reduceWindows} from './conv_windows';
import {ReduceOp} from './op_codes';

export const maxPoolConfig: KernelConfig = {
  kernelName: MaxPool,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const s = poolSetup(args, MaxPool);
    if (!('g' in s)) return s;
    const p = padForWindows(s.backend, s.x, s.g, -Infinity);
    try {
      return reduceWindows(s.backend, s.runner, p.t, p.g, ReduceOp.PoolMax, 'float32');
    } finally {
      if (p.owned) disposeAll(s.backend, p.t);
    }
  },
};

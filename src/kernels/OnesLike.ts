import {DataType, KernelConfig, OnesLike, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {fillOnDevice} from './fill_kernel';
import {backendOf, onGpu} from './kernel_utils';

const NATIVE: readonly DataType[] = ['float32', 'int32', 'bool'];

export const onesLikeConfig: KernelConfig = {
  kernelName: OnesLike,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    if (!onGpu(backend, [x], NATIVE)) return runOnCpu(OnesLike, args);
    return fillOnDevice(backend, x.shape, x.dtype, 1);
  },
};

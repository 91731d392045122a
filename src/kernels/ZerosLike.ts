import {DataType, KernelConfig, ZerosLike, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {fillOnDevice} from './fill_kernel';
import {backendOf, onGpu} from './kernel_utils';

const NATIVE: readonly DataType[] = ['float32', 'int32', 'bool'];

export const zerosLikeConfig: KernelConfig = {
  kernelName: ZerosLike,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    if (!onGpu(backend, [x], NATIVE)) return runOnCpu(ZerosLike, args);
    return fillOnDevice(backend, x.shape, x.dtype, 0);
  },
};

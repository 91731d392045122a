import {DataType, KernelConfig, ZerosLike, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {fillWith} from './fill_kernel';
import {backendOf, nativeRunner} from './kernel_utils';

const NATIVE: readonly DataType[] = ['float32', 'int32', 'bool'];

export const zerosLikeConfig: KernelConfig = {
  kernelName: ZerosLike,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    const runner = nativeRunner(backend, [x], NATIVE);
    if (runner === null) return runOnCpu(ZerosLike, args);
    return fillWith(runner, x.shape, x.dtype, 0);
  },
};

import {DataType, KernelConfig, TensorInfo, Transpose, TransposeAttrs} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, onGpu, transposeOnDevice} from './kernel_utils';

const NATIVE: readonly DataType[] = ['float32', 'int32', 'bool'];

export const transposeConfig: KernelConfig = {
  kernelName: Transpose,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    const {perm} = args.attrs as unknown as TransposeAttrs;
    if (!onGpu(backend, [x], NATIVE)) return runOnCpu(Transpose, args);
    return transposeOnDevice(backend, x, perm);
  },
};

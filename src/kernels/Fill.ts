import {DataType, Fill, FillAttrs, KernelConfig} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {fillWith} from './fill_kernel';
import {backendOf, nativeRunner} from './kernel_utils';

const NATIVE: readonly DataType[] = ['float32', 'int32', 'bool'];

export const fillConfig: KernelConfig = {
  kernelName: Fill,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {shape, value, dtype} = args.attrs as unknown as FillAttrs;
    const $dtype = dtype ?? 'float32';
    const runner = nativeRunner(backend, [], NATIVE);
    if (runner === null || !NATIVE.includes($dtype) || typeof value !== 'number') return runOnCpu(Fill, args);
    return fillWith(runner, shape, $dtype, value);
  },
};

import {Fill, FillAttrs, KernelConfig} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {fillWith} from '../kernel_utils/fill_kernel';
import {backendOf, nativeRunner, STORABLE} from '../kernel_utils/kernel_utils';

export const fillConfig: KernelConfig = {
  kernelName: Fill,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {shape, value, dtype} = args.attrs as unknown as FillAttrs;
    const $dtype = dtype ?? 'float32';
    const runner = nativeRunner(backend, [], STORABLE);
    if (runner === null || !STORABLE.includes($dtype) || typeof value !== 'number') return runOnCpu(Fill, args);
    return fillWith(runner, shape, $dtype, value);
  },
};

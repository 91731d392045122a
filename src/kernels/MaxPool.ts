// tf.maxPool: the input padded with -Infinity, each window's maximum per
// channel, NaN and -Infinity never taken (as tfjs-backend-cpu's pool).
import {backend_util, KernelConfig, MaxPool, MaxPoolAttrs, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {disposeAll, geometryOf, padForWindows, reduceWindows} from './conv_windows';
import {backendOf, copyView, contiguousStrides, FLOAT, nativeRunner} from './kernel_utils';
import {ReduceOp} from './op_codes';

export const maxPoolConfig: KernelConfig = {
  kernelName: MaxPool,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    const {filterSize, strides, pad, dimRoundingMode} = args.attrs as unknown as MaxPoolAttrs;
    const runner = nativeRunner(backend, [x], FLOAT);
    if (runner === null || x.shape.length !== 4) return runOnCpu(MaxPool, args);
    const info = backend_util.computePool2DInfo(x.shape as [number, number, number, number], filterSize, strides, 1, pad, dimRoundingMode);
    if (info.filterWidth === 1 && info.filterHeight === 1 && util.arraysEqual(info.inShape, info.outShape)) {
      return copyView(runner, x, 0, contiguousStrides(x.shape), x.shape);
    }
    const p = padForWindows(backend, x, geometryOf(info), -Infinity);
    try {
      return reduceWindows(backend, runner, p.t, p.g, ReduceOp.PoolMax, 'float32');
    } finally {
      if (p.owned) disposeAll(backend, p.t);
    }
  },
};

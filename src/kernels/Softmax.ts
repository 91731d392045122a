import {KernelConfig, Softmax, SoftmaxAttrs, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, onGpu} from './kernel_utils';

export const softmaxConfig: KernelConfig = {
  kernelName: Softmax,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const logits = args.inputs.logits as TensorInfo;
    const {dim} = args.attrs as unknown as SoftmaxAttrs;
    const rank = logits.shape.length;
    const last = dim === -1 || dim === rank - 1;
    if (!onGpu(backend, [logits], ['float32']) || rank === 0 || !last) return runOnCpu(Softmax, args);
    const inner = logits.shape[rank - 1];
    const outer = util.sizeFromShape(logits.shape) / Math.max(inner, 1);
    const {info, ptr} = backend.makeDeviceOutput(logits.shape, 'float32');
    backend.native.softmax(backend.devicePtr(logits), ptr, inner === 0 ? 0 : outer, inner, false);
    return info;
  },
};

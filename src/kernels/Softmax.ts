import {KernelConfig, Softmax, SoftmaxAttrs, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, nativeRunner} from '../kernel_utils/kernel_utils';

export const softmaxConfig: KernelConfig = {
  kernelName: Softmax,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const logits = args.inputs.logits as TensorInfo;
    const {dim} = args.attrs as unknown as SoftmaxAttrs;
    const rank = logits.shape.length;
    const last = dim === -1 || dim === rank - 1;
    const runner = nativeRunner(backend, [logits], ['float32']);
    if (runner === null || rank === 0 || !last) return runOnCpu(Softmax, args);
    const inner = logits.shape[rank - 1];
    const outer = util.sizeFromShape(logits.shape) / Math.max(inner, 1);
    const {info, buf} = runner.output(logits.shape, 'float32');
    if (inner > 0) runner.native.softmax(runner.input(logits), buf, outer, inner, false);
    return info;
  },
};

import {KernelConfig, TensorInfo, TopK, TopKAttrs, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, nativeRunner, NUMERIC, nd} from '../kernel_utils/kernel_utils';

// tf.topk over the last axis: values largest first, equal values in order of
// position. Always sorted (sorted: false lets tfjs return any order of the same set).
export const topKConfig: KernelConfig = {
  kernelName: TopK,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    const {k} = args.attrs as unknown as TopKAttrs;
    const runner = nativeRunner(backend, [x], NUMERIC);
    if (runner === null || x.shape.length === 0) return runOnCpu(TopK, args);
    const n = x.shape[x.shape.length - 1];
    util.assert(Number.isInteger(k) && k >= 0 && k <= n, () => `topk: k must be an integer in [0, ${n}] (the last dimension), got ${k}`);
    const shape = [...x.shape.slice(0, -1), k];
    const values = runner.output(shape, x.dtype);
    const indices = runner.output(shape, 'int32');
    const rows = n === 0 ? 0 : util.sizeFromShape(x.shape) / n;
    if (rows * k > 0) runner.native.topK(nd(x.dtype), runner.input(x), values.buf, indices.buf, rows, n, k);
    return [values.info, indices.info];
  },
};

import {KernelConfig, OneHot, OneHotAttrs, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, nativeRunner, nd, STORABLE} from '../kernel_utils/kernel_utils';

export const oneHotConfig: KernelConfig = {
  kernelName: OneHot,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const indices = args.inputs.indices as TensorInfo;
    const {dtype, depth, onValue, offValue} = args.attrs as unknown as OneHotAttrs;
    const runner = nativeRunner(backend, [indices], ['int32']);
    if (runner === null || !STORABLE.includes(dtype)) return runOnCpu(OneHot, args);
    const n = util.sizeFromShape(indices.shape);
    const {info, buf} = runner.output([...indices.shape, depth], dtype);
    if (n * depth === 0) return info;
    runner.native.oneHot(nd(dtype), runner.input(indices), buf, n, depth, onValue, offValue);
    return info;
  },
};

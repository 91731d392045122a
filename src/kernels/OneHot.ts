import {KernelConfig, OneHot, OneHotAttrs, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, nd, STORABLE} from './kernel_utils';

export const oneHotConfig: KernelConfig = {
  kernelName: OneHot,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const indices = args.inputs.indices as TensorInfo;
    const {dtype, depth, onValue, offValue} = args.attrs as unknown as OneHotAttrs;
    if (!backend.gpu || indices.dtype !== 'int32' || !STORABLE.includes(dtype)) return runOnCpu(OneHot, args);
    const n = util.sizeFromShape(indices.shape);
    const {info, ptr} = backend.makeDeviceOutput([...indices.shape, depth], dtype);
    if (n * depth > 0) backend.native.oneHot(nd(dtype), backend.devicePtr(indices), ptr, n, depth, onValue, offValue);
    return info;
  },
};

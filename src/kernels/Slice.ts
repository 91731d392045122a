import {KernelConfig, Slice, slice_util, SliceAttrs, TensorInfo, Tensor} from '@tensorflow/tfjs-core';

import {bytesPerElement} from '../backend/backend_wholememory';
import {runOnCpu} from '../backend/fallback';
import {backendOf, contiguousStrides, nativeRunner, STORABLE} from './kernel_utils';

export const sliceConfig: KernelConfig = {
  kernelName: Slice,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    const {begin, size} = args.attrs as unknown as SliceAttrs;
    const runner = nativeRunner(backend, [x], STORABLE);
    if (runner === null) return runOnCpu(Slice, args);
    const [$begin, $size] = slice_util.parseSliceParams(x as Tensor, begin, size);
    slice_util.assertParamsValid(x as Tensor, $begin, $size);
    const strides = contiguousStrides(x.shape);
    const offset = $begin.reduce((acc, b, i) => acc + b * strides[i], 0);
    const {info, buf} = runner.output($size, x.dtype);
    if ($size.some((d) => d === 0)) return info;
    runner.stridedCopy(bytesPerElement(x.dtype), runner.input(x), offset, strides, $size.map((d) => Math.max(d, 1)), buf, 0,
                       contiguousStrides($size), $size);
    return info;
  },
};

import {KernelConfig, Slice, slice_util, SliceAttrs, TensorInfo, Tensor} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {inheritValid} from '../backend/index_validation';
import {backendOf, contiguousStrides, copyView, nativeRunner, STORABLE} from '../kernel_utils/kernel_utils';

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
    // A run of whole rows on the GPU: a view of x's memory, no copy.
    const whole = runner.where === 'device' && slice_util.isSliceContinous(x.shape, $begin, $size);
    const view = whole ? backend.deviceView(x, offset, $size) : undefined;
    const out = view ?? copyView(runner, x, offset, strides, $size);
    inheritValid(out, [x]);
    return out;
  },
};

import {KernelConfig, slice_util, StridedSlice, StridedSliceAttrs, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, contiguousStrides, copyView, nativeRunner, reshapeView, STORABLE} from '../kernel_utils/kernel_utils';

// x[begin:end:strides] with tfjs' masks (slice_util.sliceInfo resolves them):
// one native strided copy, any sign of stride, then a view in the final shape.
export const stridedSliceConfig: KernelConfig = {
  kernelName: StridedSlice,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    const {begin, end, strides, beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask} = args.attrs as unknown as StridedSliceAttrs;
    const runner = nativeRunner(backend, [x], STORABLE);
    if (runner === null) return runOnCpu(StridedSlice, args);
    const info = slice_util.sliceInfo(x.shape, begin, end, strides, beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask);
    if (info.isIdentity) return reshapeView(backend, x, info.finalShape);
    // The copy's shape in x's axes (shrunk axes kept as 1, new axes not yet there); the view adds and drops them.
    const shape = info.begin.map((b, k) => Math.max(0, Math.ceil((info.end[k] - b) / info.strides[k])));
    const inStrides = contiguousStrides(x.shape);
    const out = copyView(
      runner,
      x,
      info.begin.reduce((acc, b, k) => acc + b * inStrides[k], 0),
      info.strides.map((s, k) => s * inStrides[k]),
      shape,
    );
    const view = reshapeView(backend, out, info.finalShape);
    backend.disposeIntermediateTensorInfo(out);
    return view;
  },
};

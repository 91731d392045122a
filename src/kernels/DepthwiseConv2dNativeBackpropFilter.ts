// The filter gradient of tf.depthwiseConv2d: per channel, its windows
// transposed times its columns of dy.
import {backend_util, DepthwiseConv2dNativeBackpropFilter, DepthwiseConv2dNativeBackpropFilterAttrs, KernelConfig, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {disposeAll, geometryOf, groupedConvFilterGrad, padForWindows} from './conv_windows';
import {depthwiseRunner} from './DepthwiseConv2dNative';
import {backendOf, copyView} from './kernel_utils';

export const depthwiseConv2dNativeBackpropFilterConfig: KernelConfig = {
  kernelName: DepthwiseConv2dNativeBackpropFilter,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {x, dy} = args.inputs as {x: TensorInfo; dy: TensorInfo};
    const {strides, dilations, pad, dimRoundingMode, filterShape} = args.attrs as unknown as DepthwiseConv2dNativeBackpropFilterAttrs;
    const runner = depthwiseRunner(args, [x, dy]);
    if (runner === null) return runOnCpu(DepthwiseConv2dNativeBackpropFilter, args);
    const info = backend_util.computeConv2DInfo(x.shape as [number, number, number, number], filterShape, strides, dilations ?? 1, pad,
                                                dimRoundingMode, true);
    const [fH, fW, c, mult] = filterShape;
    const p = padForWindows(backend, x, geometryOf(info), 0);
    let grouped: TensorInfo | null = null;
    try {
      grouped = groupedConvFilterGrad(backend, runner, p.t, p.g, c, 1, dy, mult);  // [c, fH*fW, mult]
      const k = fH * fW;
      return copyView(runner, grouped, 0, [fW * mult, mult, k * mult, 1], [fH, fW, c, mult]);
    } finally {
      disposeAll(backend, ...(grouped ? [grouped] : []), ...(p.owned ? [p.t] : []));
    }
  },
};

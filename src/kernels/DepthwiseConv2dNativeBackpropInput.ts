// The input gradient of tf.depthwiseConv2d: per channel, a stride-1
// convolution of its mult columns of dy, spread out by the stride, with the
// filter turned half a turn.
import {backend_util, DepthwiseConv2dNativeBackpropInput, DepthwiseConv2dNativeBackpropInputAttrs, KernelConfig, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {disposeAll, geometryOf, groupedConv, spread, transposedGeometry} from './conv_windows';
import {depthwiseRunner} from './DepthwiseConv2dNative';
import {backendOf, contiguousStrides, copyView} from './kernel_utils';

export const depthwiseConv2dNativeBackpropInputConfig: KernelConfig = {
  kernelName: DepthwiseConv2dNativeBackpropInput,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {dy, filter} = args.inputs as {dy: TensorInfo; filter: TensorInfo};
    const {strides, dilations, pad, dimRoundingMode, inputShape} = args.attrs as unknown as DepthwiseConv2dNativeBackpropInputAttrs;
    const runner = depthwiseRunner(args, [dy, filter]);
    if (runner === null) return runOnCpu(DepthwiseConv2dNativeBackpropInput, args);
    const info = backend_util.computeConv2DInfo(inputShape, filter.shape as [number, number, number, number], strides, dilations ?? 1, pad,
                                                dimRoundingMode, true);
    const [fH, fW, c, mult] = filter.shape;
    const g = geometryOf(info);
    const t = transposedGeometry(g, c * mult);
    const spreadDy = spread(runner, dy, t.hp, t.wp, g.sH, g.sW, t.top, t.left, [g.outH, g.outW]);
    // [c, fH*fW*mult, 1]: channel c's filter, turned half a turn.
    const s = contiguousStrides(filter.shape);
    const w = copyView(runner, filter, (fH - 1) * s[0] + (fW - 1) * s[1], [s[2], -s[0], -s[1], 1], [c, fH, fW, mult]);
    const wg = {...w, shape: [c, fH * fW * mult, 1]};
    try {
      return groupedConv(backend, runner, spreadDy, t.g, c, mult, wg, 1);
    } finally {
      disposeAll(backend, spreadDy, w);
    }
  },
};

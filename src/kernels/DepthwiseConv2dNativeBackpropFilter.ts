// The filter gradient of tf.depthwiseConv2d: one native call (on the GPU a
// blocked partial sum per chunk of pixels, then the chunks added in order).
import {
  DepthwiseConv2dNativeBackpropFilter,
  DepthwiseConv2dNativeBackpropFilterAttrs,
  KernelConfig,
  TensorInfo,
  util,
} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {convInfo, geometryOf, windowArray} from '../kernel_utils/conv_windows';
import {depthwiseRunner} from './DepthwiseConv2dNative';

export const depthwiseConv2dNativeBackpropFilterConfig: KernelConfig = {
  kernelName: DepthwiseConv2dNativeBackpropFilter,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const {x, dy} = args.inputs as {x: TensorInfo; dy: TensorInfo};
    const {strides, dilations, pad, dimRoundingMode, filterShape} = args.attrs as unknown as DepthwiseConv2dNativeBackpropFilterAttrs;
    const runner = depthwiseRunner(args, [x, dy]);
    if (runner === null) return runOnCpu(DepthwiseConv2dNativeBackpropFilter, args);
    const info = convInfo(x.shape, filterShape, {strides, dilations, pad, dimRoundingMode}, true);
    const g = geometryOf(info);
    const [, , c, mult] = filterShape;
    if (!util.arraysEqual(dy.shape, [g.batch, g.outH, g.outW, c * mult])) return runOnCpu(DepthwiseConv2dNativeBackpropFilter, args);
    const {info: dw, buf} = runner.output(filterShape, 'float32');
    runner.native.depthwiseConv2dFilterGrad(runner.input(x), runner.input(dy), buf, windowArray(g), mult);
    return dw;
  },
};

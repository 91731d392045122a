// The input gradient of tf.depthwiseConv2d: one native kernel, each input
// element gathering dy times the filter from the outputs that read it.
import {DepthwiseConv2dNativeBackpropInput, DepthwiseConv2dNativeBackpropInputAttrs, KernelConfig, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {convInfo, geometryOf, windowArray} from '../kernel_utils/conv_windows';
import {depthwiseRunner} from './DepthwiseConv2dNative';

export const depthwiseConv2dNativeBackpropInputConfig: KernelConfig = {
  kernelName: DepthwiseConv2dNativeBackpropInput,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const {dy, filter} = args.inputs as {dy: TensorInfo; filter: TensorInfo};
    const {strides, dilations, pad, dimRoundingMode, inputShape} = args.attrs as unknown as DepthwiseConv2dNativeBackpropInputAttrs;
    const runner = depthwiseRunner(args, [dy, filter]);
    if (runner === null) return runOnCpu(DepthwiseConv2dNativeBackpropInput, args);
    const info = convInfo(inputShape, filter.shape, {strides, dilations, pad, dimRoundingMode}, true);
    const g = geometryOf(info);
    const [, , c, mult] = filter.shape;
    // A dy that does not cover the output (or of other channels) is read as tfjs-backend-cpu reads it: there.
    if (dy.shape[0] !== g.batch || dy.shape[1] < g.outH || dy.shape[2] < g.outW || dy.shape[3] !== c * mult) {
      return runOnCpu(DepthwiseConv2dNativeBackpropInput, args);
    }
    const {info: dx, buf} = runner.output(inputShape, 'float32');
    runner.native.depthwiseConv2dInputGrad(runner.input(dy), runner.input(filter), buf, windowArray(g), mult, dy.shape[1], dy.shape[2]);
    return dx;
  },
};

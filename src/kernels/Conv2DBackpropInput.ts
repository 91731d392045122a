// The input gradient of tf.conv2d (and tf.conv2dTranspose): a stride-1
// convolution of dy, spread out by the stride, with the filter turned half
// a turn and its channel axes swapped. On the GPU one implicit GEMM reads
// dy and the filter that way in place (conv2d_input_grad.cu).
import {backend_util, Conv2DBackpropInput, Conv2DBackpropInputAttrs, KernelConfig, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {
  convInfo,
  disposeAll,
  flippedFilter,
  fromChannelsLast,
  geometryOf,
  spread,
  toChannelsLast,
  transposedGeometry,
  windowArray,
  windowConv,
} from '../kernel_utils/conv_windows';
import {backendOf, FLOAT, nativeRunner} from '../kernel_utils/kernel_utils';

export const conv2DBackpropInputConfig: KernelConfig = {
  kernelName: Conv2DBackpropInput,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {dy, filter} = args.inputs as {dy: TensorInfo; filter: TensorInfo};
    const {inputShape, strides, pad, dataFormat, dimRoundingMode} = args.attrs as unknown as Conv2DBackpropInputAttrs;
    const runner = nativeRunner(backend, [dy, filter], FLOAT);
    if (runner === null || dy.shape.length !== 4 || filter.shape.length !== 4) return runOnCpu(Conv2DBackpropInput, args);
    const format = backend_util.convertConv2DDataFormat(dataFormat);
    const info = convInfo(inputShape, filter.shape, {strides, pad, dimRoundingMode}, false, format);
    const channelsFirst = format === 'channelsFirst';
    const g = geometryOf(info);
    const t = transposedGeometry(g, info.outChannels);
    const dyl = toChannelsLast(runner, dy, channelsFirst);
    const [batch, dyH, dyW] = dyl.t.shape;
    if (runner.conv2d && dyH >= g.outH && dyW >= g.outW) {
      const {info: dx, buf} = runner.output([batch, g.inH, g.inW, info.inChannels], 'float32');
      try {
        runner.conv2d.inputGrad(runner.input(dyl.t), runner.input(filter), buf, windowArray(g), info.outChannels, dyH, dyW);
      } finally {
        if (dyl.owned) disposeAll(backend, dyl.t);
      }
      return fromChannelsLast(backend, runner, dx, channelsFirst);
    }
    const spreadDy = spread(runner, dyl.t, t.hp, t.wp, g.sH, g.sW, t.top, t.left, [g.outH, g.outW]);
    const flipped = flippedFilter(runner, filter);
    try {
      const dx = windowConv(backend, runner, spreadDy, t.g, flipped, info.inChannels);
      return fromChannelsLast(backend, runner, dx, channelsFirst);
    } finally {
      disposeAll(backend, spreadDy, flipped, ...(dyl.owned ? [dyl.t] : []));
    }
  },
};

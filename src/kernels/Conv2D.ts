// tf.conv2d: the input's windows (one row each, im2col) times the filter
// seen as a [fH*fW*inC, outC] matrix. On the GPU one implicit GEMM reads the
// windows in place (conv2d_forward.cu); the CPU core copies them out for its
// vectorised matmul (conv_windows.ts).
import {backend_util, Conv2D, Conv2DAttrs, KernelConfig, TensorInfo} from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {runOnCpu} from '../backend/fallback';
import {KernelRunner} from '../backend/runner';
import {
  convInfo,
  disposeAll,
  fromChannelsLast,
  geometryOf,
  padForWindows,
  toChannelsLast,
  windowArray,
  windowConv,
} from '../kernel_utils/conv_windows';
import {backendOf, FLOAT, nativeRunner} from '../kernel_utils/kernel_utils';

/** conv2d on the native path (the caller checked the dtypes). */
export function conv2dNative(
  backend: WholeMemoryBackend,
  runner: KernelRunner,
  x: TensorInfo,
  filter: TensorInfo,
  attrs: Conv2DAttrs,
): TensorInfo {
  const {strides, pad, dataFormat, dilations, dimRoundingMode} = attrs;
  const format = backend_util.convertConv2DDataFormat(dataFormat);
  const info = convInfo(x.shape, filter.shape, attrs, false, format);
  const channelsFirst = format === 'channelsFirst';
  const nhwc = toChannelsLast(runner, x, channelsFirst);
  if (runner.conv2d) {
    const g = geometryOf(info);
    const {info: y, buf} = runner.output([g.batch, g.outH, g.outW, info.outChannels], 'float32');
    try {
      runner.conv2d.forward(runner.input(nhwc.t), runner.input(filter), buf, windowArray(g), info.outChannels);
    } finally {
      if (nhwc.owned) disposeAll(backend, nhwc.t);
    }
    return fromChannelsLast(backend, runner, y, channelsFirst);
  }
  const p = padForWindows(backend, nhwc.t, geometryOf(info), 0);
  try {
    const y = windowConv(backend, runner, p.t, p.g, filter, info.outChannels);
    return fromChannelsLast(backend, runner, y, channelsFirst);
  } finally {
    disposeAll(backend, ...(p.owned ? [p.t] : []), ...(nhwc.owned ? [nhwc.t] : []));
  }
}

export const conv2DConfig: KernelConfig = {
  kernelName: Conv2D,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {x, filter} = args.inputs as {x: TensorInfo; filter: TensorInfo};
    const runner = nativeRunner(backend, [x, filter], FLOAT);
    if (runner === null || x.shape.length !== 4 || filter.shape.length !== 4) return runOnCpu(Conv2D, args);
    return conv2dNative(backend, runner, x, filter, args.attrs as unknown as Conv2DAttrs);
  },
};

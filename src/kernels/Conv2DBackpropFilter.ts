// The filter gradient of tf.conv2d: the input's windows, transposed, times
// dy. On the GPU one implicit GEMM reads the windows in place
// (conv2d_filter_grad.cu).
import {backend_util, Conv2DBackpropFilter, Conv2DBackpropFilterAttrs, KernelConfig, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {
  convInfo,
  disposeAll,
  geometryOf,
  padForWindows,
  toChannelsLast,
  windowArray,
  windowConvFilterGrad,
} from '../kernel_utils/conv_windows';
import {backendOf, FLOAT, nativeRunner} from '../kernel_utils/kernel_utils';

export const conv2DBackpropFilterConfig: KernelConfig = {
  kernelName: Conv2DBackpropFilter,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {x, dy} = args.inputs as {x: TensorInfo; dy: TensorInfo};
    const {strides, pad, dataFormat, dimRoundingMode, filterShape} = args.attrs as unknown as Conv2DBackpropFilterAttrs;
    const runner = nativeRunner(backend, [x, dy], FLOAT);
    if (runner === null || x.shape.length !== 4 || dy.shape.length !== 4) return runOnCpu(Conv2DBackpropFilter, args);
    const format = backend_util.convertConv2DDataFormat(dataFormat);
    const info = convInfo(x.shape, filterShape, {strides, pad, dimRoundingMode}, false, format);
    const channelsFirst = format === 'channelsFirst';
    const xl = toChannelsLast(runner, x, channelsFirst);
    const dyl = toChannelsLast(runner, dy, channelsFirst);
    const g = geometryOf(info);
    if (runner.conv2d && util.arraysEqual(dyl.t.shape, [g.batch, g.outH, g.outW, info.outChannels])) {
      const {info: dw, buf} = runner.output([...filterShape], 'float32');
      try {
        runner.conv2d.filterGrad(runner.input(xl.t), runner.input(dyl.t), buf, windowArray(g), info.outChannels);
      } finally {
        disposeAll(backend, ...[xl, dyl].filter((o) => o.owned).map((o) => o.t));
      }
      return dw;
    }
    const p = padForWindows(backend, xl.t, g, 0);
    try {
      const dw = windowConvFilterGrad(backend, runner, p.t, p.g, dyl.t, info.outChannels);
      return {...dw, shape: [...filterShape]};
    } finally {
      disposeAll(backend, ...[p, xl, dyl].filter((o) => o.owned).map((o) => o.t));
    }
  },
};

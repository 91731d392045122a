// The gradient of tf.maxPool: the window position of each maximum (as
// tfjs-backend-cpu picks it: the first, never NaN or -Infinity, so a window
// of only those passes nothing), then each input pixel gathers the dy of
// the windows whose maximum it is. Two native kernels, no scatter.
import {backend_util, KernelConfig, MaxPoolGrad, MaxPoolGradAttrs, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {disposeAll, geometryOf, pool2d, windowArray} from '../kernel_utils/conv_windows';
import {backendOf, FLOAT, nativeRunner} from '../kernel_utils/kernel_utils';
import {PoolOp} from '../kernel_utils/op_codes';

export const maxPoolGradConfig: KernelConfig = {
  kernelName: MaxPoolGrad,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {dy, input} = args.inputs as {dy: TensorInfo; input: TensorInfo};
    const {filterSize, strides, pad, dimRoundingMode} = args.attrs as unknown as MaxPoolGradAttrs;
    const runner = nativeRunner(backend, [dy, input], FLOAT);
    if (runner === null || input.shape.length !== 4 || dy.shape.length !== 4) return runOnCpu(MaxPoolGrad, args);
    const info = backend_util.computePool2DInfo(
      input.shape as [number, number, number, number],
      filterSize,
      strides,
      1,
      pad,
      dimRoundingMode,
    );
    const g = geometryOf(info);
    // tfjs-backend-cpu reads a dy of another size with its own strides; leave that to it.
    if (!util.arraysEqual(dy.shape, [g.batch, g.outH, g.outW, g.chans])) return runOnCpu(MaxPoolGrad, args);
    const argmax = pool2d(runner, input, g, PoolOp.ArgMax);
    try {
      const {info: dx, buf} = runner.output(input.shape, 'float32');
      runner.pool2dGrad(PoolOp.Max, runner.input(dy), runner.input(argmax), buf, windowArray(g));
      return dx;
    } finally {
      disposeAll(backend, argmax);
    }
  },
};

// The gradient of tf.avgPool: each input pixel sums dy over the windows
// that hold it (a stride-1 window sum over dy spread out by the stride),
// over the full filter size as tfjs-backend-cpu does, padding or not.
import {AvgPoolGrad, AvgPoolGradAttrs, backend_util, KernelConfig, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {disposeAll, geometryOf, reduceWindows, spread, transposedGeometry} from './conv_windows';
import {backendOf, FLOAT, nativeRunner} from './kernel_utils';
import {ReduceOp} from './op_codes';

export const avgPoolGradConfig: KernelConfig = {
  kernelName: AvgPoolGrad,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {dy, input} = args.inputs as {dy: TensorInfo; input: TensorInfo};
    const {filterSize, strides, pad} = args.attrs as unknown as AvgPoolGradAttrs;
    const runner = nativeRunner(backend, [dy, input], FLOAT);
    if (runner === null || input.shape.length !== 4 || dy.shape.length !== 4) return runOnCpu(AvgPoolGrad, args);
    const info = backend_util.computePool2DInfo(input.shape as [number, number, number, number], filterSize, strides, 1, pad);
    const g = geometryOf(info);
    const t = transposedGeometry(g, g.chans);
    const spreadDy = spread(runner, dy, t.hp, t.wp, g.sH, g.sW, t.top, t.left, [g.outH, g.outW]);
    try {
      return reduceWindows(backend, runner, spreadDy, t.g, ReduceOp.Mean, 'float32');
    } finally {
      disposeAll(backend, spreadDy);
    }
  },
};

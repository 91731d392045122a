// The gradient of tf.avgPool: one native kernel, each input pixel summing
// dy over the windows that hold it, over the full filter size as
// tfjs-backend-cpu does, padding or not.
import {AvgPoolGrad, AvgPoolGradAttrs, backend_util, KernelConfig, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {geometryOf, windowArray} from '../kernel_utils/conv_windows';
import {backendOf, FLOAT, nativeRunner} from '../kernel_utils/kernel_utils';
import {PoolOp} from '../kernel_utils/op_codes';

export const avgPoolGradConfig: KernelConfig = {
  kernelName: AvgPoolGrad,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {dy, input} = args.inputs as {dy: TensorInfo; input: TensorInfo};
    const {filterSize, strides, pad} = args.attrs as unknown as AvgPoolGradAttrs;
    const runner = nativeRunner(backend, [dy, input], FLOAT);
    if (runner === null || input.shape.length !== 4 || dy.shape.length !== 4) return runOnCpu(AvgPoolGrad, args);
    const g = geometryOf(backend_util.computePool2DInfo(input.shape as [number, number, number, number], filterSize, strides, 1, pad));
    if (!util.arraysEqual(dy.shape, [g.batch, g.outH, g.outW, g.chans])) return runOnCpu(AvgPoolGrad, args);
    const {info: dx, buf} = runner.output(input.shape, 'float32');
    runner.pool2dGrad(PoolOp.Avg, runner.input(dy), null, buf, windowArray(g));
    return dx;
  },
};

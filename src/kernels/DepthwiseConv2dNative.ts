// tf.depthwiseConv2d: one native kernel (wm/window2d.h), each output element
// summing its window in place (padding skipped, nothing copied first).
import {DepthwiseConv2dNative, DepthwiseConv2dNativeAttrs, KernelConfig, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {KernelRunner} from '../backend/runner';
import {convInfo, geometryOf, windowArray} from '../kernel_utils/conv_windows';
import {backendOf, FLOAT, KernelArgs, nativeRunner} from '../kernel_utils/kernel_utils';

/** Whether a depthwise kernel can run natively: float32, rank 4, NHWC (tfjs-backend-cpu reads every depthwise input as NHWC). */
export function depthwiseRunner(args: KernelArgs, inputs: (TensorInfo | undefined)[]): KernelRunner | null {
  const given = inputs.filter((t): t is TensorInfo => t !== undefined);
  const runner = nativeRunner(backendOf(args), given, FLOAT);
  const format = (args.attrs as {dataFormat?: string}).dataFormat;
  return runner !== null && given.slice(0, 2).every((t) => t.shape.length === 4) && format !== 'NCHW' ? runner : null;
}

/** depthwiseConv2d on the native path. */
export function depthwiseNative(runner: KernelRunner, x: TensorInfo, filter: TensorInfo, attrs: DepthwiseConv2dNativeAttrs): TensorInfo {
  const {strides, pad, dilations, dimRoundingMode} = attrs;
  const info = convInfo(x.shape, filter.shape, attrs, true);
  const g = geometryOf(info);
  const mult = filter.shape[3];
  const {info: y, buf} = runner.output([g.batch, g.outH, g.outW, g.chans * mult], 'float32');
  runner.native.depthwiseConv2d(runner.input(x), runner.input(filter), buf, windowArray(g), mult);
  return y;
}

export const depthwiseConv2dNativeConfig: KernelConfig = {
  kernelName: DepthwiseConv2dNative,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const {x, filter} = args.inputs as {x: TensorInfo; filter: TensorInfo};
    const runner = depthwiseRunner(args, [x, filter]);
    if (runner === null) return runOnCpu(DepthwiseConv2dNative, args);
    return depthwiseNative(runner, x, filter, args.attrs as unknown as DepthwiseConv2dNativeAttrs);
  },
};

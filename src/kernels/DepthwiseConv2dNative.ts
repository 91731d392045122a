// tf.depthwiseConv2d: a grouped convolution with one input channel per
// group (conv_windows.ts), the filter [fH, fW, C, mult] regrouped as
// [C, fH*fW, mult].
import {backend_util, DepthwiseConv2dNative, DepthwiseConv2dNativeAttrs, KernelConfig, TensorInfo} from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {runOnCpu} from '../backend/fallback';
import {KernelRunner} from '../backend/runner';
import {disposeAll, geometryOf, groupedConv, padForWindows} from './conv_windows';
import {backendOf, contiguousStrides, copyView, FLOAT, KernelArgs, nativeRunner} from './kernel_utils';

/** Whether a depthwise kernel can run natively: float32, rank 4, NHWC (tfjs-backend-cpu reads every depthwise input as NHWC). */
export function depthwiseRunner(args: KernelArgs, inputs: (TensorInfo | undefined)[]): KernelRunner | null {
  const given = inputs.filter((t): t is TensorInfo => t !== undefined);
  const runner = nativeRunner(backendOf(args), given, FLOAT);
  const format = (args.attrs as {dataFormat?: string}).dataFormat;
  return runner !== null && given.slice(0, 2).every((t) => t.shape.length === 4) && format !== 'NCHW' ? runner : null;
}

/** depthwiseConv2d on the native path. */
export function depthwiseNative(backend: WholeMemoryBackend, runner: KernelRunner, x: TensorInfo, filter: TensorInfo,
                                attrs: DepthwiseConv2dNativeAttrs): TensorInfo {
  const {strides, pad, dilations, dimRoundingMode} = attrs;
  const info = backend_util.computeConv2DInfo(x.shape as [number, number, number, number], filter.shape as [number, number, number, number],
                                              strides, dilations ?? 1, pad, dimRoundingMode, true);
  const [fH, fW, c, mult] = filter.shape;
  const s = contiguousStrides(filter.shape);
  const w = copyView(runner, filter, 0, [s[2], s[1], 1], [c, fH * fW, mult]);
  const p = padForWindows(backend, x, geometryOf(info), 0);
  try {
    return groupedConv(backend, runner, p.t, p.g, c, 1, w, mult);
  } finally {
    disposeAll(backend, w, ...(p.owned ? [p.t] : []));
  }
}

export const depthwiseConv2dNativeConfig: KernelConfig = {
  kernelName: DepthwiseConv2dNative,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const {x, filter} = args.inputs as {x: TensorInfo; filter: TensorInfo};
    const runner = depthwiseRunner(args, [x, filter]);
    if (runner === null) return runOnCpu(DepthwiseConv2dNative, args);
    return depthwiseNative(backendOf(args), runner, x, filter, args.attrs as unknown as DepthwiseConv2dNativeAttrs);
  },
};

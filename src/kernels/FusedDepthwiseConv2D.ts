// tf.fused.depthwiseConv2d: our depthwise convolution, then the bias and activation.
import {
  DepthwiseConv2dNativeAttrs,
  FusedDepthwiseConv2D,
  FusedDepthwiseConv2DAttrs,
  FusedDepthwiseConv2DInputs,
  KernelConfig,
  KernelFunc,
} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {depthwiseNative, depthwiseRunner} from './DepthwiseConv2dNative';
import {applyEpilogue} from '../kernel_utils/fused_epilogue';
import {backendOf, KernelArgs} from '../kernel_utils/kernel_utils';

export const fusedDepthwiseConv2DConfig: KernelConfig = {
  kernelName: FusedDepthwiseConv2D,
  backendName: 'wholememory',
  kernelFunc: ((args: KernelArgs) => {
    const backend = backendOf(args);
    const {x, filter, bias, preluActivationWeights} = args.inputs as FusedDepthwiseConv2DInputs;
    const attrs = args.attrs as unknown as FusedDepthwiseConv2DAttrs;
    const runner = depthwiseRunner(args, [x, filter, bias, preluActivationWeights]);
    if (runner === null) return runOnCpu(FusedDepthwiseConv2D, args);
    const out = depthwiseNative(runner, x, filter, attrs as unknown as DepthwiseConv2dNativeAttrs);
    return applyEpilogue(backend, out, {bias, activation: attrs.activation, preluActivationWeights, leakyreluAlpha: attrs.leakyreluAlpha});
  }) as unknown as KernelFunc,
};

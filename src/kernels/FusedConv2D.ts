// tf.fused.conv2d (tfjs-layers' Conv2D when predicting, and when training
// with a linear activation): our conv2d, then the bias and activation.
import {Conv2DAttrs, FusedConv2D, FusedConv2DAttrs, FusedConv2DInputs, KernelConfig, KernelFunc, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {conv2dNative} from './Conv2D';
import {applyEpilogue} from '../kernel_utils/fused_epilogue';
import {backendOf, FLOAT, KernelArgs, nativeRunner} from '../kernel_utils/kernel_utils';

export const fusedConv2DConfig: KernelConfig = {
  kernelName: FusedConv2D,
  backendName: 'wholememory',
  kernelFunc: ((args: KernelArgs) => {
    const backend = backendOf(args);
    const {x, filter, bias, preluActivationWeights} = args.inputs as FusedConv2DInputs;
    const attrs = args.attrs as unknown as FusedConv2DAttrs;
    const all = [x, filter, bias, preluActivationWeights].filter((t): t is TensorInfo => t !== undefined);
    const runner = nativeRunner(backend, all, FLOAT);
    if (runner === null || x.shape.length !== 4 || filter.shape.length !== 4) return runOnCpu(FusedConv2D, args);
    const out = conv2dNative(backend, runner, x, filter, attrs as unknown as Conv2DAttrs);
    return applyEpilogue(
      backend,
      out,
      {bias, activation: attrs.activation, preluActivationWeights, leakyreluAlpha: attrs.leakyreluAlpha},
      attrs.dataFormat === 'NCHW',
    );
  }) as unknown as KernelFunc,
};

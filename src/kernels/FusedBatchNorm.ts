// tf.batchNorm (tfjs-layers' BatchNormalization): offset + (x - mean) *
// scale / sqrt(variance + epsilon) as our own elementwise kernels. tfjs-backend-cpu
// reads each parameter cyclically (element i uses entry i mod its size); that
// is broadcasting whenever a parameter's shape, leading ones dropped, is a
// trailing part of x's shape (the [C] of every layer) — other shapes go to it.
import {FusedBatchNorm, FusedBatchNormAttrs, KernelConfig, KernelFunc, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {addConfig} from './Add';
import {backendOf, callKernel, KernelArgs} from '../kernel_utils/kernel_utils';
import {multiplyConfig} from './Multiply';
import {rsqrtConfig} from './Rsqrt';
import {subConfig} from './Sub';

function cyclesAsBroadcast(p: TensorInfo, x: TensorInfo): boolean {
  if (util.sizeFromShape(p.shape) === 1) return true;
  const trimmed = p.shape.slice(p.shape.findIndex((d) => d !== 1));
  return trimmed.length <= x.shape.length && util.arraysEqual(trimmed, x.shape.slice(x.shape.length - trimmed.length));
}

export const fusedBatchNormConfig: KernelConfig = {
  kernelName: FusedBatchNorm,
  backendName: 'wholememory',
  kernelFunc: ((args: KernelArgs) => {
    const backend = backendOf(args);
    const {x, mean, variance, offset, scale} = args.inputs as {
      x: TensorInfo;
      mean: TensorInfo;
      variance: TensorInfo;
      offset?: TensorInfo;
      scale?: TensorInfo;
    };
    const {varianceEpsilon} = args.attrs as unknown as FusedBatchNormAttrs;
    const params = [mean, variance, offset, scale].filter((t): t is TensorInfo => t !== undefined);
    if ([x, ...params].some((t) => t.dtype !== 'float32') || !params.every((p) => cyclesAsBroadcast(p, x)))
      return runOnCpu(FusedBatchNorm, args);
    const temps: TensorInfo[] = [];
    const keep = (t: TensorInfo) => (temps.push(t), t);
    try {
      const eps = keep(backend.makeTensorInfo([], 'float32', Float32Array.of(varianceEpsilon)));
      const inv = keep(
        callKernel(rsqrtConfig, {
          inputs: {x: keep(callKernel(addConfig, {inputs: {a: variance, b: eps}, backend, attrs: {}}))},
          backend,
          attrs: {},
        }),
      );
      const factor = scale ? keep(callKernel(multiplyConfig, {inputs: {a: inv, b: scale}, backend, attrs: {}})) : inv;
      const scaled = callKernel(multiplyConfig, {
        inputs: {a: keep(callKernel(subConfig, {inputs: {a: x, b: mean}, backend, attrs: {}})), b: factor},
        backend,
        attrs: {},
      });
      if (!offset) return scaled;
      keep(scaled);
      return callKernel(addConfig, {inputs: {a: scaled, b: offset}, backend, attrs: {}});
    } finally {
      temps.forEach((t) => backend.disposeIntermediateTensorInfo(t));
    }
  }) as unknown as KernelFunc,
};

// tf.fused.matMul (tfjs-layers' Dense layers: always when predicting, and
// when training with a linear activation): the product, then the bias and
// the activation as our own kernels (fused_epilogue.ts), so nothing crosses
// to tfjs-backend-cpu and back.
import {_FusedMatMul, _FusedMatMulAttrs, _FusedMatMulInputs, KernelConfig, KernelFunc} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {batchMatMulConfig} from './BatchMatMul';
import {applyEpilogue} from '../kernel_utils/fused_epilogue';
import {backendOf, callKernel, KernelArgs} from '../kernel_utils/kernel_utils';

export const fusedMatMulConfig: KernelConfig = {
  kernelName: _FusedMatMul,
  backendName: 'wholememory',
  kernelFunc: ((args: KernelArgs) => {
    const backend = backendOf(args);
    const {a, b, bias, preluActivationWeights} = args.inputs as _FusedMatMulInputs;
    const {transposeA, transposeB, activation, leakyreluAlpha} = args.attrs as unknown as _FusedMatMulAttrs;
    if ([a, b, bias, preluActivationWeights].some((t) => t !== undefined && t.dtype !== 'float32')) return runOnCpu(_FusedMatMul, args);
    const out = callKernel(batchMatMulConfig, {inputs: {a, b}, backend, attrs: {transposeA, transposeB}});
    return applyEpilogue(backend, out, {bias, activation, preluActivationWeights, leakyreluAlpha});
  }) as unknown as KernelFunc,
};

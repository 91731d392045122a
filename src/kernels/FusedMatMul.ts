// tf.fused.matMul (tfjs-layers' Dense layers: always when predicting, and
// when training with a linear activation): the product, the bias and the
// activation as our own kernels, so nothing crosses to tfjs-backend-cpu and
// back. On the GPU a bias over the last axis with a linear or ReLU
// activation is one more pass over the product, in place.
import {_FusedMatMul, _FusedMatMulAttrs, _FusedMatMulInputs, KernelConfig, KernelFunc, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {addConfig} from './Add';
import {batchMatMulConfig} from './BatchMatMul';
import {eluConfig} from './Elu';
import {backendOf, callKernel, KernelArgs} from './kernel_utils';
import {leakyReluConfig} from './LeakyRelu';
import {preluConfig} from './Prelu';
import {reluConfig} from './Relu';
import {relu6Config} from './Relu6';
import {sigmoidConfig} from './Sigmoid';

export const fusedMatMulConfig: KernelConfig = {
  kernelName: _FusedMatMul,
  backendName: 'wholememory',
  kernelFunc: ((args: KernelArgs) => {
    const backend = backendOf(args);
    const {a, b, bias, preluActivationWeights} = args.inputs as _FusedMatMulInputs;
    const {transposeA, transposeB, activation, leakyreluAlpha} = args.attrs as unknown as _FusedMatMulAttrs;
    if ([a, b, bias, preluActivationWeights].some((t) => t !== undefined && t.dtype !== 'float32')) return runOnCpu(_FusedMatMul, args);
    let out = callKernel(batchMatMulConfig, {inputs: {a, b}, backend, attrs: {transposeA, transposeB}});
    const n = out.shape[out.shape.length - 1];
    const size = util.sizeFromShape(out.shape);
    if (bias && backend.gpu && (activation === 'linear' || activation === 'relu') && bias.shape.length === 1 && bias.shape[0] === n &&
        (size === 0 || backend.ownsDeviceData(out))) {
      if (size > 0) {
        backend.native.biasActivation(backend.devicePtr(out), backend.devicePtr(bias), size / n, n, activation === 'relu');
        backend.deviceWritten(out);
      }
      return out;
    }
    const then = (next: TensorInfo) => {
      backend.disposeIntermediateTensorInfo(out);
      out = next;
    };
    if (bias) then(callKernel(addConfig, {inputs: {a: out, b: bias}, backend, attrs: {}}));
    switch (activation) {
      case 'linear': break;
      case 'relu': then(callKernel(reluConfig, {inputs: {x: out}, backend, attrs: {}})); break;
      case 'relu6': then(callKernel(relu6Config, {inputs: {x: out}, backend, attrs: {}})); break;
      case 'elu': then(callKernel(eluConfig, {inputs: {x: out}, backend, attrs: {}})); break;
      case 'sigmoid': then(callKernel(sigmoidConfig, {inputs: {x: out}, backend, attrs: {}})); break;
      case 'leakyrelu': then(callKernel(leakyReluConfig, {inputs: {x: out}, backend, attrs: {alpha: leakyreluAlpha ?? 0.2}})); break;
      case 'prelu': then(callKernel(preluConfig, {inputs: {x: out, alpha: preluActivationWeights!}, backend, attrs: {}})); break;
      default: throw new Error(`fused matMul: activation must be linear, relu, relu6, elu, sigmoid, leakyrelu or prelu, got '${activation}'`);
    }
    return out;
  }) as unknown as KernelFunc,
};

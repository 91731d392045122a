// The bias and activation that tfjs' fused kernels (_FusedMatMul,
// FusedConv2D, FusedDepthwiseConv2D) apply after their product, as our own
// kernels. On the GPU a bias over the last axis with a linear or ReLU
// activation is one more pass over the product, in place.
import {TensorInfo, util} from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {addConfig} from '../kernels/Add';
import {eluConfig} from '../kernels/Elu';
import {callKernel, reshapeView} from './kernel_utils';
import {leakyReluConfig} from '../kernels/LeakyRelu';
import {preluConfig} from '../kernels/Prelu';
import {reluConfig} from '../kernels/Relu';
import {relu6Config} from '../kernels/Relu6';
import {sigmoidConfig} from '../kernels/Sigmoid';

export interface Epilogue {
  bias?: TensorInfo;
  activation?: string;
  preluActivationWeights?: TensorInfo;
  leakyreluAlpha?: number;
}

// NCHW results take a per-channel vector on axis 1, as tfjs-backend-cpu reads it.
function perChannel(backend: WholeMemoryBackend, v: TensorInfo, channelsFirst: boolean): TensorInfo {
  return channelsFirst && v.shape.length === 1 && v.shape[0] !== 1 ? reshapeView(backend, v, [v.shape[0], 1, 1]) : v;
}

/** Applies bias and activation to `out` (which it takes over: disposed when replaced). */
export function applyEpilogue(backend: WholeMemoryBackend, out: TensorInfo, e: Epilogue, channelsFirst = false): TensorInfo {
  const {bias, activation = 'linear', leakyreluAlpha} = e;
  const n = out.shape[out.shape.length - 1];
  const size = util.sizeFromShape(out.shape);
  if (
    bias &&
    backend.gpu &&
    !channelsFirst &&
    (activation === 'linear' || activation === 'relu') &&
    bias.shape.length === 1 &&
    bias.shape[0] === n &&
    (size === 0 || backend.ownsDeviceData(out))
  ) {
    if (size > 0) {
      backend.native.biasActivation(backend.devicePtr(out), backend.devicePtr(bias), size / n, n, activation === 'relu');
      backend.deviceWritten(out);
    }
    return out;
  }
  const temps: TensorInfo[] = [];
  const view = (v: TensorInfo) => {
    const t = perChannel(backend, v, channelsFirst);
    if (t !== v) temps.push(t);
    return t;
  };
  const then = (next: TensorInfo) => {
    backend.disposeIntermediateTensorInfo(out);
    out = next;
  };
  try {
    if (bias) then(callKernel(addConfig, {inputs: {a: out, b: view(bias)}, backend, attrs: {}}));
    const x = out;
    switch (activation) {
      case 'linear':
        break;
      case 'relu':
        then(callKernel(reluConfig, {inputs: {x}, backend, attrs: {}}));
        break;
      case 'relu6':
        then(callKernel(relu6Config, {inputs: {x}, backend, attrs: {}}));
        break;
      case 'elu':
        then(callKernel(eluConfig, {inputs: {x}, backend, attrs: {}}));
        break;
      case 'sigmoid':
        then(callKernel(sigmoidConfig, {inputs: {x}, backend, attrs: {}}));
        break;
      case 'leakyrelu':
        then(callKernel(leakyReluConfig, {inputs: {x}, backend, attrs: {alpha: leakyreluAlpha ?? 0.2}}));
        break;
      case 'prelu':
        then(callKernel(preluConfig, {inputs: {x, alpha: view(e.preluActivationWeights!)}, backend, attrs: {}}));
        break;
      default:
        throw new Error(`fused kernel: activation must be linear, relu, relu6, elu, sigmoid, leakyrelu or prelu, got '${activation}'`);
    }
  } finally {
    temps.forEach((t) => backend.disposeIntermediateTensorInfo(t));
  }
  return out;
}

// The gradient of the fused GraphSAGE layer (kernels/SageFixedLayer.ts), one function per input: tfjs calls
// only those of inputs that lead back to what is differentiated, so a first layer over a fixed feature table
// never pays for x's gradient (zeroing a gradient of every input row and scattering the neighbour mean's
// gradient into it). What every weight's gradient needs, the ReLU mask applied to dy, is made once here.
import * as tf from '@tensorflow/tfjs-core';
import {GradConfig, NamedAttrMap, registerGradient} from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {SageFixedLayerAttrs, WM_SAGE_FIXED_LAYER} from '../kernels/SageFixedLayer';
import {layerNative} from '../native/domains';

const sageFixedLayerGrad: GradConfig = {
  kernelName: WM_SAGE_FIXED_LAYER,
  inputsToSave: ['x', 'wSelf', 'wNeigh', 'neighbors'],
  outputsToSave: [true],
  gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[], attrs: NamedAttrMap) => {
    const b = tf.backend() as WholeMemoryBackend;
    const [x, ws, wn, neighbors, y] = saved;
    const {numDst, fanout, relu} = attrs as unknown as SageFixedLayerAttrs;
    const [inputs, inDim] = x.shape as [number, number],
      outDim = ws.shape[1] as number;
    const ln = layerNative();
    // dz = dy masked by the ReLU, and the bias' gradient, in one pass; freed with the backward pass' other tensors.
    const [dz, dBias] = b.deviceOutputs([[numDst, outDim], [outDim]], ([dzp, dbp]) =>
      ln.biasActivationGrad(b.devicePtr(dy as tf.Tensor), b.devicePtr(y), numDst, outDim, relu, dzp, dbp),
    );
    const nb = () => b.devicePtr(neighbors);
    const xp = () => b.devicePtr(x);
    return {
      bias: () => dBias,
      wSelf: () =>
        b.deviceOutputs([[inDim, outDim]], ([out]) =>
          ln.batchMatMul(xp(), b.devicePtr(dz), out, 1, inDim, outDim, numDst, true, false, 0, 0, 0),
        )[0],
      wNeigh: () => {
        // The mean again (one cheap kernel) rather than holding it from the forward.
        const mean = b.allocDevice(numDst * inDim * 4);
        try {
          return b.deviceOutputs([[inDim, outDim]], ([out]) => {
            ln.neighborMean(nb(), numDst, fanout, xp(), inDim, mean);
            ln.batchMatMul(mean, b.devicePtr(dz), out, 1, inDim, outDim, numDst, true, false, 0, 0, 0);
          })[0];
        } finally {
          b.freeDevice(mean);
        }
      },
      x: () => {
        const dMean = b.allocDevice(numDst * inDim * 4);
        try {
          return b.deviceOutputs([[inputs, inDim]], ([dx]) => {
            const dzp = b.devicePtr(dz);
            ln.batchMatMul(dzp, b.devicePtr(wn), dMean, 1, numDst, inDim, outDim, false, true, 0, 0, 0);
            ln.neighborMeanGrad(nb(), numDst, fanout, dMean, inDim, dx, inputs); // zeroes dx first
            // The self part straight into the first rows.
            ln.batchMatMul(dzp, b.devicePtr(ws), dx, 1, numDst, inDim, outDim, false, true, 0, 0, 1);
          })[0];
        } finally {
          b.freeDevice(dMean);
        }
      },
    };
  },
};

export function registerSageFixedLayerGradient(): void {
  registerGradient(sageFixedLayerGrad);
}

// The gradient of the fused GraphSAGE layer (kernels/SageFixedLayer.ts), one function per input: tfjs calls
// only those of inputs that lead back to what is differentiated, so a first layer over a fixed feature table
// never pays for x's gradient (zeroing a gradient of every input row and scattering the neighbour mean's
// gradient into it). What every weight's gradient needs, the ReLU mask applied to dy, is made once here.
// sageGradients is what both fused layers' gradients are (this one's and the sampled block's), given their neighbours.
import * as tf from '@tensorflow/tfjs-core';
import {GradConfig, NamedAttrMap, registerGradient} from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {fanoutNeighbours, SageFixedLayerAttrs, SageNeighbours, WM_SAGE_FIXED_LAYER} from '../kernels/SageFixedLayer';
import {layerNative} from '../native/domains';

const sageFixedLayerGrad: GradConfig = {
  kernelName: WM_SAGE_FIXED_LAYER,
  inputsToSave: ['x', 'wSelf', 'wNeigh', 'neighbors'],
  outputsToSave: [true],
  gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[], attrs: NamedAttrMap) => {
    const b = tf.backend() as WholeMemoryBackend;
    const [x, ws, wn, neighbors, y] = saved;
    const {numDst, fanout, relu} = attrs as unknown as SageFixedLayerAttrs;
    const [inputs, inDim] = x.shape as [number, number];
    return sageGradients(b, dy as tf.Tensor, {x, ws, wn, y}, numDst, relu, fanoutNeighbours(b, neighbors, numDst, fanout, inDim, inputs));
  },
};

/**
 * A fused GraphSAGE layer's gradients, one function per input (tfjs calls those it needs), its neighbours read as
 * `neighbours` says; x's self part is added into dx's first rows by the GEMM that makes it. y is the layer's output
 * (its ReLU mask).
 */
export function sageGradients(
  b: WholeMemoryBackend,
  dy: tf.Tensor,
  t: {x: tf.Tensor; ws: tf.Tensor; wn: tf.Tensor; y: tf.Tensor},
  numDst: number,
  relu: boolean,
  neighbours: SageNeighbours,
): {[input: string]: () => tf.Tensor} {
  const {x, ws, wn, y} = t;
  const [inputs, inDim] = x.shape as [number, number],
    outDim = ws.shape[1] as number;
  const ln = layerNative();
  // Freed with the backward pass' other tensors.
  const [dz, dBias] = maskedGradients(b, dy, y, numDst, outDim, relu);
  const xp = () => b.devicePtr(x);
  return {
    bias: () => dBias,
    wSelf: () => weightGradient(b, xp(), dz, inDim, outDim, numDst),
    wNeigh: () => {
      // The mean again (one cheap pass over the layer's few rows) rather than holding it from the forward.
      const mean = b.allocDevice(numDst * inDim * 4);
      try {
        neighbours.mean(xp(), mean);
        return weightGradient(b, mean, dz, inDim, outDim, numDst);
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
          neighbours.meanGrad(dMean, dx); // every row of dx written
          // The self part straight into the first rows.
          ln.batchMatMul(dzp, b.devicePtr(ws), dx, 1, numDst, inDim, outDim, false, true, 0, 0, 1);
        })[0];
      } finally {
        b.freeDevice(dMean);
      }
    },
  };
}

/** dz = dy masked by the ReLU (where y, the layer's output, is not positive) and the bias' gradient, in one pass. */
export function maskedGradients(
  b: WholeMemoryBackend,
  dy: tf.Tensor,
  y: tf.Tensor,
  rows: number,
  outDim: number,
  relu: boolean,
): tf.Tensor[] {
  return b.deviceOutputs([[rows, outDim], [outDim]], ([dzp, dbp]) =>
    layerNative().biasActivationGrad(b.devicePtr(dy), b.devicePtr(y), rows, outDim, relu, dzp, dbp),
  );
}

/** A weight's gradient x^T dz, x the device address of the [rows, inDim] rows it multiplied. */
export function weightGradient(b: WholeMemoryBackend, x: number, dz: tf.Tensor, inDim: number, outDim: number, rows: number): tf.Tensor {
  return b.deviceOutputs([[inDim, outDim]], ([out]) =>
    layerNative().batchMatMul(x, b.devicePtr(dz), out, 1, inDim, outDim, rows, true, false, 0, 0, 0),
  )[0];
}

export function registerSageFixedLayerGradient(): void {
  registerGradient(sageFixedLayerGrad);
}

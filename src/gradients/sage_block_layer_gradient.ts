// The gradient of the fused GraphSAGE layer over a sampled CSR block (kernels/SageBlockLayer.ts), one function per
// input, as the fixed fan-out layer's (sage_fixed_layer_gradient.ts): x's gradient is the mean's gradient carried back
// through the block's entries (csrSpmmScatter: every [inputs, inDim] row written, in the same order every run), then
// the self part added into its first rows by the GEMM that makes it.
import * as tf from '@tensorflow/tfjs-core';
import {GradConfig, NamedAttrMap, registerGradient} from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {blockMean, SageBlockLayerAttrs, WM_SAGE_BLOCK_LAYER} from '../kernels/SageBlockLayer';
import {graphNative, layerNative} from '../native/domains';
import {maskedGradients, weightGradient} from './sage_fixed_layer_gradient';

const sageBlockLayerGrad: GradConfig = {
  kernelName: WM_SAGE_BLOCK_LAYER,
  inputsToSave: ['x', 'wSelf', 'wNeigh', 'rowPtr', 'colIdx', 'rowScale'],
  outputsToSave: [true],
  gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[], attrs: NamedAttrMap) => {
    const b = tf.backend() as WholeMemoryBackend;
    const [x, ws, wn, rowPtr, colIdx, rowScale, y] = saved;
    const {relu, entries} = attrs as unknown as SageBlockLayerAttrs;
    const [inputs, inDim] = x.shape as [number, number],
      outDim = ws.shape[1] as number,
      numDst = rowScale.shape[0] as number;
    const ln = layerNative();
    // Freed with the backward pass' other tensors.
    const [dz, dBias] = maskedGradients(b, dy as tf.Tensor, y, numDst, outDim, relu);
    const xp = () => b.devicePtr(x);
    const block = () => [b.devicePtr(rowPtr), b.devicePtr(colIdx), b.devicePtr(rowScale)] as const;
    return {
      bias: () => dBias,
      wSelf: () => weightGradient(b, xp(), dz, inDim, outDim, numDst),
      wNeigh: () => {
        // The mean again (one cheap product over the layer's few rows) rather than holding it from the forward.
        const mean = b.allocDevice(numDst * inDim * 4);
        try {
          blockMean(...block(), numDst, xp(), inDim, mean);
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
            const [rp, ci, rs] = block();
            graphNative().csrSpmmScatter(rp, ci, 0, rs, numDst, entries, dMean, inDim, dx, inputs); // every row of dx written
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

export function registerSageBlockLayerGradient(): void {
  registerGradient(sageBlockLayerGrad);
}

// The gradient of the fused GraphSAGE layer over a sampled CSR block (kernels/SageBlockLayer.ts), one function per
// input, as the fixed fan-out layer's (sage_fixed_layer_gradient.ts): x's gradient is the mean's gradient carried back
// through the block's entries (csrSpmmScatter: every [inputs, inDim] row written, in the same order every run), then
// the self part added into its first rows by the GEMM that makes it.
import * as tf from '@tensorflow/tfjs-core';
import {GradConfig, NamedAttrMap, registerGradient} from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {blockNeighbours, SageBlockLayerAttrs, WM_SAGE_BLOCK_LAYER} from '../kernels/SageBlockLayer';
import {sageGradients} from './sage_fixed_layer_gradient';

const sageBlockLayerGrad: GradConfig = {
  kernelName: WM_SAGE_BLOCK_LAYER,
  inputsToSave: ['x', 'wSelf', 'wNeigh', 'rowPtr', 'colIdx', 'rowScale'],
  outputsToSave: [true],
  gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[], attrs: NamedAttrMap) => {
    const b = tf.backend() as WholeMemoryBackend;
    const [x, ws, wn, rowPtr, colIdx, rowScale, y] = saved;
    const {relu, entries} = attrs as unknown as SageBlockLayerAttrs;
    const [inputs, inDim] = x.shape as [number, number];
    return sageGradients(
      b,
      dy as tf.Tensor,
      {x, ws, wn, y},
      rowScale.shape[0],
      relu,
      blockNeighbours(b, {rowPtr, colIdx, rowScale}, entries, inDim, inputs),
    );
  },
};

export function registerSageBlockLayerGradient(): void {
  registerGradient(sageBlockLayerGrad);
}

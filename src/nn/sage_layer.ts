// One GraphSAGE layer (mean aggregator) over a fixed fan-out layer as a
// single kernel on the GPU (kernels/SageFixedLayer.ts; its gradient an input
// at a time, gradients/sage_fixed_layer_gradient.ts). Composed from tfjs ops
// the layer is about seven kernels forward and twelve backward, each paying
// tfjs' dispatch.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {SageFixedLayerAttrs, WM_SAGE_FIXED_LAYER} from '../kernels/SageFixedLayer';
import {aggregate} from '../graph/aggregate';
import {meanOfNeighbors} from '../graph/fixed_subgraph';
import type {BlockLayer, FixedFanoutLayer} from '../graph/sampled_subgraph';

/**
 * act(h[:numDst] wSelf + mean of each row's sampled neighbours in h · wNeigh + bias),
 * act ReLU when `relu`, else the identity. Differentiable in h and the weights. `layer` is a layer of
 * sampleFixedSubgraph (a fixed fan-out: one fused op each way on the GPU) or of sampleSubgraph (a
 * CsrBlock: the neighbour mean by the block's product, the rest from tfjs ops).
 */
export function sageLayer(
  h: tf.Tensor2D,
  layer: FixedFanoutLayer | BlockLayer,
  wSelf: tf.Tensor2D,
  wNeigh: tf.Tensor2D,
  bias: tf.Tensor1D,
  relu: boolean,
): tf.Tensor2D {
  if ('block' in layer) return blockLayer(h, layer, wSelf, wNeigh, bias, relu);
  if (!('numDst' in layer) || !('neighbors' in layer))
    throw new TypeError(
      'sageLayer: layer must be a layer of sampleFixedSubgraph {numDst, fanout, neighbors} or of sampleSubgraph {dst, src, block}',
    );
  const [inputs, inDim] = h.shape;
  const outDim = wSelf.shape[1];
  checkWeights(h, wSelf, wNeigh, bias);
  if (layer.numDst > inputs) throw new RangeError(`sageLayer: the layer has ${layer.numDst} outputs but h only ${inputs} rows`);
  const b = tf.backend();
  if (!(b instanceof WholeMemoryBackend && b.gpu) || layer.numDst * outDim * inDim === 0)
    return composite(h, layer.numDst, () => meanOfNeighbors(h, layer), wSelf, wNeigh, bias, relu);
  const {numDst, fanout, neighbors} = layer;
  const attrs: SageFixedLayerAttrs = {numDst, fanout, relu};
  return tf
    .engine()
    .runKernel(WM_SAGE_FIXED_LAYER, {x: h, wSelf, wNeigh, bias, neighbors}, attrs as unknown as tf.NamedAttrMap) as tf.Tensor2D;
}

function checkWeights(h: tf.Tensor2D, wSelf: tf.Tensor2D, wNeigh: tf.Tensor2D, bias: tf.Tensor1D): void {
  const inDim = h.shape[1],
    outDim = wSelf.shape[1];
  if (wSelf.shape[0] !== inDim || wNeigh.shape[0] !== inDim || wNeigh.shape[1] !== outDim || bias.shape[0] !== outDim) {
    throw new RangeError(
      `sageLayer: h [${h.shape}] needs wSelf and wNeigh [${inDim}, out] and bias [out]; got [${wSelf.shape}], [${wNeigh.shape}], [${bias.shape}]`,
    );
  }
}

// A layer of edges: its outputs are the first block.numRows of its inputs, its block the neighbour lists.
function blockLayer(
  h: tf.Tensor2D,
  layer: BlockLayer,
  wSelf: tf.Tensor2D,
  wNeigh: tf.Tensor2D,
  bias: tf.Tensor1D,
  relu: boolean,
): tf.Tensor2D {
  checkWeights(h, wSelf, wNeigh, bias);
  if (h.shape[0] !== layer.block.numCols)
    throw new RangeError(`sageLayer: the layer reads ${layer.block.numCols} input rows (its src), h has ${h.shape[0]}`);
  return composite(h, layer.block.numRows, () => aggregate(h, layer.block, 'mean'), wSelf, wNeigh, bias, relu);
}

// The layer from tfjs ops over its first numDst rows and their neighbour mean (a CsrBlock's, or a fixed
// fan-out's elsewhere than the GPU and for empty layers).
function composite(
  h: tf.Tensor2D,
  numDst: number,
  mean: () => tf.Tensor2D,
  wSelf: tf.Tensor2D,
  wNeigh: tf.Tensor2D,
  bias: tf.Tensor1D,
  relu: boolean,
): tf.Tensor2D {
  return tf.tidy(() => {
    const self = tf.slice(h, [0, 0], [numDst, h.shape[1]]);
    const z = tf.add(tf.add(tf.matMul(self, wSelf), tf.matMul(mean(), wNeigh)), bias) as tf.Tensor2D;
    return relu ? tf.relu(z) : z;
  });
}

// One GraphSAGE layer (mean aggregator) over a fixed fan-out layer as a
// single op each way on the GPU. Composed from tfjs ops the layer is about
// seven kernels forward and twelve backward, each paying tfjs' dispatch;
// here: the neighbour mean, two GEMMs into one output (the second
// accumulates), and the bias + ReLU epilogue; backward the ReLU mask with
// the bias gradient, three GEMMs and the neighbour scatter, the self part
// accumulated straight into the input gradient's first rows.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {aggregate} from '../graph/aggregate';
import {FixedFanoutLayer, meanOfNeighbors} from '../graph/fixed_subgraph';
import type {SubgraphLayer} from '../graph/subgraph';
import {layerNative} from '../native/domains';

/**
 * act(h[:numDst] wSelf + mean of each row's sampled neighbours in h · wNeigh + bias),
 * act ReLU when `relu`, else the identity. Differentiable in h and the weights. `layer` is a layer of
 * sampleFixedSubgraph (a fixed fan-out: one fused op each way on the GPU) or of sampleSubgraph (a
 * CsrBlock: the neighbour mean by the block's product, the rest from tfjs ops).
 */
export function sageLayer(
  h: tf.Tensor2D,
  layer: FixedFanoutLayer | SubgraphLayer,
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
  const f = tf.customGrad(((x: tf.Tensor, ws: tf.Tensor, wn: tf.Tensor, bs: tf.Tensor, save: tf.GradSaveFunc) => {
    const mean = b.allocDevice(numDst * inDim * 4);
    let y: tf.Tensor;
    try {
      [y] = b.deviceOutputs([[numDst, outDim]], ([out]) => {
        layerNative().neighborMean(b.devicePtr(neighbors), numDst, fanout, b.devicePtr(x), inDim, mean);
        // Row-major [numDst, inDim] x [inDim, outDim]; h's first numDst rows are the layer's own vertices.
        layerNative().batchMatMul(b.devicePtr(x), b.devicePtr(ws), out, 1, numDst, outDim, inDim, false, false, 0, 0, 0);
        layerNative().batchMatMul(mean, b.devicePtr(wn), out, 1, numDst, outDim, inDim, false, false, 0, 0, 1);
        layerNative().biasActivation(out, b.devicePtr(bs), numDst, outDim, relu);
      });
    } finally {
      b.freeDevice(mean); // stream-ordered: reused only after the GEMM that reads it
    }
    save([x, ws, wn, y]);
    return {value: y, gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => backward(b, layer, saved, dy, inputs, inDim, outDim, relu)};
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return f(h, wSelf, wNeigh, bias) as tf.Tensor2D;
}

function backward(
  b: WholeMemoryBackend,
  layer: FixedFanoutLayer,
  saved: tf.Tensor[],
  dy: tf.Tensor,
  inputs: number,
  inDim: number,
  outDim: number,
  relu: boolean,
): tf.Tensor[] {
  const [x, ws, wn, y] = saved;
  const {numDst, fanout, neighbors} = layer;
  const dz = b.allocDevice(numDst * outDim * 4),
    mean = b.allocDevice(numDst * inDim * 4),
    dMean = b.allocDevice(numDst * inDim * 4);
  try {
    return b.deviceOutputs([[inputs, inDim], [inDim, outDim], [inDim, outDim], [outDim]], ([dh, dWs, dWn, dBias]) => {
      const xp = b.devicePtr(x),
        nb = b.devicePtr(neighbors);
      layerNative().biasActivationGrad(b.devicePtr(dy), b.devicePtr(y), numDst, outDim, relu, dz, dBias);
      // The mean again (one cheap kernel) rather than holding it from the forward.
      layerNative().neighborMean(nb, numDst, fanout, xp, inDim, mean);
      layerNative().batchMatMul(xp, dz, dWs, 1, inDim, outDim, numDst, true, false, 0, 0, 0);
      layerNative().batchMatMul(mean, dz, dWn, 1, inDim, outDim, numDst, true, false, 0, 0, 0);
      layerNative().batchMatMul(dz, b.devicePtr(wn), dMean, 1, numDst, inDim, outDim, false, true, 0, 0, 0);
      layerNative().neighborMeanGrad(nb, numDst, fanout, dMean, inDim, dh, inputs); // zeroes dh first
      layerNative().batchMatMul(dz, b.devicePtr(ws), dh, 1, numDst, inDim, outDim, false, true, 0, 0, 1);
    });
  } finally {
    for (const p of [dz, mean, dMean]) b.freeDevice(p);
  }
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

// A sampleSubgraph layer: its outputs are the first dst.length of its inputs, its block the neighbour lists.
function blockLayer(
  h: tf.Tensor2D,
  layer: SubgraphLayer,
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

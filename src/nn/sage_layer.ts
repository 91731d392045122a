// One GraphSAGE layer (mean aggregator) over a fixed fan-out layer, or a CSR block a GPU sampler made, as a
// single kernel on the GPU (kernels/SageFixedLayer.ts, SageBlockLayer.ts; their gradients an input at a time,
// gradients/sage_fixed_layer_gradient.ts, sage_block_layer_gradient.ts). Composed from tfjs ops the layer is about
// seven kernels forward and twelve backward, each paying tfjs' dispatch.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {SageBlockLayerAttrs, WM_SAGE_BLOCK_LAYER} from '../kernels/SageBlockLayer';
import {sageOutputs, SageFixedLayerAttrs, WM_SAGE_FIXED_LAYER} from '../kernels/SageFixedLayer';
import {maskedGradients, weightGradient} from '../gradients/sage_fixed_layer_gradient';
import {aggregate, CsrBlock} from '../graph/aggregate';
import {meanOfNeighbors} from '../graph/fixed_subgraph';
import type {BlockLayer, FixedFanoutLayer, InputVertices} from '../graph/sampled_subgraph';
import type {Embedding} from './embedding';
import type {NeighborLists} from './table/table_storage';

/**
 * act(h[:numDst] wSelf + mean of each row's sampled neighbours in h · wNeigh + bias),
 * act ReLU when `relu`, else the identity. Differentiable in h and the weights. `layer` is a layer of
 * sampleFixedSubgraph (a fixed fan-out: one fused op each way on the GPU) or of sampleSubgraph (a
 * CsrBlock: on the GPU one fused op each way for a block a GPU sampler made, else the neighbour mean by the
 * block's product and the rest from tfjs ops).
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
  checkWeights(`sageLayer: h [${h.shape}]`, h.shape[1], wSelf, wNeigh, bias);
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

/**
 * sageLayer's first layer over a feature table read in place: act(table[ids[:numDst]] wSelf + mean of each row's
 * sampled neighbours' table rows · wNeigh + bias), the layer's input rows never gathered into a matrix (one read
 * of the table per sampled neighbour, in its storage type). `layer` a fixed fan-out or a CSR block without entry
 * weights (a sampler without replacement: its rows' neighbour counts vary). On the GPU, for tables whose rows are
 * there and `ids` a sampler's; on the CPU, for float32 tables of this process (Embedding.neighborRows); undefined
 * otherwise (gather the rows and call sageLayer). Differentiable in the weights; the table is read-only here. Equal to
 * sageLayer over table.read(ids).
 */
export function sageLayerOverTable(
  table: Embedding,
  ids: tf.Tensor1D,
  layer: FixedFanoutLayer | BlockLayer,
  wSelf: tf.Tensor2D,
  wNeigh: tf.Tensor2D,
  bias: tf.Tensor1D,
  relu: boolean,
): tf.Tensor2D | undefined {
  return sageOverRows('sageLayerOverTable', table, wSelf, wNeigh, bias, relu, () => {
    const block = 'block' in layer ? layer.block : undefined;
    if (block && block.numCols !== ids.size)
      throw new RangeError(`sageLayerOverTable: the layer reads ${block.numCols} input rows (its src), ids has ${ids.size}`);
    if (block?.weights) return undefined;
    const numDst = block ? block.numRows : (layer as FixedFanoutLayer).numDst;
    return {ids, numDst, lists: () => (block ? blockLists(block) : (layer as FixedFanoutLayer))};
  });
}

/**
 * sageLayerOverTable over a sampler's input layer as drawn (InputVertices: its rows' vertices and their neighbours
 * as vertex ids, rows of the table): the same layer, with no relabelling of the input vertices. Undefined where
 * sageLayerOverTable would be, or where the table does not have the graph's vertices as its rows.
 */
export function sageLayerOverVertices(
  table: Embedding,
  inputs: InputVertices,
  wSelf: tf.Tensor2D,
  wNeigh: tf.Tensor2D,
  bias: tf.Tensor1D,
  relu: boolean,
): tf.Tensor2D | undefined {
  return sageOverRows('sageLayerOverVertices', table, wSelf, wNeigh, bias, relu, () => ({
    ids: inputs.dst,
    numDst: inputs.dst.size,
    lists: () => ({...inputs.lists, rows: true}),
  }));
}

// What the fused first layer reads: the table's rows of ids[:numDst] and their neighbour lists (made only where the
// layer runs: Embedding.neighborRows), or undefined where the layer is left to the gathered path.
type RowsInput = {ids: tf.Tensor1D; numDst: number; lists: () => NeighborLists} | undefined;

// The fused first layer (`what` names it) on this backend (GPU or CPU), the weights checked before `input` is read, for
// a layer with outputs: on the GPU the fused native op each way; on the CPU the rows and means the table read in place
// through tfjs' dense ops.
function sageOverRows(
  what: string,
  table: Embedding,
  wSelf: tf.Tensor2D,
  wNeigh: tf.Tensor2D,
  bias: tf.Tensor1D,
  relu: boolean,
  input: () => RowsInput,
): tf.Tensor2D | undefined {
  const b = tf.backend();
  if (!(b instanceof WholeMemoryBackend)) return undefined;
  const inDim = table.dim,
    outDim = wSelf.shape[1];
  checkWeights(`${what}: a table ${inDim} wide`, inDim, wSelf, wNeigh, bias);
  const read = input();
  if (!read || read.numDst * outDim * inDim === 0) return undefined;
  const {ids, numDst} = read;
  const rows = table.neighborRows(ids, read.lists(), numDst);
  if (!rows) return undefined;
  const [self, mean] = rows;
  if (!b.gpu) {
    try {
      return tf.tidy(() => denseOutputs(self, mean, wSelf, wNeigh, bias, relu));
    } finally {
      tf.dispose(rows); // what the gradient needs is kept by the tape
    }
  }
  const f = tf.customGrad(((ws: tf.Tensor, wn: tf.Tensor, bs: tf.Tensor, save: tf.GradSaveFunc) => {
    const [y] = b.deviceOutputs([[numDst, outDim]], ([out]) =>
      sageOutputs(
        b.devicePtr(self),
        b.devicePtr(mean),
        b.devicePtr(ws),
        b.devicePtr(wn),
        b.devicePtr(bs),
        numDst,
        inDim,
        outDim,
        relu,
        out,
      ),
    );
    save([self, mean, y]);
    return {
      value: y,
      gradFunc: (dy: tf.Tensor, [s, m, out]: tf.Tensor[]) => {
        const [dz, dBias] = maskedGradients(b, dy, out, numDst, outDim, relu);
        const grads = [
          weightGradient(b, b.devicePtr(s), dz, inDim, outDim, numDst),
          weightGradient(b, b.devicePtr(m), dz, inDim, outDim, numDst),
          dBias,
        ];
        dz.dispose();
        return grads;
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  try {
    return f(wSelf, wNeigh, bias) as tf.Tensor2D;
  } finally {
    tf.dispose(rows); // what the gradient needs is kept by save()
  }
}

// A block's neighbour lists as the table reads them: its own entries on the GPU (a sampler's stay there).
function blockLists(block: CsrBlock): NeighborLists {
  const {rowPtr, colIdx} = block.onDevice(block.entries(false));
  return {rowPtr: rowPtr as tf.Tensor1D, colIdx: colIdx as tf.Tensor1D};
}

// `what` (the input, named) is inDim wide: the weights must be [inDim, out] and the bias [out].
function checkWeights(what: string, inDim: number, wSelf: tf.Tensor2D, wNeigh: tf.Tensor2D, bias: tf.Tensor1D): void {
  const outDim = wSelf.shape[1];
  if (wSelf.shape[0] !== inDim || wNeigh.shape[0] !== inDim || wNeigh.shape[1] !== outDim || bias.shape[0] !== outDim) {
    throw new RangeError(
      `${what} needs wSelf and wNeigh [${inDim}, out] and bias [out]; got [${wSelf.shape}], [${wNeigh.shape}], [${bias.shape}]`,
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
  checkWeights(`sageLayer: h [${h.shape}]`, h.shape[1], wSelf, wNeigh, bias);
  const block = layer.block;
  if (h.shape[0] !== block.numCols)
    throw new RangeError(`sageLayer: the layer reads ${block.numCols} input rows (its src), h has ${h.shape[0]}`);
  if (block.numRows > block.numCols)
    throw new RangeError(
      `sageLayer: the block has ${block.numRows} rows but ${block.numCols} columns; a layer's outputs are the first of its inputs`,
    );
  const b = tf.backend();
  const fused = b instanceof WholeMemoryBackend && b.gpu && h.dtype === 'float32' && block.numRows * h.shape[1] * wSelf.shape[1] > 0;
  const arrays = fused ? block.meanOnDevice() : undefined;
  if (!arrays) return composite(h, block.numRows, () => aggregate(h, block, 'mean'), wSelf, wNeigh, bias, relu);
  const attrs: SageBlockLayerAttrs = {relu, entries: block.numEntries};
  return tf
    .engine()
    .runKernel(WM_SAGE_BLOCK_LAYER, {x: h, wSelf, wNeigh, bias, ...arrays}, attrs as unknown as tf.NamedAttrMap) as tf.Tensor2D;
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
  return tf.tidy(() => denseOutputs(tf.slice(h, [0, 0], [numDst, h.shape[1]]), mean(), wSelf, wNeigh, bias, relu));
}

// act(self · wSelf + mean · wNeigh + bias) from tfjs ops.
function denseOutputs(
  self: tf.Tensor2D,
  mean: tf.Tensor2D,
  wSelf: tf.Tensor2D,
  wNeigh: tf.Tensor2D,
  bias: tf.Tensor1D,
  relu: boolean,
): tf.Tensor2D {
  const z = tf.add(tf.add(tf.matMul(self, wSelf), tf.matMul(mean, wNeigh)), bias) as tf.Tensor2D;
  return relu ? tf.relu(z) : z;
}

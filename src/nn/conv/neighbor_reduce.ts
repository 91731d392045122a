// Each output row's reduction of its neighbours' input rows (mean, sum, max or min) over any layer's
// edges: fixed fan-outs read [rows, fanout] neighbours (the mean by the fused native kernel), CSR blocks
// sum and average by the native sparse product; max and min over a block pad each row to the block's
// longest (a row without neighbours gives zeros, as PyG's). A block's edge weights scale each message.
import * as tf from '@tensorflow/tfjs-core';

import {aggregate, CsrBlock} from '../../graph/aggregate';
import {meanOfNeighbors} from '../../graph/fixed_subgraph';
import {isFixedLayer} from '../../graph/sampled_subgraph';
import {blockOf, GraphLayerInput} from './graph_input';

export type NeighborReduce = 'mean' | 'sum' | 'max' | 'min';
export const NEIGHBOR_REDUCES: NeighborReduce[] = ['mean', 'sum', 'max', 'min'];

/** Padded gathers bigger than this many values are refused (a hub's row would pad every other row). */
const MAX_PADDED_VALUES = 2 ** 28;

export function reduceNeighbors(x: tf.Tensor2D, g: GraphLayerInput, reduce: NeighborReduce, what: string): tf.Tensor2D {
  const dim = x.shape[1];
  if (isFixedLayer(g)) {
    if (reduce === 'mean') return meanOfNeighbors(x, g);
    const rows = tf.reshape(tf.gather(x, g.neighbors), [g.numDst, g.fanout, dim]);
    const r = reduce === 'sum' ? tf.sum(rows, 1) : reduce === 'max' ? tf.max(rows, 1) : tf.min(rows, 1);
    return (g.fanout === 0 ? tf.zeros([g.numDst, dim]) : r) as tf.Tensor2D;
  }
  const block = blockOf(g, what);
  if (x.shape[0] !== block.numCols)
    throw new RangeError(`${what}: the input has ${x.shape[0]} rows, the graph's block reads ${block.numCols}`);
  if (reduce === 'mean' || reduce === 'sum') return aggregate(x, block, reduce);
  return paddedExtreme(x, block, reduce, what);
}

function paddedExtreme(x: tf.Tensor2D, block: CsrBlock, reduce: 'max' | 'min', what: string): tf.Tensor2D {
  const {rowPtr, colIdx} = block.entries(false);
  const rows = block.numRows,
    dim = x.shape[1];
  let width = 0;
  for (let r = 0; r < rows; ++r) width = Math.max(width, rowPtr[r + 1] - rowPtr[r]);
  if (rows * width * dim > MAX_PADDED_VALUES)
    throw new RangeError(
      `${what}: '${reduce}' pads every row to the longest (${width} neighbours): ${rows} x ${width} x ${dim} values; ` +
        'sample the neighbourhoods with a fan-out, or use mean or sum',
    );
  if (width === 0) return tf.zeros([rows, dim]);
  // Inside a tidy: called bare (a global max pool), its intermediates would outlive it.
  return tf.tidy(() => {
    // Padding reads an extra row that never wins: -inf for max, +inf for min.
    const pad = block.numCols;
    const index = new Int32Array(rows * width).fill(pad);
    const w = block.weights;
    const scale = w ? new Float32Array(rows * width).fill(1) : undefined;
    const empty: number[] = [];
    for (let r = 0; r < rows; ++r) {
      const a = rowPtr[r],
        n = rowPtr[r + 1] - a;
      if (n === 0) empty.push(r);
      index.set(colIdx.subarray(a, a + n), r * width);
      scale?.set(w!.subarray(a, a + n), r * width);
    }
    const sentinel = tf.fill([1, dim], reduce === 'max' ? -Infinity : Infinity);
    let padded = tf.reshape(tf.gather(tf.concat([x, sentinel], 0), tf.tensor1d(index, 'int32')), [rows, width, dim]);
    // Weighted messages w_e x_c, as the sum and mean take them (the padding keeps weight 1).
    if (scale) padded = tf.mul(padded, tf.tensor3d(scale, [rows, width, 1]));
    const r = (reduce === 'max' ? tf.max(padded, 1) : tf.min(padded, 1)) as tf.Tensor2D;
    if (empty.length === 0) return r;
    const keep = new Float32Array(rows).fill(1);
    for (const e of empty) keep[e] = 0;
    // where(), not a product: an empty row's infinity times zero would be NaN.
    return tf.where(tf.tensor2d(keep, [rows, 1]).cast('bool').tile([1, dim]), r, tf.zerosLike(r)) as tf.Tensor2D;
  });
}

// Graph-level readouts over a batch of small graphs (PyG's global_add_pool, global_mean_pool,
// global_max_pool): each graph's vertex rows summed, averaged or maxed into one row. A neighbour reduction
// over the batch's pooling block (row g reads graph g's vertices): the sums and means are one native sparse
// product each way; the max pads each graph to the largest. A graph without vertices gives zeros, as PyG's.
import * as tf from '@tensorflow/tfjs-core';

import type {GraphBatch} from '../graph/graph_batch';
import {reduceNeighbors} from './conv/neighbor_reduce';

export type GlobalPool = 'add' | 'mean' | 'max';

/** [numGraphs, dim]: each graph's rows of x ([numVertices, dim]) reduced by `how`. */
export function globalPool(x: tf.Tensor2D, b: Pick<GraphBatch, 'pool' | 'numVertices'>, how: GlobalPool): tf.Tensor2D {
  const what = `global${how[0].toUpperCase()}${how.slice(1)}Pool`;
  if (!(x instanceof tf.Tensor) || x.rank !== 2) throw new TypeError(`${what}: x must be a matrix [vertices, features]`);
  if (x.shape[0] !== b.numVertices) throw new RangeError(`${what}: x has ${x.shape[0]} rows, the batch ${b.numVertices} vertices`);
  return reduceNeighbors(x, b.pool, how === 'add' ? 'sum' : how, what);
}

export const globalAddPool = (x: tf.Tensor2D, b: Pick<GraphBatch, 'pool' | 'numVertices'>) => globalPool(x, b, 'add');
export const globalMeanPool = (x: tf.Tensor2D, b: Pick<GraphBatch, 'pool' | 'numVertices'>) => globalPool(x, b, 'mean');
export const globalMaxPool = (x: tf.Tensor2D, b: Pick<GraphBatch, 'pool' | 'numVertices'>) => globalPool(x, b, 'max');

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

/**
 * Attention pooling (PyG's AttentionalAggregation): each graph's rows of x weighted by the softmax, within the
 * graph, of their gate scores ([numVertices, 1], say a linear map of x), and summed: [numGraphs, dim]. A graph
 * without vertices gives zeros. Differentiable in x and the gates.
 */
export function globalAttentionPool(x: tf.Tensor2D, gate: tf.Tensor2D, b: Pick<GraphBatch, 'pool' | 'numVertices' | 'batch'>): tf.Tensor2D {
  const what = 'globalAttentionPool';
  if (!(gate instanceof tf.Tensor) || gate.rank !== 2 || gate.shape[1] !== 1 || gate.shape[0] !== b.numVertices)
    throw new RangeError(
      `${what}: gate must be [${b.numVertices} vertices, 1], got ${gate instanceof tf.Tensor ? `[${gate.shape}]` : String(gate)}`,
    );
  return tf.tidy(() => {
    const graphOf = tf.tensor1d(b.batch, 'int32');
    // Each graph's scores less its largest, so the exponentials stay finite.
    const top = tf.gather(globalPool(gate, b, 'max'), graphOf);
    const e = tf.exp(tf.sub(gate, top));
    const weights = tf.div(e, tf.gather(globalPool(e as tf.Tensor2D, b, 'add'), graphOf));
    return globalPool(tf.mul(x, weights) as tf.Tensor2D, b, 'add');
  });
}

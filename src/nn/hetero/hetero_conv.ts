// PyG's HeteroConv over a typed sampled layer: a homogeneous graph layer per edge type (source,
// relation, destination), each reading its relation's block. A relation within one vertex type gives its
// layer that type's rows (the destinations are their first rows); a relation between two types gives the
// pair [sources, destinations], PyG's (x_src, x_dst). Each destination type's results over its relations
// are combined by `aggr`: 'sum' (default), 'mean', 'max', 'min', or 'cat' (concatenated in the order the
// layers were given). Types no layer writes to have no output.
import * as tf from '@tensorflow/tfjs-core';

import {EdgeType, parseEdgeTypeKey} from '../../graph/hetero_graph';
import type {TypedLayer} from '../../graph/typed_sampling';
import type {GraphConv} from '../conv/graph_conv';

export type HeteroAggregation = 'sum' | 'mean' | 'max' | 'min' | 'cat';
const AGGREGATIONS: HeteroAggregation[] = ['sum', 'mean', 'max', 'min', 'cat'];

export class HeteroConv {
  readonly aggr: HeteroAggregation;
  private readonly convs: [string, EdgeType, GraphConv][];

  /** convs: a layer per edge type key (wm.graph.edgeTypeKey: 'author___writes___paper'). */
  constructor(convs: Record<string, GraphConv>, aggr: HeteroAggregation = 'sum') {
    if (!AGGREGATIONS.includes(aggr)) throw new RangeError(`heteroConv: aggr must be one of ${AGGREGATIONS.join(', ')}, got '${aggr}'`);
    const entries = Object.entries(convs ?? {});
    if (entries.length === 0) throw new RangeError('heteroConv: convs must map at least one edge type key to a graph layer');
    const seen = new Set<unknown>();
    this.convs = entries.map(([key, conv]) => {
      if (!conv || typeof (conv as {apply?: unknown}).apply !== 'function')
        throw new TypeError(`heteroConv: convs['${key}'] must be a graph layer (sageConv, gatConv, ginConv, ...)`);
      if (seen.has(conv)) throw new RangeError(`heteroConv: convs['${key}'] is given for two edge types; give each its own layer`);
      seen.add(conv);
      return [key, parseEdgeTypeKey(key, 'heteroConv: convs'), conv];
    });
    this.aggr = aggr;
  }

  /** Every layer's trainable variables (after the first apply builds them). */
  get variables(): tf.Variable[] {
    return this.convs.flatMap(([, , c]) => c.trainableWeights.map((w) => w.read() as tf.Variable));
  }

  /** Each destination type's combined output, from every type's input rows (the layer's src order). */
  apply(x: Record<string, tf.Tensor2D>, layer: TypedLayer, kwargs: {training?: boolean} = {}): Record<string, tf.Tensor2D> {
    for (const [key] of this.convs)
      if (!(key in layer.blocks))
        throw new RangeError(`heteroConv: edge type ${key} is not one of the layer's (${Object.keys(layer.blocks).join(', ')})`);
    return tf.tidy(() => {
      const byType = new Map<string, tf.Tensor2D[]>();
      for (const [key, [s, , d], conv] of this.convs) {
        const rows = layer.dst[d]?.length ?? 0;
        if (rows === 0) continue;
        const xs = x[s],
          xd = x[d];
        for (const [t, v] of [
          [s, xs],
          [d, xd],
        ] as const) {
          if (!v) throw new RangeError(`heteroConv: no input rows for vertex type '${t}' (edge type ${key} reads them)`);
          if (v.rank !== 2 || v.shape[0] !== layer.src[t].length)
            throw new RangeError(`heteroConv: inputs of '${t}' must have the layer's ${layer.src[t].length} rows, got [${v.shape}]`);
        }
        const input = s === d ? xs : [xs, tf.slice(xd, [0, 0], [rows, xd.shape[1]])];
        const y = conv.apply(input, {graph: layer.blocks[key], training: kwargs.training}) as tf.Tensor2D;
        byType.set(d, [...(byType.get(d) ?? []), y]);
      }
      const out: Record<string, tf.Tensor2D> = {};
      for (const [t, ys] of byType) {
        if (ys.length === 1) out[t] = ys[0];
        else if (this.aggr === 'cat') out[t] = tf.concat(ys, 1);
        else {
          const stacked = tf.stack(ys);
          const reduce = {sum: tf.sum, mean: tf.mean, max: tf.max, min: tf.min}[this.aggr];
          out[t] = reduce(stacked, 0) as tf.Tensor2D;
        }
      }
      return out;
    });
  }

  /** Frees every layer's weights (a layer never applied has none). */
  dispose(): void {
    for (const [, , c] of this.convs) if (c.built) c.dispose();
  }
}

/** PyG's HeteroConv: `heteroConv({[edgeTypeKey]: sageConv({units: 64})}, 'sum').apply(x, typedLayer)`. */
export function heteroConv(convs: Record<string, GraphConv>, aggr: HeteroAggregation = 'sum'): HeteroConv {
  return new HeteroConv(convs, aggr);
}

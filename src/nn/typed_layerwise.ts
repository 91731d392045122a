// Exact inference over every vertex of a typed graph, a layer at a time (the typed form of layerwise.ts):
// layer l is computed for every vertex of every type it gives outputs for, a block of rows at a time, each
// row over its whole neighbourhood in every relation (one hop with every neighbour), reading layer l - 1's
// outputs of all vertices. The work is the layers times the edges, where a pass per batch of seeds over
// whole k-hop neighbourhoods would read most of the graph again for every batch.
import * as tf from '@tensorflow/tfjs-core';

import type {HeteroGraph} from '../graph/hetero_graph';
import {sampleTypedSeeds, TypedLayer} from '../graph/typed_sampling';

/** One layer: every type's input rows of a typed layer in, each destination type's output rows out. */
export type TypedLayerFn = (x: Record<string, tf.Tensor2D>, layer: TypedLayer) => Record<string, tf.Tensor2D>;

/**
 * Each type's outputs of the last of `layers`, for all of its vertices ([numNodes[t], width], one tensor
 * per type the last layer gives outputs for; the caller disposes them). `inputs(type, ids)` gives the
 * first layer's input rows. Types a layer gives no outputs for are absent from the next layer's inputs.
 * `lastTypes`: the types the last layer computes (default: every type), as a classifier needs its own.
 */
export function typedLayerwise(
  g: HeteroGraph,
  inputs: (type: string, ids: Int32Array) => tf.Tensor2D,
  layers: TypedLayerFn[],
  o: {batchSize?: number; lastTypes?: string[]} = {},
): Record<string, tf.Tensor2D> {
  const batch = o.batchSize ?? 1024;
  if (!Number.isInteger(batch) || batch < 1)
    throw new RangeError(`typedLayerwise: batchSize must be a positive integer, got ${o.batchSize}`);
  if (layers.length === 0) throw new RangeError('typedLayerwise: no layers');
  for (const t of o.lastTypes ?? [])
    if (!(t in g.numNodes)) throw new RangeError(`typedLayerwise: lastTypes names '${t}', not a vertex type (${g.nodeTypes.join(', ')})`);
  // Every neighbour: each relation's fan-out is its largest in-degree. A block of rows is cut so that it
  // times the largest fan-out into its type stays within what one sampling call returns.
  const fanouts: Record<string, number[]> = {};
  const widest: Record<string, number> = {};
  for (const [key, r] of g.relations) {
    let most = 0;
    for (const d of r.graph.degrees()) most = Math.max(most, d);
    fanouts[key] = [most];
    widest[r.type[2]] = Math.max(widest[r.type[2]] ?? 0, most);
  }
  let previous: Record<string, tf.Tensor2D> | undefined;
  try {
    for (const [li, f] of layers.entries()) {
      const types = li === layers.length - 1 && o.lastTypes ? o.lastTypes : g.nodeTypes;
      const read = (t: string, ids: Int32Array): tf.Tensor2D | undefined => {
        if (!previous) return inputs(t, ids);
        const table = previous[t];
        return table ? (tf.gather(table, tf.tensor1d(ids, 'int32')) as tf.Tensor2D) : undefined;
      };
      const parts = new Map<string, tf.Tensor2D[]>();
      try {
        for (const t of types) {
          const rows = Math.max(1, Math.min(batch, Math.floor(2 ** 30 / Math.max(1, widest[t] ?? 0))));
          for (let b = 0; b < g.numNodes[t]; b += rows) {
            const ids = Int32Array.from({length: Math.min(rows, g.numNodes[t] - b)}, (_, i) => b + i);
            const sub = sampleTypedSeeds(g, {[t]: ids}, fanouts);
            try {
              const layer = sub.layers[0];
              const y = tf.tidy(() => {
                const x: Record<string, tf.Tensor2D> = {};
                for (const [s, rows] of Object.entries(layer.src)) {
                  if (rows.length === 0) continue;
                  const v = read(s, rows);
                  if (v) x[s] = v;
                }
                return f(x, layer)[t];
              });
              if (!y) break; // this layer gives the type no outputs
              parts.set(t, [...(parts.get(t) ?? []), y]);
            } finally {
              sub.dispose();
            }
          }
        }
      } catch (e) {
        for (const p of parts.values()) tf.dispose(p);
        throw e;
      }
      const next: Record<string, tf.Tensor2D> = {};
      for (const [t, p] of parts) {
        next[t] = p.length === 1 ? p[0] : (tf.concat(p, 0) as tf.Tensor2D);
        if (p.length > 1) tf.dispose(p);
      }
      if (previous) tf.dispose(Object.values(previous));
      previous = next;
    }
    return previous!;
  } catch (e) {
    if (previous) tf.dispose(Object.values(previous));
    throw e;
  }
}

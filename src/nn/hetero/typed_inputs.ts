// What a typed layer's input must be: for every vertex type the layer reads, a matrix of its rows
// (layer.src's count) `inDim` wide; and the relations of a layer a conv with a weight per relation reads.
// `what` names the layer in the errors.
import type * as tf from '@tensorflow/tfjs-core';

import {parseEdgeTypeKey} from '../../graph/hetero_graph';
import type {TypedLayer} from '../../graph/typed_sampling';

/** A relation with entries in a layer: its key, its index among the conv's relations, its source and destination types. */
export interface LayerRelation {
  key: string;
  r: number;
  s: string;
  d: string;
}

/**
 * The layer's relations with entries, each with its index in `index` (the conv's relations); a relation of the layer
 * the conv has no weights for is refused, naming it.
 */
export function layerRelations(what: string, layer: TypedLayer, index: Map<string, number>): LayerRelation[] {
  const used: LayerRelation[] = [];
  for (const [key, block] of Object.entries(layer.blocks)) {
    const [s, , d] = parseEdgeTypeKey(key, `${what}: the layer's blocks`);
    const r = index.get(key);
    if (r === undefined) throw new RangeError(`${what}: the layer has edge type ${key}, the conv has no weights for it`);
    if (block.numEntries > 0) used.push({key, r, s, d});
  }
  return used;
}

/** The relations by their source ('s') or destination ('d') type, in their order. */
export function relationsBy(rels: LayerRelation[], side: 's' | 'd'): Map<string, LayerRelation[]> {
  const m = new Map<string, LayerRelation[]>();
  for (const u of rels) m.set(u[side], [...(m.get(u[side]) ?? []), u]);
  return m;
}

export function checkTypedInputs(what: string, x: Record<string, tf.Tensor2D>, layer: TypedLayer, inDim: number): void {
  for (const [t, rows] of Object.entries(layer.src)) {
    const xt = x[t];
    if (rows.length > 0 && !xt) throw new RangeError(`${what}: no input rows for vertex type '${t}' (the layer reads ${rows.length})`);
    if (xt && (xt.rank !== 2 || xt.shape[0] !== rows.length || xt.shape[1] !== inDim))
      throw new RangeError(`${what}: inputs of '${t}' must be [${rows.length}, ${inDim}], got [${xt.shape}]`);
  }
}

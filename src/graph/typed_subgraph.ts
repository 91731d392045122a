// What typed sampling returns, wherever it ran (the host's sampler in typed_sampling.ts, the GPU's in
// typed_sampling_device.ts), and what both check and draw alike: the fan-outs, the seeds and each
// relation's seed per hop.
import type * as tf from '@tensorflow/tfjs-core';

import {Ids, int32Ids} from '../util/arrays';
import {CsrBlock} from './aggregate';
import type {HeteroGraph} from './hetero_graph';
import {hopSeed} from './native_sampling';
import {allDistinct} from './seeds';

export interface TypedLayer {
  /** Per vertex type: this layer's outputs (global ids of the type), a prefix of its inputs. */
  dst: Record<string, Int32Array>;
  /** Per vertex type: this layer's inputs. */
  src: Record<string, Int32Array>;
  /** Per edge type key: row i aggregates the sampled sources of dst[destination type][i], as positions in src[source type]. */
  blocks: Record<string, CsrBlock>;
}

export interface TypedSubgraph {
  seedType: string;
  /** Input layer first: layers[0].src are the vertices whose features to read; the last layer's dst[seedType] are the seeds. */
  layers: TypedLayer[];
  /** layers[0].src's ids on the device, per type with inputs, where the sampler made them there (the subgraph's own). */
  inputIds?: Record<string, tf.Tensor1D>;
  dispose(): void;
}

/** Fan-outs: one list for every relation, or a list per edge type key (missing relations sample nothing). */
export type TypedFanouts = number[] | Record<string, number[]>;

/** @internal The number of hops and each relation's fan-out at a hop, the lists checked. */
export function fanoutsOf(g: HeteroGraph, f: TypedFanouts): {hops: number; of: (key: string, hop: number) => number} {
  const lists = Array.isArray(f) ? [f] : Object.values(f);
  const hops = lists[0]?.length ?? 0;
  for (const l of lists) {
    if (!Array.isArray(l) || l.length !== hops || l.some((x) => !Number.isInteger(x) || x < 0))
      throw new RangeError(
        `sampleTypedSubgraph: fanouts must be lists of non-negative integers, all as long (one per hop), got ${JSON.stringify(f)}`,
      );
  }
  if (!Array.isArray(f)) for (const key of Object.keys(f)) g.relation(key); // an unknown edge type is named
  return {hops, of: (key, hop) => (Array.isArray(f) ? f[hop] : (f[key]?.[hop] ?? 0))};
}

/** @internal Each type's seeds read and checked (a type of the graph, ids in range, distinct), as copies. */
export function typedSeeds(g: HeteroGraph, seedsByType: Record<string, Ids>): Record<string, Int32Array> {
  const given: Record<string, Int32Array> = {};
  for (const [t, ids] of Object.entries(seedsByType)) {
    if (!(t in g.numNodes)) throw new RangeError(`sampleTypedSubgraph: seed type '${t}' is not a vertex type (${g.nodeTypes.join(', ')})`);
    const seeds = int32Ids(ids, 'sampleTypedSubgraph: seeds');
    const n = g.numNodes[t];
    for (let i = 0; i < seeds.length; ++i)
      if (seeds[i] < 0 || seeds[i] >= n)
        throw new RangeError(`sampleTypedSubgraph: seeds[${i}] = ${seeds[i]} is not a '${t}' id in [0, ${n})`);
    if (!allDistinct(seeds)) throw new RangeError('sampleTypedSubgraph: seeds must be distinct');
    given[t] = seeds.slice();
  }
  if (Object.keys(given).length === 0) throw new RangeError('sampleTypedSubgraph: no seed type given');
  return given;
}

/** @internal The sampler seed of relation `index` (in the graph's order) at `hop`: the host and the GPU draw the same. */
export function relationSeed(seed: number, index: number, hop: number): number {
  return hopSeed(seed + index * 7919, hop);
}

/**
 * @internal A fixed fan-out draw with replacement (`fanout` entries a row) without the rows that have no neighbours
 * (the homogeneous sampler gives such a row itself; across types that is no edge): the rows' offsets, and the
 * positions of the entries kept (undefined when every row has neighbours and all are kept).
 */
export function nonEmptyRows(degrees: Int32Array, fanout: number): {offsets: Int32Array; kept?: Int32Array} {
  const rows = degrees.length;
  const offsets = new Int32Array(rows + 1);
  for (let i = 0; i < rows; ++i) offsets[i + 1] = offsets[i] + (degrees[i] > 0 ? fanout : 0);
  if (offsets[rows] === rows * fanout) return {offsets};
  const kept = new Int32Array(offsets[rows]);
  for (let i = 0, n = 0; i < rows; ++i) if (degrees[i] > 0) for (let j = 0; j < fanout; ++j) kept[n++] = i * fanout + j;
  return {offsets, kept};
}

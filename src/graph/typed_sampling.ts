// Neighbour sampling over a typed graph (PyG's NeighborLoader over HeteroData, DGL's heterograph blocks):
// from seeds of one type, each hop samples, for every relation whose destination type has vertices in
// the frontier, up to its fan-out of that relation's sources per frontier vertex; each vertex type is then
// made unique and relabelled on its own (the frontier first, so a layer's outputs are a prefix of its
// inputs), and each relation's sampled edges become a block from its source type's inputs to its
// destination type's outputs. The relations sample with the homogeneous samplers (with or without
// replacement, seeded per hop and relation).
import {graphNative} from '../native/domains';
import {Ids, int32Ids, int32Of} from '../util/arrays';
import {CsrBlock} from './aggregate';
import {edgeTypeKey, HeteroGraph} from './hetero_graph';
import {hopSeed, SampleOptions} from './native_sampling';
import {uniqueAndRelabel} from './subgraph';

// Relabelling a type's ids through a mark per vertex of the type, natively (relabelByMarks: first appearances
// in order, in parallel parts where the host has threads), where sorting would take n log n. The marks live
// with the graph and are left all -1 after each use. Types past this many vertices relabel by sorting
// (uniqueAndRelabel) instead of holding 4 bytes each.
const MAX_MARKED_VERTICES = 1 << 28;
const marksOf = new WeakMap<HeteroGraph, Map<string, Int32Array>>();

function relabelType(g: HeteroGraph, type: string, all: Int32Array): {unique: Int32Array; inverse: Int32Array} {
  const n = g.numNodes[type];
  if (n > MAX_MARKED_VERTICES) return uniqueAndRelabel(all);
  let byType = marksOf.get(g);
  if (!byType) marksOf.set(g, (byType = new Map()));
  let marks = byType.get(type);
  if (!marks) byType.set(type, (marks = new Int32Array(n).fill(-1)));
  const unique = new Int32Array(all.length),
    inverse = new Int32Array(all.length);
  const distinct = graphNative().relabelByMarks(all, all.length, marks, n, unique, inverse);
  return {unique: unique.slice(0, distinct), inverse};
}

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
  dispose(): void;
}

/** Fan-outs: one list for every relation, or a list per edge type key (missing relations sample nothing). */
export type TypedFanouts = number[] | Record<string, number[]>;

function fanoutsOf(g: HeteroGraph, f: TypedFanouts): {hops: number; of: (key: string, hop: number) => number} {
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

export function sampleTypedSubgraph(
  g: HeteroGraph,
  seedType: string,
  seedIds: Ids,
  fanouts: TypedFanouts,
  opts: SampleOptions = {},
): TypedSubgraph {
  return sampleTypedSeeds(g, {[seedType]: seedIds}, fanouts, opts);
}

/** sampleTypedSubgraph from seeds of several types (a link's two ends): each type's seeds distinct, the first type named seedType. */
export function sampleTypedSeeds(
  g: HeteroGraph,
  seedsByType: Record<string, Ids>,
  fanouts: TypedFanouts,
  opts: SampleOptions = {},
): TypedSubgraph {
  const given: Record<string, Int32Array> = {};
  for (const [t, ids] of Object.entries(seedsByType)) {
    if (!(t in g.numNodes)) throw new RangeError(`sampleTypedSubgraph: seed type '${t}' is not a vertex type (${g.nodeTypes.join(', ')})`);
    const seeds = int32Ids(ids, 'sampleTypedSubgraph: seeds');
    const n = g.numNodes[t];
    for (let i = 0; i < seeds.length; ++i)
      if (seeds[i] < 0 || seeds[i] >= n)
        throw new RangeError(`sampleTypedSubgraph: seeds[${i}] = ${seeds[i]} is not a '${t}' id in [0, ${n})`);
    if (uniqueAndRelabel(seeds).unique.length !== seeds.length) throw new RangeError('sampleTypedSubgraph: seeds must be distinct');
    given[t] = seeds.slice();
  }
  const seedType = Object.keys(given)[0];
  if (seedType === undefined) throw new RangeError('sampleTypedSubgraph: no seed type given');
  const {hops, of} = fanoutsOf(g, fanouts);
  const empty = new Int32Array(0);
  let dst: Record<string, Int32Array> = Object.fromEntries(g.nodeTypes.map((t) => [t, given[t] ?? empty]));
  const layers: TypedLayer[] = [];
  const relations = [...g.relations.values()];
  for (let hop = 0; hop < hops; ++hop) {
    // Each relation's draws from its destination type's frontier.
    const drawn = relations.map((r, ri) => {
      const key = edgeTypeKey(r.type);
      const rows = dst[r.type[2]],
        fanout = of(key, hop);
      if (rows.length === 0 || fanout === 0) return {key, r, offsets: new Int32Array(rows.length + 1), ids: empty};
      const seed = hopSeed((opts.seed ?? 0) + ri * 7919, hop);
      const s = r.graph.sample(rows, fanout, {replace: opts.replace ?? false, seed, keyBy: opts.keyBy});
      const offsets = s.offsets ?? int32Of(rows.length + 1, (i) => i * fanout);
      // With replacement the homogeneous sampler gives a row without neighbours itself; across types that is no edge.
      const degrees = opts.replace ? r.graph.degrees(rows) : undefined;
      if (!degrees || degrees.every((x) => x > 0)) return {key, r, offsets, ids: s.ids};
      const kept = new Int32Array(rows.length + 1);
      for (let i = 0; i < rows.length; ++i) kept[i + 1] = kept[i] + (degrees[i] > 0 ? offsets[i + 1] - offsets[i] : 0);
      const ids = new Int32Array(kept[rows.length]);
      for (let i = 0; i < rows.length; ++i) if (degrees[i] > 0) ids.set(s.ids.subarray(offsets[i], offsets[i + 1]), kept[i]);
      return {key, r, offsets: kept, ids};
    });
    // Per source type: the frontier, then every relation's draws of that type, made unique together.
    const src: Record<string, Int32Array> = {};
    const positions = new Map<string, Int32Array>();
    for (const t of g.nodeTypes) {
      const mine = drawn.filter((d) => d.r.type[0] === t);
      const all = new Int32Array(dst[t].length + mine.reduce((a, d) => a + d.ids.length, 0));
      all.set(dst[t]);
      let at = dst[t].length;
      const starts = mine.map((d) => {
        all.set(d.ids, at);
        at += d.ids.length;
        return at - d.ids.length;
      });
      const {unique, inverse} = relabelType(g, t, all);
      src[t] = unique;
      mine.forEach((d, i) => positions.set(d.key, inverse.subarray(starts[i], starts[i] + d.ids.length)));
    }
    const blocks: Record<string, CsrBlock> = {};
    // The positions come from the relabelling (each below its type's count) and the offsets from the sampler: in range
    // by construction, taken without a copy or a check (a batch's blocks hold hundreds of thousands of entries).
    for (const d of drawn) blocks[d.key] = CsrBlock.trusted(d.offsets, positions.get(d.key)!, src[d.r.type[0]].length);
    layers.unshift({dst, src, blocks});
    dst = src;
  }
  return {seedType, layers, dispose: () => layers.forEach((l) => Object.values(l.blocks).forEach((b) => b.dispose()))};
}

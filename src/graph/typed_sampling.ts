// Neighbour sampling over a typed graph (PyG's NeighborLoader over HeteroData, DGL's heterograph blocks):
// from seeds of one type, each hop samples, for every relation whose destination type has vertices in
// the frontier, up to its fan-out of that relation's sources per frontier vertex; each vertex type is then
// made unique and relabelled on its own (the frontier first, so a layer's outputs are a prefix of its
// inputs), and each relation's sampled edges become a block from its source type's inputs to its
// destination type's outputs. The relations sample with the homogeneous samplers (with or without
// replacement, seeded per hop and relation): on the host for a HeteroGraph, on the GPU for a
// DeviceHeteroGraph (typed_sampling_device.ts), the same draws and the same subgraph either way.
import {graphNative} from '../native/domains';
import type {Ids} from '../util/arrays';
import {CsrBlock} from './aggregate';
import {DeviceHeteroGraph} from './device_hetero_graph';
import {edgeTypeKey, HeteroGraph} from './hetero_graph';
import type {SampleOptions} from './native_sampling';
import {relabelThroughMarks} from './relabel';
import {sampleTypedOnDevice} from './typed_sampling_device';
import {fanoutsOf, nonEmptyRows, relationSeed, TypedFanouts, TypedLayer, TypedSubgraph, typedSeeds} from './typed_subgraph';

export type {TypedFanouts, TypedLayer, TypedSubgraph} from './typed_subgraph';

/** A typed graph a sampler reads: on the host, or its relations on the GPU. */
export type TypedGraph = HeteroGraph | DeviceHeteroGraph;

/** The typed graph itself (features, labels, counts) of either kind. */
export function hostTypedGraph(g: TypedGraph): HeteroGraph {
  return g instanceof DeviceHeteroGraph ? g.graph : g;
}

export function sampleTypedSubgraph(
  g: TypedGraph,
  seedType: string,
  seedIds: Ids,
  fanouts: TypedFanouts,
  opts: SampleOptions = {},
): TypedSubgraph {
  return sampleTypedSeeds(g, {[seedType]: seedIds}, fanouts, opts);
}

/** sampleTypedSubgraph from seeds of several types (a link's two ends): each type's seeds distinct, the first type named seedType. */
export function sampleTypedSeeds(
  g: TypedGraph,
  seedsByType: Record<string, Ids>,
  fanouts: TypedFanouts,
  opts: SampleOptions = {},
): TypedSubgraph {
  const host = hostTypedGraph(g);
  const given = typedSeeds(host, seedsByType);
  const {hops, of} = fanoutsOf(host, fanouts);
  if (g instanceof DeviceHeteroGraph) return sampleTypedOnDevice(g, given, hops, of, opts);
  const seedType = Object.keys(given)[0];
  const empty = new Int32Array(0);
  let dst: Record<string, Int32Array> = Object.fromEntries(host.nodeTypes.map((t) => [t, given[t] ?? empty]));
  const layers: TypedLayer[] = [];
  const relations = [...host.relations.values()];
  for (let hop = 0; hop < hops; ++hop) {
    // Each relation's draws from its destination type's frontier.
    const drawn = relations.map((r, ri) => {
      const key = edgeTypeKey(r.type);
      const rows = dst[r.type[2]],
        fanout = of(key, hop);
      if (rows.length === 0 || fanout === 0) return {key, r, offsets: new Int32Array(rows.length + 1), ids: empty};
      const s = r.graph.sample(rows, fanout, {
        replace: opts.replace ?? false,
        seed: relationSeed(opts.seed ?? 0, ri, hop),
        keyBy: opts.keyBy,
      });
      if (s.offsets) return {key, r, offsets: s.offsets, ids: s.ids};
      const {offsets, kept} = nonEmptyRows(r.graph.degrees(rows), fanout);
      return {key, r, offsets, ids: kept ? kept.map((e) => s.ids[e]) : s.ids};
    });
    // Per source type: the frontier, then every relation's draws of that type, made unique together.
    const src: Record<string, Int32Array> = {};
    const positions = new Map<string, Int32Array>();
    for (const t of host.nodeTypes) {
      const mine = drawn.filter((d) => d.r.type[0] === t);
      const all = new Int32Array(dst[t].length + mine.reduce((a, d) => a + d.ids.length, 0));
      all.set(dst[t]);
      let at = dst[t].length;
      const starts = mine.map((d) => {
        all.set(d.ids, at);
        at += d.ids.length;
        return at - d.ids.length;
      });
      // Through a mark per vertex of the type (relabel.ts), where sorting would take n log n.
      const {unique, inverse} = relabelThroughMarks(host, t, host.numNodes[t], all);
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

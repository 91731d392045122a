// Sampled compact subgraphs for mini-batch GNN training (the "blocks" of
// DGL, the message flow graphs of WholeGraph): starting from the seeds, each
// hop samples neighbours of the current vertices, and unique-and-relabel
// turns them into a compact CsrBlock over the distinct vertices — every
// vertex is computed once per layer, however many sampled paths reach it.
import {Ids, int32Ids, int32Of} from '../util/arrays';
import {relabelThroughMarks, uniqueAndRelabel} from './relabel';
import {CsrBlock} from './aggregate';
import {hopSeed, sampleNeighbors, SampleOptions} from './native_sampling';
import type {HostGraph} from './graph_store';
import type {SampledSubgraph, SubgraphLayer} from './sampled_subgraph';

/**
 * Samples fanouts[l] neighbours per vertex per hop (fanouts[0] next to the
 * seeds), without replacement unless opts.replace, seeded as sampleNeighbors: a compact
 * subgraph whose layers hold their edges (a CSR block) and their vertices' global ids.
 * Seeds must be distinct. The graph's offsets may be int32 (a CsrGraph) or int64 (a NativeCsr).
 */
export function sampleSubgraph(
  g: HostGraph,
  seedIds: Ids,
  fanouts: number[],
  opts: SampleOptions = {},
): SampledSubgraph<SubgraphLayer> & {inputIds: Int32Array} {
  const seeds = int32Ids(seedIds, 'sampleSubgraph: seeds');
  if (!Array.isArray(fanouts) || fanouts.some((f) => !Number.isInteger(f) || f < 0))
    throw new RangeError(`sampleSubgraph: fanouts must be an array of non-negative integers, got ${JSON.stringify(fanouts)}`);
  const firstSeed = uniqueAndRelabel(seeds);
  if (firstSeed.unique.length !== seeds.length) throw new RangeError('sampleSubgraph: seeds must be distinct');
  const layers: SubgraphLayer[] = [];
  let dst: Int32Array = seeds.slice();
  fanouts.forEach((fanout, hop) => {
    const seed = hopSeed(opts.seed ?? 0, hop);
    const replace = opts.replace ?? false;
    const drawn = g.sample(dst, fanout, {replace, seed, keyBy: opts.keyBy});
    const offsets = drawn.offsets ?? int32Of(dst.length + 1, (i) => i * fanout);
    // dst first, so that the outputs are a prefix of the inputs.
    const all = new Int32Array(dst.length + drawn.ids.length);
    all.set(dst);
    all.set(drawn.ids, dst.length);
    const {unique, inverse} = relabelThroughMarks(g, '', g.numVertices, all);
    const colIdx = inverse.subarray(dst.length);
    // In range by construction (the relabelling's positions, the sampler's offsets): no copy or check; the
    // columns' degrees in the whole graph are read when 'gcn' first asks for them.
    layers.unshift({dst, src: unique, block: CsrBlock.trusted(offsets, colIdx, unique.length, () => g.degrees(unique))});
    dst = unique;
  });
  return {inputIds: dst, layers, dispose: () => layers.forEach((l) => l.block.dispose())};
}

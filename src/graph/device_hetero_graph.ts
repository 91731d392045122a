// A typed graph's relations copied to the GPU for typed sampling there (sampleTypedSubgraph, the typed
// loaders): each relation a DeviceCsr (rows are destinations), each vertex type a vertex map (its ids
// relabelled on the GPU, allocated at first use). The typed graph itself (counts, features, labels) stays
// where it is; free it apart.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {DeviceCsr} from './device_csr';
import type {HeteroGraph} from './hetero_graph';
import {VertexMap} from './native_sampling';
import {checkCapacity} from '../memory/capacity';

export class DeviceHeteroGraph {
  private readonly csr = new Map<string, DeviceCsr>();
  private readonly maps = new Map<string, VertexMap>();
  private freed = false;

  /** Every relation's arrays into device memory, the whole size checked against the GPU's free memory first. */
  constructor(readonly graph: HeteroGraph) {
    const b = tf.backend();
    if (!(b instanceof WholeMemoryBackend && b.gpu))
      throw new Error('DeviceHeteroGraph needs the wholememory backend on a GPU; sample the HeteroGraph itself on the host');
    const relations = [...graph.relations.entries()];
    const bytes =
      relations.reduce((a, [, r]) => a + DeviceCsr.bytesOf(r.graph), 0) +
      Object.values(graph.numNodes).reduce((a, n) => a + 4 * Math.max(n, 1), 0);
    checkCapacity(
      `DeviceHeteroGraph (${relations.length} relations, ${relations.reduce((a, [, r]) => a + r.numEdges, 0)} edges, a vertex map per type)`,
      bytes,
      'device',
    );
    try {
      for (const [key, r] of relations) this.csr.set(key, new DeviceCsr(r.graph));
    } catch (e) {
      this.dispose();
      throw e;
    }
    for (const t of graph.nodeTypes) this.maps.set(t, new VertexMap(graph.numNodes[t]));
  }

  /** The relation of an edge type key on the GPU. */
  relation(key: string): DeviceCsr {
    this.live('relation');
    const c = this.csr.get(key);
    if (!c) throw new RangeError(`DeviceHeteroGraph: '${key}' is not an edge type (${[...this.csr.keys()].join(', ')})`);
    return c;
  }

  /** What relabels a type's ids on the GPU: its count and its vertex map. */
  relabelling(type: string): {numVertices: number; vertexMap: VertexMap} {
    this.live('relabelling');
    return {numVertices: this.graph.numNodes[type], vertexMap: this.maps.get(type)!};
  }

  /** Device bytes the relations' arrays take. */
  get bytes(): number {
    return [...this.csr.values()].reduce((a, c) => a + c.bytes, 0);
  }

  /** Frees the device copies (the typed graph itself stays). */
  dispose(): void {
    if (this.freed) return;
    this.freed = true;
    for (const c of this.csr.values()) c.dispose();
    for (const m of this.maps.values()) m.free();
  }

  private live(what: string): void {
    if (this.freed) throw new Error(`DeviceHeteroGraph.${what}: the graph was disposed`);
  }
}

/** Where a typed graph's batches are sampled: on the GPU when the backend has one and the relations fit ('auto'), or as asked. */
export type TypedSampling = 'auto' | 'host' | 'device';

/** The graph a typed loader samples for `where` (`g` itself, or a DeviceHeteroGraph that `release` frees). */
export function typedGraphFor(g: HeteroGraph, where: TypedSampling = 'auto'): {graph: HeteroGraph | DeviceHeteroGraph; release(): void} {
  if (where !== 'auto' && where !== 'host' && where !== 'device')
    throw new RangeError(`sampleOn must be 'auto', 'host' or 'device', got '${where}'`);
  const b = tf.backend();
  if (where === 'host' || (where === 'auto' && !(b instanceof WholeMemoryBackend && b.gpu))) return {graph: g, release: () => {}};
  let d: DeviceHeteroGraph;
  try {
    d = new DeviceHeteroGraph(g);
  } catch (e) {
    // 'auto' on a graph too large for the GPU's free memory: sampled on the host.
    if (where === 'auto' && e instanceof RangeError) return {graph: g, release: () => {}};
    throw e;
  }
  return {graph: d, release: () => d.dispose()};
}

/** make(), with `sampled` released if it throws. */
export function releasedOnThrow<T>(sampled: {release(): void}, make: () => T): T {
  try {
    return make();
  } catch (e) {
    sampled.release();
    throw e;
  }
}

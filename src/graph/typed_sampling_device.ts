// Typed sampling on the GPU (typed_sampling.ts' sampler over a DeviceHeteroGraph): each relation's draws
// made by the GPU sampler from its destination type's frontier, each vertex type's frontier and draws
// relabelled through the type's vertex map, every step on the device; the layers' ids and the blocks'
// offsets and positions are then read back once each (the typed subgraph's shape holds them on the host),
// while the blocks keep their device copies for the products and are differentiated by scattering
// (CsrBlock.trusted's `scatter`: no transpose is built for a block used once). The draws are the host
// sampler's, so the subgraph is the one the host makes.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {markValid} from '../backend/index_validation';
import {onSideStream} from '../backend/side_stream';
import {CsrBlock} from './aggregate';
import type {DeviceHeteroGraph} from './device_hetero_graph';
import {edgeTypeKey} from './hetero_graph';
import {relabelOnGpu, SampleOptions} from './native_sampling';
import {nonEmptyRows, relationSeed, TypedLayer, TypedSubgraph} from './typed_subgraph';

interface Drawn {
  key: string;
  source: string;
  /** Host offsets of the block's rows, and the same on the device where the sampler made them. */
  offsets: Int32Array;
  deviceOffsets?: tf.Tensor1D;
  ids?: tf.Tensor1D;
}

/**
 * @internal sampleTypedSeeds over a DeviceHeteroGraph (seeds and fan-outs checked by the caller). On the side
 * stream: its reads back wait for the sampling alone, not for the training steps queued before it, so a loop
 * samples the next batch while the GPU still trains on this one.
 */
export function sampleTypedOnDevice(
  dg: DeviceHeteroGraph,
  given: Record<string, Int32Array>,
  hops: number,
  of: (key: string, hop: number) => number,
  opts: SampleOptions,
): TypedSubgraph {
  const b = tf.backend();
  if (!(b instanceof WholeMemoryBackend && b.gpu))
    throw new Error('sampleTypedSubgraph: a DeviceHeteroGraph is sampled on the GPU: the wholememory backend on a GPU is needed');
  return onSideStream(() => sample(b, dg, given, hops, of, opts));
}

function sample(b: WholeMemoryBackend, ...[dg, given, hops, of, opts]: Parameters<typeof sampleTypedOnDevice>): TypedSubgraph {
  const g = dg.graph;
  const seedType = Object.keys(given)[0];
  const empty = new Int32Array(0);
  let dst: Record<string, Int32Array> = Object.fromEntries(g.nodeTypes.map((t) => [t, given[t] ?? empty]));
  // Each type's frontier on the device: the seeds uploaded, then each hop's relabelled inputs.
  let frontier: Record<string, tf.Tensor1D> = {};
  const layers: TypedLayer[] = [];
  const made: tf.Tensor[] = [];
  try {
    for (const t of g.nodeTypes) {
      if (dst[t].length === 0) continue;
      frontier[t] = tf.tensor1d(dst[t], 'int32');
      markValid(frontier[t], g.numNodes[t]); // checked by the caller
    }
    const relations = [...g.relations.values()];
    for (let hop = 0; hop < hops; ++hop) {
      const drawn: Drawn[] = relations.map((r, ri) => {
        const key = edgeTypeKey(r.type);
        const rows = dst[r.type[2]],
          fanout = of(key, hop);
        if (rows.length === 0 || fanout === 0) return {key, source: r.type[0], offsets: new Int32Array(rows.length + 1)};
        const s = dg.relation(key).sample(frontier[r.type[2]], fanout, {
          replace: opts.replace ?? false,
          seed: relationSeed(opts.seed ?? 0, ri, hop),
          keyBy: opts.keyBy,
        });
        made.push(s.ids, ...(s.offsets ? [s.offsets] : []));
        if (s.offsets) return {key, source: r.type[0], offsets: s.hostOffsets!, deviceOffsets: s.offsets, ids: s.ids};
        const {offsets, kept} = nonEmptyRows(r.graph.degrees(rows), fanout);
        if (!kept) return {key, source: r.type[0], offsets, ids: s.ids};
        const ids = tf.tidy(() => tf.gather(s.ids, tf.tensor1d(kept, 'int32')) as tf.Tensor1D);
        made.push(ids);
        return {key, source: r.type[0], offsets, ids};
      });
      // Per source type: the frontier, then every relation's draws of that type, made unique together on the device.
      const src: Record<string, Int32Array> = {};
      const next: Record<string, tf.Tensor1D> = {};
      const positions = new Map<string, tf.Tensor1D>();
      for (const t of g.nodeTypes) {
        const mine = drawn.filter((d) => d.source === t && d.ids && d.ids.size > 0);
        const m = mine.reduce((a, d) => a + d.ids!.size, 0);
        const nDst = dst[t].length;
        if (nDst + m === 0) {
          src[t] = empty;
          continue;
        }
        const ids = mine.length === 1 ? mine[0].ids! : m ? (tf.concat(mine.map((d) => d.ids!)) as tf.Tensor1D) : undefined;
        if (ids && mine.length > 1) made.push(ids);
        const {values, neighbors} = relabelOnGpu(
          b,
          dg.relabelling(t),
          nDst ? b.devicePtr(frontier[t]) : 0,
          nDst,
          ids ? b.devicePtr(ids) : 0,
          m,
        );
        made.push(values, neighbors);
        markValid(values, g.numNodes[t]); // ids of the type, by construction
        next[t] = values;
        // Tensors are never written: the host copy of the ids is the layer's array as it is. The positions stay on
        // the GPU (each block reads its own back only if the host asks for it).
        src[t] = values.dataSync() as Int32Array;
        let at = 0;
        for (const d of mine) {
          const k = d.ids!.size;
          const device = tf.slice(neighbors, [at], [k]);
          made.push(device);
          positions.set(d.key, device);
          at += k;
        }
      }
      const blocks: Record<string, CsrBlock> = {};
      for (const d of drawn) {
        const p = positions.get(d.key);
        // Positions from the relabelling (each below its type's count), offsets from the sampler: in range by construction.
        blocks[d.key] = p
          ? CsrBlock.onDevice(d.offsets, p, src[d.source].length, {rowPtr: d.deviceOffsets, scatter: true})
          : CsrBlock.trusted(d.offsets, empty, src[d.source].length, undefined, {rowPtr: d.deviceOffsets}, true);
        // The block owns its device arrays from here.
        for (const t of [d.deviceOffsets, p]) if (t) released(made, t);
      }
      layers.unshift({dst, src, blocks});
      tf.dispose(Object.values(frontier));
      for (const t of Object.values(next)) released(made, t);
      frontier = next;
      dst = src;
    }
  } catch (e) {
    layers.forEach((l) => Object.values(l.blocks).forEach((x) => x.dispose()));
    tf.dispose(Object.values(frontier));
    throw e;
  } finally {
    tf.dispose(made);
  }
  // The last hop's inputs (the seeds where there are no hops) stay on the device: the features are gathered by them.
  const inputIds = frontier;
  return {
    seedType,
    layers,
    inputIds,
    dispose: () => {
      layers.forEach((l) => Object.values(l.blocks).forEach((x) => x.dispose()));
      tf.dispose(Object.values(inputIds));
    },
  };
}

// `t` no longer the sampler's to free: a block or the next hop holds it.
function released(made: tf.Tensor[], t: tf.Tensor): void {
  const i = made.indexOf(t);
  if (i >= 0) made.splice(i, 1);
}

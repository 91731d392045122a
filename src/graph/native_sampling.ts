// Native uniform neighbour sampling (C++ on the CPU, CUDA on the GPU). The
// draws come from a counter-based hash of (seed, seed position, draw), so a
// call is reproducible and the CPU and the GPU return the same neighbours.
// (sampling.ts holds the plain TypeScript version the tests compare with.)
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import type {HostInt32Source, RowPtrSource} from '../native/addon';
import {knownValid} from '../backend/index_validation';
import type {HostGraph, SampleOptions} from './graph_store';
import {badSeed, launchForVertices} from './seeds';
import {graphNative} from '../native/domains';
import {Ids, int32Ids} from '../util/arrays';

export type {SampleOptions} from './graph_store';

/** @internal The checks every sampler makes of its fan-out, seed and seed count. */
export function checkSampleArgs(fanout: number, seed: number, seeds: number): void {
  if (!Number.isInteger(fanout) || fanout < 0)
    throw new RangeError(`sampleNeighbors: fanout must be a non-negative integer, got ${fanout}`);
  // One call's samples are counted by int32 offsets.
  if (seeds * fanout > MAX_SAMPLES) {
    throw new RangeError(
      `sampleNeighbors: ${seeds} seeds x fanout ${fanout} is ${seeds * fanout} samples, past the ${MAX_SAMPLES} one call may return`,
    );
  }
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`sampleNeighbors: seed must be a non-negative integer, got ${seed}`);
}

const MAX_SAMPLES = 2 ** 31 - 1;

function keyByVertex(opts: SampleOptions): boolean {
  const k = opts.keyBy ?? 'position';
  if (k !== 'position' && k !== 'vertex') throw new RangeError(`sampleNeighbors: keyBy must be 'position' or 'vertex', got '${k}'`);
  return k === 'vertex';
}

/**
 * @internal The sampler seed of hop `hop` of a multi-hop sample seeded with
 * `seed`: every multi-hop sampler uses it, so they draw the same neighbours.
 */
export function hopSeed(seed: number, hop: number): number {
  return seed + hop * 0x9e3779b9;
}

/**
 * @internal The CPU sampler over a graph's arrays (typed arrays, or
 * continuous host WholeMemory read in place); what: the caller, for errors.
 */
export function sampleOnHost(
  rowPtr: RowPtrSource,
  colIdx: HostInt32Source | null,
  numVertices: number,
  seeds: Int32Array,
  fanout: number,
  opts: SampleOptions,
  what: string,
): {offsets?: Int32Array; ids: Int32Array} {
  const seed = opts.seed ?? 0;
  const byVertex = keyByVertex(opts);
  if (opts.replace ?? true) {
    const ids = new Int32Array(seeds.length * fanout);
    const bad = graphNative().sampleWithReplacement(
      rowPtr,
      colIdx,
      numVertices,
      seeds,
      seeds.length,
      fanout,
      seed,
      ids,
      null,
      byVertex,
    ) as number;
    if (bad >= 0) throw badSeed(what, numVertices, seeds, bad);
    return {ids};
  }
  // Two passes: sizes first (offsets[n] is the total), then the draws.
  const offsets = new Int32Array(seeds.length + 1);
  const bad = graphNative().sampleWithoutReplacement(
    rowPtr,
    colIdx,
    numVertices,
    seeds,
    seeds.length,
    fanout,
    seed,
    offsets,
    null,
    null,
    byVertex,
  ) as number;
  if (bad >= 0) throw badSeed(what, numVertices, seeds, bad);
  const ids = new Int32Array(offsets[seeds.length]);
  graphNative().sampleWithoutReplacement(rowPtr, colIdx, numVertices, seeds, seeds.length, fanout, seed, offsets, ids, null, byVertex);
  return {offsets, ids};
}

/**
 * @internal The GPU sampler over a graph's arrays at device addresses rowPtr and colIdx (int64 row
 * offsets when wideOffsets, else int32). Without replacement the offsets come on the device and, read
 * back to size the draws, on the host (`hostOffsets`).
 */
export function sampleOnDevice(
  b: WholeMemoryBackend,
  rowPtr: number,
  colIdx: number,
  numVertices: number,
  seeds: tf.Tensor1D,
  fanout: number,
  opts: SampleOptions,
  what: string,
  wideOffsets = false,
): {offsets?: tf.Tensor1D; hostOffsets?: Int32Array; ids: tf.Tensor1D} {
  const byVertex = keyByVertex(opts);
  if (seeds.dtype !== 'int32') throw new TypeError(`${what}: seeds must be int32, got ${seeds.dtype}`);
  const seed = opts.seed ?? 0;
  const n = seeds.size,
    sp = n ? b.devicePtr(seeds) : 0;
  let out: {offsets?: tf.Tensor1D; hostOffsets?: Int32Array; ids: tf.Tensor1D} | undefined;
  const launch = (flag: number) => {
    if (opts.replace ?? true) {
      const {info, ptr} = b.makeDeviceOutput([n * fanout], 'int32');
      graphNative().sampleWithReplacement(rowPtr, colIdx, numVertices, sp, n, fanout, seed, ptr, flag, byVertex, wideOffsets);
      out = {ids: tf.engine().makeTensorFromTensorInfo(info) as tf.Tensor1D};
    } else {
      const off = b.makeDeviceOutput([n + 1], 'int32');
      graphNative().sampleWithoutReplacement(rowPtr, colIdx, numVertices, sp, n, fanout, seed, off.ptr, 0, flag, byVertex, wideOffsets);
      // Every row's offset read back at once: the total sizes the draws, and a caller that keeps the offsets on the host needs no second read.
      const hostOffsets = new Int32Array(n + 1);
      graphNative().download(off.ptr, hostOffsets);
      const ids = b.makeDeviceOutput([hostOffsets[n]], 'int32');
      graphNative().sampleWithoutReplacement(
        rowPtr,
        colIdx,
        numVertices,
        sp,
        n,
        fanout,
        seed,
        off.ptr,
        ids.ptr,
        flag,
        byVertex,
        wideOffsets,
      );
      out = {
        offsets: tf.engine().makeTensorFromTensorInfo(off.info) as tf.Tensor1D,
        hostOffsets,
        ids: tf.engine().makeTensorFromTensorInfo(ids.info) as tf.Tensor1D,
      };
    }
  };
  const bad = launchForVertices(b, seeds, numVertices, launch);
  if (bad >= 0) {
    tf.dispose([out!.ids, out!.offsets ?? []].flat());
    throw badSeed(what, numVertices, seeds.dataSync(), bad);
  }
  return out!;
}

/** On the host: ids [seeds * fanout] with replacement, or {offsets, ids} without (the graph's own sample()). */
export function sampleNeighbors(
  g: HostGraph,
  seeds: Ids,
  fanout: number,
  opts: SampleOptions = {},
): {offsets?: Int32Array; ids: Int32Array} {
  return g.sample(seeds, fanout, opts);
}

/** @internal A host graph's sampler: the seeds read and checked, the graph's arrays sampled natively. */
export function sampleHostGraph(
  g: HostGraph,
  seeds: Ids,
  fanout: number,
  opts: SampleOptions,
  what: string,
): {offsets?: Int32Array; ids: Int32Array} {
  const ids = int32Ids(seeds, `${what}: seeds`);
  g.checked(what);
  checkSampleArgs(fanout, opts.seed ?? 0, ids.length);
  const {rowPtr, colIdx} = g.csrSource();
  return sampleOnHost(rowPtr, colIdx, g.numVertices, ids, fanout, opts, what);
}

/**
 * @internal Unique-and-relabel on the GPU through a graph's vertex map (relabelVertices): the distinct
 * vertices of dst (n at address dst) then ids (m at address ids), in first-occurrence order, so dst's
 * distinct vertices are their prefix; and each of ids' positions among them. Both tensors are the caller's.
 */
export function relabelOnGpu(
  b: WholeMemoryBackend,
  graph: {numVertices: number; vertexMap: VertexMap},
  dst: number,
  n: number,
  ids: number,
  m: number,
): {values: tf.Tensor1D; neighbors: tf.Tensor1D} {
  const valuesPtr = b.allocDevice(Math.max(n + m, 1) * 4);
  const out = b.makeDeviceOutput([m], 'int32');
  const neighbors = tf.engine().makeTensorFromTensorInfo(out.info) as tf.Tensor1D;
  let count: number;
  try {
    const map = graph.vertexMap.claim(b);
    count = graphNative().relabelVertices(dst, n, ids, m, graph.numVertices, map.address, map.stamp, valuesPtr, out.ptr);
  } catch (e) {
    b.freeDevice(valuesPtr);
    neighbors.dispose();
    throw e;
  }
  // The buffer holds room for every candidate; the tensor is its first `count`.
  const values = tf.engine().makeTensorFromTensorInfo(b.adoptBuffer([count], 'int32', {ptr: valuesPtr, bytes: count * 4})) as tf.Tensor1D;
  return {values, neighbors};
}

/**
 * @internal tf.unique(concat(dst, ids)) split into the distinct vertices and the ids' positions among them: on
 * the GPU one native pass over the graph's vertex map.
 */
export function relabel(
  graph: {numVertices: number; vertexMap: VertexMap},
  dst: tf.Tensor1D,
  ids: tf.Tensor1D,
): {values: tf.Tensor1D; neighbors: tf.Tensor1D} {
  const b = tf.backend();
  const n = dst.size + ids.size;
  if (!(b instanceof WholeMemoryBackend && b.gpu) || n === 0) {
    const {values, indices} = tf.tidy(() => tf.unique(tf.concat([dst, ids])));
    const neighbors = tf.slice(indices, [dst.size], [ids.size]);
    indices.dispose();
    return {values: values as tf.Tensor1D, neighbors};
  }
  return relabelOnGpu(b, graph, dst.size ? b.devicePtr(dst) : 0, dst.size, ids.size ? b.devicePtr(ids) : 0, ids.size);
}

/**
 * A graph holder's scratch for relabelling samples on the GPU (relabelVertices in wm/graph_ops.h): one
 * uint64 per vertex, a call's stamp above a position; all ones when new, each call's stamp one below the
 * last's, so a call never puts the map back. Allocated at the first use, freed with the graph.
 */
export class VertexMap {
  private ptr = 0;
  /** The stamp the next call claims with (below every stamp the map holds). */
  private stamp = 0;

  constructor(private readonly numVertices: number) {}

  /** The map's address and the stamp of a new call; after 2^32 - 2 calls the map is set back to all ones. */
  claim(b: WholeMemoryBackend): {address: number; stamp: number} {
    const n = Math.max(this.numVertices, 1);
    if (this.ptr === 0) this.ptr = b.allocDevice(n * 8);
    if (this.stamp === 0) {
      graphNative().fill(1 /* int32 */, this.ptr, 2 * n, -1);
      this.stamp = 0xfffffffe;
    }
    return {address: this.ptr, stamp: this.stamp--};
  }

  free(): void {
    if (this.ptr !== 0) (tf.backend() as WholeMemoryBackend).freeDevice(this.ptr);
    this.ptr = 0;
    this.stamp = 0;
  }
}

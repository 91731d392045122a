// Native uniform neighbour sampling (C++ on the CPU, CUDA on the GPU). The
// draws come from a counter-based hash of (seed, seed position, draw), so a
// call is reproducible and the CPU and the GPU return the same neighbours.
// (sampling.ts holds the plain TypeScript version the tests compare with.)
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {native} from '../backend/register';
import {CsrGraph} from './csr';

export interface SampleOptions {
  /** With replacement: exactly fanout per seed (a vertex without neighbours samples itself). */
  replace?: boolean;
  seed?: number;
  /**
   * 'position' (default): draws keyed by the seed's position in the call.
   * 'vertex': keyed by the seed vertex, so a vertex gets the same neighbours
   * whichever call or process samples it (exact data parallelism). CPU sampler only, for now.
   */
  keyBy?: 'position' | 'vertex';
}

function checkArgs(g: CsrGraph, fanout: number, seed: number): void {
  if (!Number.isInteger(fanout) || fanout < 0) throw new RangeError(`sampleNeighbors: fanout must be a non-negative integer, got ${fanout}`);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`sampleNeighbors: seed must be a non-negative integer, got ${seed}`);
  if (g.numEdges > 2 ** 31 - 1) throw new RangeError('sampleNeighbors: graphs past 2^31 edges need 64-bit offsets (not built yet)');
}

function keyByVertex(opts: SampleOptions): boolean {
  const k = opts.keyBy ?? 'position';
  if (k !== 'position' && k !== 'vertex') throw new RangeError(`sampleNeighbors: keyBy must be 'position' or 'vertex', got '${k}'`);
  return k === 'vertex';
}

/** The GPU samplers key draws by position only (for now). */
export function checkGpuKey(opts: SampleOptions, what: string): void {
  if (keyByVertex(opts)) throw new Error(`${what}: keyBy 'vertex' is not built for the GPU sampler yet; sample on the CPU (sampleNeighbors)`);
}

function badSeed(g: CsrGraph, seeds: ArrayLike<number>, at: number): RangeError {
  return new RangeError(`sampleNeighbors: seed vertex ${seeds[at]} at position ${at} is not in [0, ${g.numVertices})`);
}

/** On the host: ids [seeds * fanout] with replacement, or {offsets, ids} without. */
export function sampleNeighbors(g: CsrGraph, seeds: Int32Array, fanout: number, opts: SampleOptions = {}): {offsets?: Int32Array; ids: Int32Array} {
  const seed = opts.seed ?? 0;
  checkArgs(g, fanout, seed);
  const byVertex = keyByVertex(opts);
  if (opts.replace ?? true) {
    const ids = new Int32Array(seeds.length * fanout);
    const bad = native().hostSampleWithReplacement(g.rowPtr, g.colIdx, seeds, fanout, seed, ids, byVertex);
    if (bad >= 0) throw badSeed(g, seeds, bad);
    return {ids};
  }
  const offsets = new Int32Array(seeds.length + 1);
  let bad = native().hostSampleWithoutReplacement(g.rowPtr, g.colIdx, seeds, fanout, seed, offsets, null, byVertex);
  if (bad >= 0) throw badSeed(g, seeds, bad);
  const ids = new Int32Array(offsets[seeds.length]);
  bad = native().hostSampleWithoutReplacement(g.rowPtr, g.colIdx, seeds, fanout, seed, offsets, ids, byVertex);
  return {offsets, ids};
}

/** A CSR graph uploaded to the GPU once, sampled there. */
export class DeviceCsr {
  readonly rowPtr: tf.Tensor1D;
  readonly colIdx: tf.Tensor1D;

  constructor(readonly graph: CsrGraph) {
    this.rowPtr = tf.tensor1d(graph.rowPtr, 'int32');
    this.colIdx = tf.tensor1d(graph.colIdx.length ? graph.colIdx : new Int32Array(1), 'int32');
  }

  /** Seeds on the GPU in, sampled ids (and offsets without replacement) on the GPU out. */
  sample(seeds: tf.Tensor1D, fanout: number, opts: SampleOptions = {}): {offsets?: tf.Tensor1D; ids: tf.Tensor1D} {
    const b = tf.backend() as WholeMemoryBackend;
    if (!(b instanceof WholeMemoryBackend) || !b.gpu) throw new Error('DeviceCsr.sample needs the wholememory backend on a GPU');
    const seed = opts.seed ?? 0;
    checkArgs(this.graph, fanout, seed);
    checkGpuKey(opts, 'DeviceCsr.sample');
    if (seeds.dtype !== 'int32') throw new TypeError(`DeviceCsr.sample: seeds must be int32, got ${seeds.dtype}`);
    const n = seeds.size, nv = this.graph.numVertices;
    const rp = b.devicePtr(this.rowPtr), ci = b.devicePtr(this.colIdx), sp = n ? b.devicePtr(seeds) : 0;
    let out: {offsets?: tf.Tensor1D; ids: tf.Tensor1D} | undefined;
    const bad = b.withErrorFlag((flag) => {
      if (opts.replace ?? true) {
        const {info, ptr} = b.makeDeviceOutput([n * fanout], 'int32');
        b.native.sampleWithReplacement(rp, ci, nv, sp, n, fanout, seed, ptr, flag);
        out = {ids: tf.engine().makeTensorFromTensorInfo(info) as tf.Tensor1D};
      } else {
        // Two passes: sizes first (offsets[n] is the total), then the draws.
        const off = b.makeDeviceOutput([n + 1], 'int32');
        b.native.sampleWithoutReplacement(rp, ci, nv, sp, n, fanout, seed, off.ptr, 0, flag);
        const total = new Int32Array(1);
        b.native.download(off.ptr + 4 * n, total);
        const ids = b.makeDeviceOutput([total[0]], 'int32');
        b.native.sampleWithoutReplacement(rp, ci, nv, sp, n, fanout, seed, off.ptr, ids.ptr, flag);
        out = {offsets: tf.engine().makeTensorFromTensorInfo(off.info) as tf.Tensor1D,
               ids: tf.engine().makeTensorFromTensorInfo(ids.info) as tf.Tensor1D};
      }
    });
    if (bad >= 0) {
      tf.dispose([out!.ids, out!.offsets ?? []].flat());
      throw badSeed(this.graph, seeds.dataSync(), bad);
    }
    return out!;
  }

  dispose(): void {
    tf.dispose([this.rowPtr, this.colIdx]);
  }
}

function checkNegatives(g: CsrGraph, count: number, seed: number): void {
  if (g.numVertices < 2) throw new RangeError('sampleNegativePairs: the graph needs at least two vertices');
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`sampleNegativePairs: count must be a non-negative integer, got ${count}`);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`sampleNegativePairs: seed must be a non-negative integer, got ${seed}`);
}

function exhaustedError(n: number): Error {
  return new Error(`sampleNegativePairs: ${n} pair(s) found only edges in every try; the graph is too dense for negative sampling`);
}

/**
 * `count` uniform pairs u != v that are not edges (rows' neighbours must be
 * sorted, as CsrGraph.fromEdges makes them), drawn natively from a
 * counter-based hash: the CPU and DeviceCsr.negativePairs return the same pairs.
 */
export function sampleNegativePairs(g: CsrGraph, count: number, opts: {seed?: number} = {}): {src: Int32Array; dst: Int32Array} {
  const seed = opts.seed ?? 0;
  checkNegatives(g, count, seed);
  const src = new Int32Array(count), dst = new Int32Array(count);
  const exhausted = native().hostNegativePairs(g.rowPtr, g.colIdx, seed, src, dst);
  if (exhausted > 0) throw exhaustedError(exhausted);
  return {src, dst};
}

/** On the GPU: negative pairs as int32 tensors (see sampleNegativePairs). */
export function deviceNegativePairs(csr: DeviceCsr, count: number, opts: {seed?: number} = {}): {src: tf.Tensor1D; dst: tf.Tensor1D} {
  const b = tf.backend() as WholeMemoryBackend;
  if (!(b instanceof WholeMemoryBackend) || !b.gpu) throw new Error('deviceNegativePairs needs the wholememory backend on a GPU');
  const seed = opts.seed ?? 0;
  checkNegatives(csr.graph, count, seed);
  const src = b.makeDeviceOutput([count], 'int32'), dst = b.makeDeviceOutput([count], 'int32');
  const exhausted = count ? b.native.negativePairs(b.devicePtr(csr.rowPtr), b.devicePtr(csr.colIdx), csr.graph.numVertices, count, seed,
                                                   src.ptr, dst.ptr) : 0;
  const out = {src: tf.engine().makeTensorFromTensorInfo(src.info) as tf.Tensor1D, dst: tf.engine().makeTensorFromTensorInfo(dst.info) as tf.Tensor1D};
  if (exhausted > 0) {
    tf.dispose([out.src, out.dst]);
    throw exhaustedError(exhausted);
  }
  return out;
}

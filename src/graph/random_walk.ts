// Random walks for node embeddings (DeepWalk, node2vec), native on the CPU
// and the GPU: one walk per start vertex, every draw from a counter-based hash
// of (seed, walk, step), so a call is reproducible and the CPU and the GPU
// walk the same vertices (wm/random_walk.h).
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import type {HostInt32Source, RowPtrSource, WalkBias} from '../native/addon';
import {markValid, validRows} from '../backend/index_validation';
import {badSeed, launchForVertices} from './seeds';
import {graphNative} from '../native/domains';
import {Ids, int32Ids} from '../util/arrays';
import type {HostGraph} from './graph_store';

export interface WalkOptions {
  /** node2vec's return parameter: a step back to the previous vertex weighs 1/p (default 1). */
  p?: number;
  /** node2vec's in-out parameter: a step away from the previous vertex's neighbours weighs 1/q (default 1). */
  q?: number;
  seed?: number;
}

/** @internal The checked options as the kernels take them; `what` names the caller. */
export function walkBias(what: string, length: number, opts: WalkOptions): {bias: WalkBias; seed: number} {
  if (!Number.isInteger(length) || length < 1 || length > 2 ** 20) {
    throw new RangeError(`${what}: length (vertices per walk, the start included) must be an integer in [1, 2^20], got ${length}`);
  }
  const seed = opts.seed ?? 0;
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`${what}: seed must be a non-negative integer, got ${seed}`);
  const p = opts.p ?? 1,
    q = opts.q ?? 1;
  for (const [name, v] of [
    ['p', p],
    ['q', q],
  ] as const) {
    // The bounds keep 1/p and 1/q and their ratio finite and non-zero in float32.
    if (!(typeof v === 'number' && v >= 1e-6 && v <= 1e6))
      throw new RangeError(`${what}: ${name} must be a number in [1e-6, 1e6], got ${v}`);
  }
  const max = Math.max(1 / p, 1, 1 / q);
  return {bias: {back: 1 / p / max, near: 1 / max, far: 1 / q / max, uniform: p === 1 && q === 1}, seed};
}

/** @internal Whether opts ask for node2vec's second-order walks (which test edges, so need sorted rows). */
export function secondOrder(opts: WalkOptions): boolean {
  return (opts.p ?? 1) !== 1 || (opts.q ?? 1) !== 1;
}

/**
 * @internal Host walks as an int32 tensor [n, length], marked as vertex ids
 * of a graph of numVertices (lookups with them need no index check), as the
 * GPU's walks are.
 */
export function walkTensor(walks: Int32Array, length: number, numVertices: number): tf.Tensor2D {
  const t = tf.tensor2d(walks, [walks.length / length, length], 'int32');
  markValid(t, numVertices);
  return t;
}

/** @internal Walks over a graph's arrays on the host: [starts.length * length], row-major. */
export function walkOnHost(
  rowPtr: RowPtrSource,
  colIdx: HostInt32Source | null,
  numVertices: number,
  starts: Int32Array,
  length: number,
  opts: WalkOptions,
  what: string,
): Int32Array {
  const {bias, seed} = walkBias(what, length, opts);
  if (starts.length * length > 2 ** 31 - 1)
    throw new RangeError(`${what}: ${starts.length} starts x length ${length} is past the 2^31 - 1 vertices one call may return`);
  const out = new Int32Array(starts.length * length);
  const bad = graphNative().randomWalks(rowPtr, colIdx, numVertices, starts, starts.length, length, seed, bias, out, null) as number;
  if (bad >= 0) throw badSeed(what, numVertices, starts, bad);
  return out;
}

/**
 * @internal Walks over a graph's arrays at device addresses (int64 row offsets when wideOffsets, else
 * int32): an int32 tensor [starts.size, length].
 */
export function walkOnDevice(
  b: WholeMemoryBackend,
  rowPtr: number,
  colIdx: number,
  numVertices: number,
  starts: tf.Tensor1D,
  length: number,
  opts: WalkOptions,
  what: string,
  wideOffsets = false,
): tf.Tensor2D {
  const {bias, seed} = walkBias(what, length, opts);
  if (starts.dtype !== 'int32') throw new TypeError(`${what}: starts must be int32, got ${starts.dtype}`);
  if (starts.rank !== 1) throw new RangeError(`${what}: starts must be 1-D, got shape [${starts.shape}]`);
  const n = starts.size;
  const {info, ptr} = b.makeDeviceOutput([n, length], 'int32');
  const sp = n ? b.devicePtr(starts) : 0;
  const launch = (flag: number) =>
    graphNative().randomWalks(rowPtr, colIdx, numVertices, sp, n, length, seed, bias, ptr, flag, wideOffsets);
  const bad = launchForVertices(b, starts, numVertices, launch);
  const walks = tf.engine().makeTensorFromTensorInfo(info) as tf.Tensor2D;
  if (bad >= 0) {
    walks.dispose();
    throw badSeed(what, numVertices, starts.dataSync(), bad);
  }
  // Every entry is a vertex: lookups into a table of one row per vertex need no check (and no wait for the GPU).
  markValid(walks, numVertices);
  return walks;
}

/**
 * One walk from each start vertex, `length` vertices long (the start
 * first), on the host: an Int32Array [starts.length * length], walk i at
 * [i * length, (i + 1) * length). Uniform (DeepWalk) by default; p and q give
 * node2vec's second-order walks (rows must be sorted, as fromEdges makes
 * them). A vertex without neighbours keeps the walk where it is. The graph's
 * offsets may be int32 (a CsrGraph) or int64 (a NativeCsr, read in place).
 */
export function randomWalks(g: HostGraph, starts: Ids, length: number, opts: WalkOptions = {}): Int32Array {
  checkGraph(g, opts, 'randomWalks');
  const ids = int32Ids(starts, 'randomWalks: starts');
  const {rowPtr, colIdx} = g.csrSource();
  return walkOnHost(rowPtr, colIdx, g.numVertices, ids, length, opts, 'randomWalks');
}

/**
 * @internal Validates g (and, for node2vec's p and q, its row order) once; a NativeCsr's arrays were
 * checked when it was built or loaded.
 */
export function checkGraph(g: HostGraph, opts: WalkOptions, what: string): void {
  if (secondOrder(opts)) g.requireSortedRows(what);
  else g.checked(what);
}

/**
 * Skip-gram training pairs from walks [n, length]: (center, context) for
 * every two positions at most `window` apart, both directions, as int32
 * tensors on the walks' device — one native op (on other backends, tfjs
 * slices). Order: for each offset d the pairs (walk[s], walk[s + d]) row by
 * row, then the same pairs swapped.
 */
export function walkPairs(walks: tf.Tensor2D, window: number): {center: tf.Tensor1D; context: tf.Tensor1D} {
  if (walks.rank !== 2 || walks.dtype !== 'int32')
    throw new TypeError(`walkPairs: walks must be an int32 [n, length] tensor, got ${walks.dtype} [${walks.shape}]`);
  if (!Number.isInteger(window) || window < 1) throw new RangeError(`walkPairs: window must be a positive integer, got ${window}`);
  const [n, length] = walks.shape;
  let total = 0;
  for (let d = 1; d <= Math.min(window, length - 1); ++d) total += 2 * n * (length - d);
  const b = tf.backend();
  let pairs: {center: tf.Tensor1D; context: tf.Tensor1D};
  if (b instanceof WholeMemoryBackend && b.gpu) {
    const [center, context] = b.deviceOutputs(
      [[total], [total]],
      ([c, x]) => {
        if (total > 0) graphNative().walkPairs(b.devicePtr(walks), n, length, window, c, x);
      },
      'int32',
    ) as tf.Tensor1D[];
    pairs = {center, context};
  } else if (b instanceof WholeMemoryBackend && b.hostKernels) {
    const center = new Int32Array(total),
      context = new Int32Array(total);
    if (total > 0) graphNative().walkPairs(walks.dataSync() as Int32Array, n, length, window, center, context);
    pairs = {center: tf.tensor1d(center, 'int32'), context: tf.tensor1d(context, 'int32')};
  } else {
    pairs = pairsFromOps(walks, window);
  }
  // Pairs of checked vertex ids are checked too.
  const rows = validRows(walks);
  if (rows !== undefined) {
    markValid(pairs.center, rows);
    markValid(pairs.context, rows);
  }
  return pairs;
}

/** @internal walkPairs from tfjs slices (other backends; the tests' reference). */
export function pairsFromOps(walks: tf.Tensor2D, window: number): {center: tf.Tensor1D; context: tf.Tensor1D} {
  const [n, length] = walks.shape;
  return tf.tidy(() => {
    const centers: tf.Tensor[] = [],
      contexts: tf.Tensor[] = [];
    for (let d = 1; d <= Math.min(window, length - 1); ++d) {
      const left = tf.reshape(tf.slice(walks, [0, 0], [n, length - d]), [-1]);
      const right = tf.reshape(tf.slice(walks, [0, d], [n, length - d]), [-1]);
      centers.push(left, right);
      contexts.push(right, left);
    }
    if (centers.length === 0) return {center: tf.zeros([0], 'int32') as tf.Tensor1D, context: tf.zeros([0], 'int32') as tf.Tensor1D};
    return {center: tf.concat(centers) as tf.Tensor1D, context: tf.concat(contexts) as tf.Tensor1D};
  });
}

/**
 * `count` uniform vertex ids in [0, numVertices) (skip-gram negatives) as an
 * int32 tensor, drawn natively on the backend's device from a counter-based
 * hash of (seed, position): the CPU and the GPU return the same ids.
 */
export function randomVertices(count: number, numVertices: number, opts: {seed?: number} = {}): tf.Tensor1D {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`randomVertices: count must be a non-negative integer, got ${count}`);
  if (!Number.isInteger(numVertices) || numVertices < 1 || numVertices > 2 ** 31 - 1) {
    throw new RangeError(`randomVertices: numVertices must be an integer in [1, 2^31), got ${numVertices}`);
  }
  const seed = opts.seed ?? 0;
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`randomVertices: seed must be a non-negative integer, got ${seed}`);
  const b = tf.backend();
  let out: tf.Tensor1D;
  if (b instanceof WholeMemoryBackend && b.gpu) {
    const {info, ptr} = b.makeDeviceOutput([count], 'int32');
    graphNative().randomVertices(count, numVertices, seed, ptr);
    out = tf.engine().makeTensorFromTensorInfo(info) as tf.Tensor1D;
  } else {
    const ids = new Int32Array(count);
    graphNative().randomVertices(count, numVertices, seed, ids);
    out = tf.tensor1d(ids, 'int32');
  }
  markValid(out, numVertices);
  return out;
}

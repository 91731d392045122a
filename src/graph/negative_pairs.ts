// Negative pairs for link prediction: uniform pairs u != v that are not edges, drawn natively from a
// counter-based hash (wm/graph_ops.h), so the CPU and the GPU return the same pairs, over int32 offsets
// (a CsrGraph) or int64 ones (a NativeCsr) alike. Edge tests search rows by bisection: rows must be sorted.
import {graphNative} from '../native/domains';
import type {HostGraph} from './graph_store';

/** @internal The checks of both places; the graph's rows must be sorted. */
export function checkNegatives(g: HostGraph, count: number, seed: number): void {
  g.requireSortedRows('sampleNegativePairs');
  if (g.numVertices < 2) throw new RangeError('sampleNegativePairs: the graph needs at least two vertices');
  if (!Number.isInteger(count) || count < 0)
    throw new RangeError(`sampleNegativePairs: count must be a non-negative integer, got ${count}`);
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new RangeError(`sampleNegativePairs: seed must be a non-negative integer, got ${seed}`);
}

/** @internal */
export function exhaustedError(n: number): Error {
  return new Error(`sampleNegativePairs: ${n} pair(s) found only edges in every try; the graph is too dense for negative sampling`);
}

/**
 * `count` uniform pairs u != v that are not edges (rows' neighbours must be sorted, as
 * CsrGraph.fromEdges and NativeCsr's builders make them), on the host: DeviceCsr's
 * deviceNegativePairs returns the same pairs.
 */
export function sampleNegativePairs(g: HostGraph, count: number, opts: {seed?: number} = {}): {src: Int32Array; dst: Int32Array} {
  const seed = opts.seed ?? 0;
  checkNegatives(g, count, seed);
  const src = new Int32Array(count),
    dst = new Int32Array(count);
  const {rowPtr, colIdx} = g.csrSource();
  const exhausted = graphNative().negativePairs(rowPtr, colIdx, g.numVertices, count, seed, src, dst);
  if (exhausted > 0) throw exhaustedError(exhausted);
  return {src, dst};
}

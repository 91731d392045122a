// Edge splits and negatives for link prediction: held-out positive edges,
// and negative pairs (u, v) drawn uniformly among non-edges.
import {randInt, Rng, shuffle} from '../util/random';
import {CsrGraph} from './csr';

export interface EdgePairs {
  src: Int32Array;
  dst: Int32Array;
}

export interface LinkSplit {
  /** The graph of training edges only (undirected). */
  train: CsrGraph;
  trainEdges: EdgePairs;
  valEdges: EdgePairs;
  testEdges: EdgePairs;
  valNegatives: EdgePairs;
  testNegatives: EdgePairs;
}

function hasEdge(g: CsrGraph, u: number, v: number): boolean {
  const nb = g.neighbors(u);
  let lo = 0,
    hi = nb.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (nb[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo < nb.length && nb[lo] === v;
}

/** `count` uniform pairs u != v that are not edges of `g`. */
export function sampleNegatives(g: CsrGraph, count: number, rng: Rng): EdgePairs {
  const n = g.numVertices;
  if (n < 2) throw new RangeError('sampleNegatives: the graph needs at least two vertices');
  const src = new Int32Array(count),
    dst = new Int32Array(count);
  for (let i = 0; i < count; ++i) {
    let u: number,
      v: number,
      tries = 0;
    do {
      u = randInt(rng, n);
      v = randInt(rng, n);
      if (++tries > 1000) throw new Error('sampleNegatives: the graph is too dense to find non-edges');
    } while (u === v || hasEdge(g, u, v));
    src[i] = u;
    dst[i] = v;
  }
  return {src, dst};
}

/** Splits the undirected edges of `g` (u < v) into train / validation / test. */
export function splitEdges(g: CsrGraph, valFraction: number, testFraction: number, rng: Rng, numNegatives?: number): LinkSplit {
  // Each undirected edge once (u < v), into typed arrays sized by a first pass.
  const {rowPtr, colIdx} = g;
  let count = 0;
  for (let u = 0; u < g.numVertices; ++u) for (let e = rowPtr[u]; e < rowPtr[u + 1]; ++e) if (u < colIdx[e]) ++count;
  const us = new Int32Array(count),
    vs = new Int32Array(count);
  count = 0;
  for (let u = 0; u < g.numVertices; ++u) {
    for (let e = rowPtr[u]; e < rowPtr[u + 1]; ++e) {
      if (u < colIdx[e]) {
        us[count] = u;
        vs[count++] = colIdx[e];
      }
    }
  }
  const order = shuffle(
    Int32Array.from({length: us.length}, (_, i) => i),
    rng,
  );
  const nVal = Math.round(us.length * valFraction),
    nTest = Math.round(us.length * testFraction);
  const pick = (from: number, to: number): EdgePairs => ({
    src: Int32Array.from(order.subarray(from, to), (i) => us[i]),
    dst: Int32Array.from(order.subarray(from, to), (i) => vs[i]),
  });
  const valEdges = pick(0, nVal),
    testEdges = pick(nVal, nVal + nTest),
    trainEdges = pick(nVal + nTest, us.length);
  const train = CsrGraph.fromEdges(
    {numVertices: g.numVertices, src: trainEdges.src, dst: trainEdges.dst, directed: false},
    {symmetric: true},
  );
  // Negatives are non-edges of the whole graph, so held-out positives never count as negatives.
  return {
    train,
    trainEdges,
    valEdges,
    testEdges,
    valNegatives: sampleNegatives(g, numNegatives ?? nVal, rng),
    testNegatives: sampleNegatives(g, numNegatives ?? nTest, rng),
  };
}

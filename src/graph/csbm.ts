// The contextual stochastic block model, the standard synthetic benchmark
// for GNNs (Deshpande et al., 2018; Chien et al., 2021): a planted partition
// into classes, edges within a class with probability set by `homophily`,
// and Gaussian features around a mean per class. Seeded: the same options
// give the same graph.
import * as os from 'os';

import {checkSeed, Rng, randInt, seededRng} from '../util/random';
import {graphNative} from '../native/domains';
import {CsrGraph} from './csr';
import {checkBuild, NativeCsr} from './native_csr';
import {NodeClassificationData} from './node_data';

export interface CsbmOptions {
  vertices: number;
  classes: number;
  /** Feature width; 0 for a graph without features. Default 0. */
  features?: number;
  /** Mean degree. Default 10. */
  degree?: number;
  /** Share of edges inside a class (1: every edge, 1/classes: no class structure). Default 0.8. */
  homophily?: number;
  /** Distance between a class mean and the origin, in units of the features' noise. Default 1. */
  signal?: number;
  seed?: number;
}

const MAX_VERTICES = 2 ** 31 - 1;
const MAX_ENTRIES = 2 ** 31 - 1;
const gib = (b: number) => `${(b / 2 ** 30).toFixed(1)} GiB`;

function gaussian(rng: Rng): number {
  // Box-Muller; 1 - u keeps the log finite.
  return Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}

/** The options with their defaults, checked (both generators). */
function csbmParams(options: CsbmOptions) {
  const n = options.vertices,
    c = options.classes;
  const f = options.features ?? 0,
    degree = options.degree ?? 10,
    h = options.homophily ?? 0.8,
    signal = options.signal ?? 1;
  if (!Number.isInteger(n) || n < 10 || n > MAX_VERTICES)
    throw new RangeError(`csbm: vertices must be an integer in [10, ${MAX_VERTICES}], got ${n}`);
  if (!Number.isInteger(c) || c < 2 || c > n) throw new RangeError(`csbm: classes must be an integer in [2, vertices], got ${c}`);
  if (!Number.isInteger(f) || f < 0) throw new RangeError(`csbm: features must be a non-negative integer, got ${f}`);
  if (!(degree > 0 && degree < n)) throw new RangeError(`csbm: degree must be in (0, vertices), got ${degree}`);
  if (!(h >= 0 && h <= 1)) throw new RangeError(`csbm: homophily must be in [0, 1], got ${h}`);
  if (!(signal >= 0 && signal < Infinity)) throw new RangeError(`csbm: signal must be a finite non-negative number, got ${signal}`);
  const seed = checkSeed('csbm', options.seed ?? 1);
  return {n, c, f, degree, h, signal, seed};
}

/** @internal Class means of length `signal` in random directions [classes][features]. */
export function classMeans(rng: Rng, c: number, f: number, signal: number): Float64Array[] {
  return Array.from({length: c}, () => {
    const v = Float64Array.from({length: f}, () => gaussian(rng));
    let squares = 0;
    for (const x of v) squares += x * x;
    const norm = Math.sqrt(squares) || 1;
    return v.map((x) => (x / norm) * signal);
  });
}

function csbmName(p: ReturnType<typeof csbmParams>): string {
  return `csbm(${p.n} vertices, ${p.c} classes, degree ${p.degree}, homophily ${p.h}${p.f ? `, ${p.f} features, signal ${p.signal}` : ''})`;
}

export function csbm(options: CsbmOptions): NodeClassificationData {
  const p = csbmParams(options);
  const {n, c, f, degree, h, seed} = p;
  // Both directions of every edge are CSR entries with int32 offsets.
  if (n * degree > MAX_ENTRIES)
    throw new RangeError(`csbm: vertices x degree is ${n * degree}, past the ${MAX_ENTRIES} edge entries a graph may hold here`);
  // What the graph, its features and the generator's working arrays take, before any is made.
  const bytes = 32 * n + 24 * n * degree + 4 * n * f;
  const budget = os.totalmem() / 2;
  if (bytes > budget) {
    throw new RangeError(
      `csbm: ${n} vertices of degree ${degree}${f ? ` with ${f} features` : ''} need about ${gib(bytes)} of host memory; ` +
        `this machine allows ${gib(budget)} (half of its ${gib(os.totalmem())})`,
    );
  }
  const rng = seededRng(seed);
  // Classes of near-equal size, in random order.
  const labels = Int32Array.from({length: n}, (_, v) => v % c);
  for (let i = n - 1; i > 0; --i) {
    const j = randInt(rng, i + 1);
    [labels[i], labels[j]] = [labels[j], labels[i]];
  }
  // Each class's vertices, contiguous in one typed array (JavaScript arrays stop near 2^27 entries).
  const start = new Float64Array(c + 1);
  for (let v = 0; v < n; ++v) ++start[labels[v] + 1];
  for (let y = 0; y < c; ++y) start[y + 1] += start[y];
  const members = new Int32Array(n);
  const fill = start.slice(0, c);
  for (let v = 0; v < n; ++v) members[fill[labels[v]]++] = v;
  // m undirected edges: a uniform source, then a target in its class with probability h, else outside it.
  const m = Math.round((n * degree) / 2);
  const src = new Int32Array(m),
    dst = new Int32Array(m);
  for (let e = 0; e < m; ++e) {
    const u = randInt(rng, n);
    let v: number;
    if (rng() < h) {
      const y = labels[u];
      v = members[start[y] + randInt(rng, start[y + 1] - start[y])];
    } else {
      do v = randInt(rng, n);
      while (labels[v] === labels[u]);
    }
    src[e] = u;
    dst[e] = v;
  }
  const graph = CsrGraph.fromEdges({numVertices: n, src, dst, directed: false}, {symmetric: true});
  let features: NodeClassificationData['features'];
  if (f > 0) {
    // Class means of length `signal` in random directions; unit Gaussian noise per coordinate.
    const means = classMeans(rng, c, f, p.signal);
    const values = new Float32Array(n * f);
    for (let v = 0; v < n; ++v) for (let k = 0; k < f; ++k) values[v * f + k] = means[labels[v]][k] + gaussian(rng);
    features = {values, dim: f, source: 'csbm', stored: 'float32'};
  }
  return {
    name: csbmName(p),
    graph,
    labels,
    numClasses: c,
    classNames: Array.from({length: c}, (_, i) => `class ${i}`),
    originalIds: Int32Array.from({length: n}, (_, i) => i),
    features,
  };
}

/** A CSBM drawn natively: the graph in native memory, features made on demand a block of rows at a time. */
export interface NativeCsbm {
  name: string;
  graph: NativeCsr;
  labels: Int32Array;
  numClasses: number;
  /** Feature width (0: none). */
  featureDim: number;
  /** Rows [first, first + count) of the features, row-major (the same rows whatever the blocks asked for). */
  featureRows(first: number, count: number): Float32Array;
}

/**
 * The model of csbm() drawn by native code in parallel, for graphs of any size (past 2^31 CSR entries
 * too): every label, edge and feature comes from a hash of the seed and its index, so a seed gives one
 * graph whatever the thread count. Labels are uniform per vertex (classes of near-equal size, not exactly
 * equal); it is not the same graph as csbm() draws for the same seed. Features are never held whole:
 * featureRows makes any block of them, for a table to take a block at a time.
 */
export function csbmNative(options: CsbmOptions): NativeCsbm {
  const p = csbmParams(options);
  const {n, c, f, degree, h, seed} = p;
  const edges = Math.round((n * degree) / 2);
  checkBuild(`csbm (${n} vertices of degree ${degree})`, {edges, vertices: n, symmetric: true, edgeArrays: true});
  const labels = new Int32Array(n);
  const graph = NativeCsr.adopt(graphNative().graphCsbm(n, c, degree, h, seed, labels));
  const means = new Float32Array(c * f);
  classMeans(seededRng(seed), c, f, p.signal).forEach((mean, y) => means.set(mean, y * f));
  return {
    name: `native ${csbmName(p)}`,
    graph,
    labels,
    numClasses: c,
    featureDim: f,
    featureRows: (first, count) => {
      if (!Number.isInteger(first) || !Number.isInteger(count) || first < 0 || count < 0 || first + count > n)
        throw new RangeError(`csbm.featureRows: rows [${first}, ${first + count}) must lie in [0, ${n})`);
      const out = new Float32Array(count * f);
      if (f > 0 && count > 0) graphNative().csbmFeatures(n, c, degree, h, seed, labels, means, f, first, count, out);
      return out;
    },
  };
}

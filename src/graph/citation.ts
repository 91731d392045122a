// Citation-like graphs: what the standard small GNN benchmarks look like
// (a few thousand papers, sparse binary bag-of-words features, a handful of
// classes, 20 labels per class with 500 for validation and 1,000 for test),
// generated so defaults can be judged on a family of them rather than on one
// graph. Each class has a topic (a share of the vocabulary with Zipf
// weights); a paper's words come from its topic with probability
// `wordSignal`, else from the whole vocabulary's Zipf background. Degrees
// are skewed (each paper draws a Pareto weight); an edge joins papers of one
// class with probability `homophily`. Seeded: the same options give the same
// graph.
//
// Features are stored as dense float32 rows: at these sizes a [2708, 1433]
// table is 15.5 MB, and the embedding kernels gather dense rows; the ~20
// words per paper would take 0.2 MB as (row, word) pairs.
import * as os from 'os';

import {checkSeed, Rng, randInt, seededRng} from '../util/random';
import {CsrGraph} from './csr';
import {NodeClassificationData} from './node_data';
import {planetoidSplit} from './split';

export interface CitationOptions {
  /** Papers. Default 2708. */
  vertices?: number;
  /** Default 7. */
  classes?: number;
  /** Vocabulary size. Default 1433. */
  words?: number;
  /** Mean distinct words per paper. Default 18. */
  wordsPerVertex?: number;
  /** Share of a paper's words drawn from its class's topic (the rest: background). Default 0.16 (features alone then classify about 58 % right, as on the real benchmark). */
  wordSignal?: number;
  /** Share of the vocabulary in each class's topic. Default 0.1. */
  topicShare?: number;
  /** Mean degree. Default 3.9. */
  degree?: number;
  /** Share of edges inside a class. Default 0.8. */
  homophily?: number;
  /** Training labels per class, validation and test vertices (the Planetoid split). Defaults 20, 500, 1000. */
  labelsPerClass?: number;
  validation?: number;
  test?: number;
  seed?: number;
}

/** Weights w_i ∝ 1 / (i + 1) over `n` items, as a cumulative table. */
function zipfCumulative(n: number): Float64Array {
  const c = new Float64Array(n);
  let s = 0;
  for (let i = 0; i < n; ++i) c[i] = s += 1 / (i + 1);
  return c;
}

/** Index drawn by a cumulative weight table (binary search). */
function drawCumulative(c: Float64Array, rng: Rng, from = 0, to = c.length): number {
  const base = from > 0 ? c[from - 1] : 0;
  const x = base + rng() * (c[to - 1] - base);
  let lo = from,
    hi = to - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (c[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function poisson(mean: number, rng: Rng): number {
  // Knuth's method: the means here are small.
  const limit = Math.exp(-mean);
  let k = 0,
    p = rng();
  while (p > limit) {
    ++k;
    p *= rng();
  }
  return k;
}

export function citationGraph(options: CitationOptions = {}): NodeClassificationData {
  const n = options.vertices ?? 2708,
    c = options.classes ?? 7,
    words = options.words ?? 1433;
  const perVertex = options.wordsPerVertex ?? 18,
    signal = options.wordSignal ?? 0.16,
    topicShare = options.topicShare ?? 0.1,
    degree = options.degree ?? 3.9,
    h = options.homophily ?? 0.8;
  const perClass = options.labelsPerClass ?? 20,
    nVal = options.validation ?? 500,
    nTest = options.test ?? 1000;
  const int = (name: string, v: number, min: number, max: number) => {
    if (!Number.isInteger(v) || v < min || v > max)
      throw new RangeError(`citationGraph: ${name} must be an integer in [${min}, ${max}], got ${v}`);
  };
  const share = (name: string, v: number) => {
    if (!(v >= 0 && v <= 1)) throw new RangeError(`citationGraph: ${name} must be in [0, 1], got ${v}`);
  };
  int('vertices', n, 10, 2 ** 31 - 1);
  int('classes', c, 2, n);
  int('words', words, 1, 2 ** 20);
  share('wordSignal', signal);
  share('topicShare', topicShare);
  share('homophily', h);
  if (!(perVertex > 0 && perVertex <= words)) throw new RangeError(`citationGraph: wordsPerVertex must be in (0, words], got ${perVertex}`);
  if (!(degree > 0 && degree < n)) throw new RangeError(`citationGraph: degree must be in (0, vertices), got ${degree}`);
  int('labelsPerClass', perClass, 1, n);
  int('validation', nVal, 0, n);
  int('test', nTest, 1, n);
  if (perClass * c + nVal + nTest > n)
    throw new RangeError(
      `citationGraph: ${perClass} labels x ${c} classes + ${nVal} validation + ${nTest} test is more than the ${n} vertices`,
    );
  const bytes = 4 * n * words + 40 * n * degree + 40 * n;
  if (bytes > os.totalmem() / 2) {
    throw new RangeError(
      `citationGraph: ${n} vertices x ${words} words need about ${(bytes / 2 ** 30).toFixed(1)} GiB of host memory; too much here`,
    );
  }
  const rng = seededRng(checkSeed('citationGraph', options.seed ?? 1));

  // Classes of Zipf-like sizes (real benchmarks' classes are unequal): each paper draws one, the first
  // c papers one class each so that none is empty.
  const classWeights = Float64Array.from({length: c}, (_, i) => (1 / (i + 1)) ** 0.5);
  const labels = new Int32Array(n);
  const cumClass = new Float64Array(c);
  classWeights.reduce((s, w, i) => (cumClass[i] = s + w), 0);
  for (let v = 0; v < n; ++v) labels[v] = v < c ? v : drawCumulative(cumClass, rng);

  // Topics: each class's words, a random share of the vocabulary, Zipf-weighted in a random order.
  const topicSize = Math.max(1, Math.round(topicShare * words));
  const topics = Array.from({length: c}, () => {
    const ids = Int32Array.from({length: words}, (_, i) => i);
    for (let i = 0; i < topicSize; ++i) {
      const j = i + randInt(rng, words - i);
      [ids[i], ids[j]] = [ids[j], ids[i]];
    }
    return ids.slice(0, topicSize);
  });
  const topicCum = zipfCumulative(topicSize);
  // The background: the whole vocabulary, Zipf over a random order (common words are common to every class).
  const background = Int32Array.from({length: words}, (_, i) => i);
  for (let i = words - 1; i > 0; --i) {
    const j = randInt(rng, i + 1);
    [background[i], background[j]] = [background[j], background[i]];
  }
  const backgroundCum = zipfCumulative(words);
  const values = new Float32Array(n * words);
  for (let v = 0; v < n; ++v) {
    const k = Math.min(words, 1 + poisson(perVertex - 1, rng));
    const row = v * words;
    for (let placed = 0, tries = 0; placed < k && tries < 20 * k; ++tries) {
      const w = rng() < signal ? topics[labels[v]][drawCumulative(topicCum, rng)] : background[drawCumulative(backgroundCum, rng)];
      if (values[row + w] === 0) {
        values[row + w] = 1;
        ++placed;
      }
    }
  }

  // Skewed degrees: a Pareto weight per paper; endpoints drawn by weight, inside the class with probability h.
  const weight = Float64Array.from({length: n}, () => (1 - rng()) ** (-1 / 2.5));
  const byClass = Int32Array.from({length: n}, (_, i) => i).sort((a, b) => labels[a] - labels[b] || a - b);
  const classStart = new Int32Array(c + 1);
  for (let v = 0; v < n; ++v) ++classStart[labels[v] + 1];
  for (let y = 0; y < c; ++y) classStart[y + 1] += classStart[y];
  // Cumulative weights in class order: a class's vertices are the range [classStart[y], classStart[y + 1]).
  const cumByClass = new Float64Array(n);
  byClass.reduce((s, v, i) => (cumByClass[i] = s + weight[v]), 0);
  const cumAll = new Float64Array(n);
  weight.reduce((s, w, i) => (cumAll[i] = s + w), 0);
  const m = Math.round((n * degree) / 2);
  const src = new Int32Array(m),
    dst = new Int32Array(m);
  for (let e = 0; e < m; ++e) {
    let u: number, v: number;
    do {
      u = drawCumulative(cumAll, rng);
      const y = labels[u];
      if (rng() < h) {
        v = byClass[drawCumulative(cumByClass, rng, classStart[y], classStart[y + 1])];
      } else {
        do v = drawCumulative(cumAll, rng);
        while (labels[v] === y && c > 1);
      }
    } while (u === v);
    src[e] = u;
    dst[e] = v;
  }
  const graph = CsrGraph.fromEdges({numVertices: n, src, dst, directed: false}, {symmetric: true});
  const split = planetoidSplit(labels, c, perClass, nVal, nTest, rng);
  return {
    name:
      `citation-like(${n} vertices, ${c} classes, ${words} words, ${perVertex} per vertex, word signal ${signal}, ` +
      `degree ${degree}, homophily ${h})`,
    graph,
    labels,
    numClasses: c,
    classNames: Array.from({length: c}, (_, i) => `class ${i}`),
    originalIds: Int32Array.from({length: n}, (_, i) => i),
    features: {values, dim: words, source: 'citationGraph', stored: 'float32'},
    split,
  };
}

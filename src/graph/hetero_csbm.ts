// A typed graph whose labels depend on which relation links two vertices (a heterogeneous contextual
// stochastic block model, seeded): papers of `classes` classes with weak features (class means plus
// noise); `agrees` joins papers of one class, `answers` joins a paper to papers of the next class
// ((y + 1) mod classes); authors each of one class write papers of their class. A model that ignores
// types averages `agrees` and `answers` neighbours together and mixes two classes; a relational model
// reads each relation on its own. Drawn here in script: sizes for tests and examples.
import {HeteroGraph} from './hetero_graph';
import {randInt, seededRng} from '../util/random';
import {randomSplit} from './split';

export interface HeteroCsbmOptions {
  papers?: number;
  authors?: number;
  classes?: number;
  /** Feature width and signal: features are signal * (class mean) + standard normal noise. */
  dim?: number;
  signal?: number;
  /** Edges per paper in each paper relation, and papers per author. */
  degree?: number;
  seed?: number;
}

export function heteroCsbm(o: HeteroCsbmOptions = {}): HeteroGraph {
  const papers = o.papers ?? 2000,
    authors = o.authors ?? 500,
    classes = o.classes ?? 4,
    dim = o.dim ?? 16,
    signal = o.signal ?? 0.3,
    degree = o.degree ?? 4;
  for (const [k, v, min] of [
    ['papers', papers, classes],
    ['authors', authors, 1],
    ['classes', classes, 2],
    ['dim', dim, 1],
    ['degree', degree, 1],
  ] as const) {
    if (!Number.isInteger(v) || v < min) throw new RangeError(`heteroCsbm: ${k} must be an integer >= ${min}, got ${v}`);
  }
  const rng = seededRng((o.seed ?? 0) * 7 + 3);
  const label = Int32Array.from({length: papers}, (_, i) => i % classes);
  const byClass = Array.from({length: classes}, (_, c) =>
    Int32Array.from({length: Math.ceil((papers - c) / classes)}, (_, k) => c + k * classes),
  );
  const pick = (c: number) => byClass[c][randInt(rng, byClass[c].length)];
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
  const means = Array.from({length: classes}, () => Float32Array.from({length: dim}, gauss));
  const values = new Float32Array(papers * dim);
  for (let p = 0; p < papers; ++p) for (let j = 0; j < dim; ++j) values[p * dim + j] = signal * means[label[p]][j] + gauss();
  const pairs = (n: number, f: (i: number) => [number, number]) => {
    const src = new Int32Array(n),
      dst = new Int32Array(n);
    for (let i = 0; i < n; ++i) [src[i], dst[i]] = f(i);
    return {src, dst};
  };
  const agrees = pairs(papers * degree, (i) => [pick(label[i % papers]), i % papers]);
  const answers = pairs(papers * degree, (i) => [pick((label[i % papers] + 1) % classes), i % papers]);
  const authorClass = Int32Array.from({length: authors}, (_, a) => a % classes);
  const writes = pairs(authors * degree, (i) => [i % authors, pick(authorClass[i % authors])]);
  const split = randomSplit(papers, 0.5, 0.25, rng);
  return HeteroGraph.fromEdges(
    {paper: papers, author: authors},
    [
      {type: ['paper', 'agrees', 'paper'], edges: agrees},
      {type: ['paper', 'answers', 'paper'], edges: answers},
      {type: ['author', 'writes', 'paper'], edges: writes},
      {type: ['paper', 'rev_writes', 'author'], edges: {src: writes.dst, dst: writes.src}},
    ],
    {features: {paper: {values, dim}}, labels: {type: 'paper', labels: label, numClasses: classes, split}},
  );
}

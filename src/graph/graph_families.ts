// Generated graph classification data: each graph drawn from one of up to four random-graph families of the
// same size range and mean degree, its class the family, so only the structure tells the classes apart:
// Erdős–Rényi (Poisson degrees), a ring lattice with a few rewired edges (Watts–Strogatz: near-regular
// degrees, many triangles), preferential attachment (Barabási–Albert: a few hubs), two dense communities
// joined by a few edges. Vertex features carry no class: a constant column and `noise` Gaussian columns (and,
// with `signal`, a column whose mean moves with the class), so the edge-blind baseline stays near chance.
import {checkSeed, Rng, seededRng} from '../util/random';
import type {SmallGraph} from './graph_batch';

export interface GraphFamiliesOptions {
  graphs: number;
  /** Families used, in the order above (2..4). */
  classes: number;
  /** Each graph's vertex count, drawn uniformly from [minVertices, maxVertices]. */
  minVertices: number;
  maxVertices: number;
  /** Mean degree (an even number of ring neighbours; two edges a new vertex in preferential attachment). */
  degree: number;
  /** Gaussian feature columns beside the constant one. */
  noise: number;
  /** A feature column's class-dependent mean shift (0: none). */
  signal: number;
  seed: number;
}

export const DEFAULT_GRAPH_FAMILIES: GraphFamiliesOptions = {
  graphs: 600,
  classes: 3,
  minVertices: 12,
  maxVertices: 30,
  degree: 4,
  noise: 2,
  signal: 0,
  seed: 0,
};

/** The graphs (each with its features and label) and the feature width. */
export function graphFamilies(given: Partial<GraphFamiliesOptions> = {}): {graphs: SmallGraph[]; numClasses: number; dim: number} {
  const o = {...DEFAULT_GRAPH_FAMILIES, ...given};
  const int = (v: number, name: string, min: number, max = Infinity) => {
    if (!Number.isInteger(v) || v < min || v > max)
      throw new RangeError(`graphFamilies: ${name} must be an integer in [${min}, ${max === Infinity ? '∞' : max}], got ${v}`);
  };
  int(o.graphs, 'graphs', 1, 10_000_000);
  int(o.classes, 'classes', 2, 4);
  int(o.minVertices, 'minVertices', 4, 100_000);
  int(o.maxVertices, 'maxVertices', o.minVertices, 100_000);
  int(o.degree, 'degree', 2, o.minVertices - 2);
  int(o.noise, 'noise', 0, 1024);
  if (!Number.isFinite(o.signal)) throw new RangeError(`graphFamilies: signal must be a finite number, got ${o.signal}`);
  const rng = seededRng(checkSeed('graphFamilies', o.seed) * 7919 + 3);
  const dim = 1 + o.noise + (o.signal ? 1 : 0);
  const graphs: SmallGraph[] = [];
  for (let g = 0; g < o.graphs; ++g) {
    const label = g % o.classes;
    const n = o.minVertices + Math.floor(rng() * (o.maxVertices - o.minVertices + 1));
    const edges = [erdosRenyi, smallWorld, preferentialAttachment, twoCommunities][label](n, o.degree, rng);
    const features = new Float32Array(n * dim);
    for (let v = 0; v < n; ++v) {
      features[v * dim] = 1;
      for (let k = 1; k <= o.noise; ++k) features[v * dim + k] = gaussian(rng);
      if (o.signal) features[v * dim + dim - 1] = gaussian(rng) + o.signal * label;
    }
    graphs.push({numVertices: n, src: edges.src, dst: edges.dst, features, label});
  }
  return {graphs, numClasses: o.classes, dim};
}

type Edges = {src: number[]; dst: number[]};

function gaussian(rng: Rng): number {
  return Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}

// Undirected edges, each once (u < v), no self loops or repeats.
function edgeSet(): {add(u: number, v: number): boolean; edges: Edges} {
  const seen = new Set<number>();
  const edges: Edges = {src: [], dst: []};
  return {
    add(u, v) {
      if (u === v) return false;
      const [a, b] = u < v ? [u, v] : [v, u];
      const key = a * 1_000_003 + b;
      if (seen.has(key)) return false;
      seen.add(key);
      edges.src.push(a);
      edges.dst.push(b);
      return true;
    },
    edges,
  };
}

function erdosRenyi(n: number, degree: number, rng: Rng): Edges {
  const s = edgeSet();
  const p = degree / (n - 1);
  for (let u = 0; u < n; ++u) for (let v = u + 1; v < n; ++v) if (rng() < p) s.add(u, v);
  return s.edges;
}

// Each vertex joined to its degree / 2 nearest on either side of a ring; a tenth of the edges rewired.
function smallWorld(n: number, degree: number, rng: Rng): Edges {
  const s = edgeSet();
  const half = Math.max(1, Math.floor(degree / 2));
  for (let u = 0; u < n; ++u)
    for (let k = 1; k <= half; ++k) {
      const v = rng() < 0.1 ? Math.floor(rng() * n) : (u + k) % n;
      if (!s.add(u, v)) s.add(u, (u + k) % n);
    }
  return s.edges;
}

// Each new vertex joins degree / 2 earlier ones, drawn in proportion to their degree.
function preferentialAttachment(n: number, degree: number, rng: Rng): Edges {
  const s = edgeSet();
  const m = Math.max(1, Math.floor(degree / 2));
  const ends: number[] = [];
  for (let u = 0; u <= m; ++u) for (let v = u + 1; v <= m; ++v) if (s.add(u, v)) ends.push(u, v);
  for (let u = m + 1; u < n; ++u) {
    for (let tries = 0, made = 0; made < m && tries < 20 * m; ++tries) {
      const v = ends[Math.floor(rng() * ends.length)];
      if (s.add(u, v)) {
        ends.push(u, v);
        ++made;
      }
    }
  }
  return s.edges;
}

// Two halves, dense inside (the mean degree's edges, nearly all), one or two edges between.
function twoCommunities(n: number, degree: number, rng: Rng): Edges {
  const s = edgeSet();
  const half = Math.floor(n / 2);
  const side = (v: number) => (v < half ? 0 : 1);
  const pIn = Math.min(1, degree / Math.max(1, half - 1));
  for (let u = 0; u < n; ++u) for (let v = u + 1; v < n; ++v) if (side(u) === side(v) && rng() < pIn) s.add(u, v);
  const bridges = 1 + Math.floor(rng() * 2);
  for (let k = 0; k < bridges; ++k) s.add(Math.floor(rng() * half), half + Math.floor(rng() * (n - half)));
  return s.edges;
}

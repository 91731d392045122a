// Seeded R-MAT graphs (Chakrabarti et al.; the Graph500 generator's model):
// each edge picks a quadrant of the adjacency matrix recursively with
// probabilities a, b, c, d, giving the skewed degrees of real graphs.
import {deviceStatus} from '../native/device';
import {seededRng} from '../util/random';
import {EdgeList} from './edge_list';
import {graphNative} from '../native/domains';

export interface RmatOptions {
  /** 2^scale vertices. */
  scale: number;
  /** Edges per vertex (Graph500 uses 16). */
  edgeFactor?: number;
  a?: number;
  b?: number;
  c?: number;
  seed?: number;
  /** Relabel vertices randomly so ids carry no degree information (default true). */
  permute?: boolean;
  /**
   * Keep only vertices [0, vertices) and the edges between them (default
   * 2^scale: all). Ids are randomly permuted, so this is the subgraph induced
   * by a uniformly random vertex subset: graphs of any size, not only 2^scale.
   */
  vertices?: number;
  /** @internal Generate in TypeScript even where the C++ core is available (the tests' reference). */
  inScript?: boolean;
}

/** @internal The options checked, defaults filled: what both generators (edge lists, native graphs) draw from. */
export function rmatParams(o: RmatOptions): Required<Omit<RmatOptions, 'inScript'>> {
  const {scale} = o;
  if (!Number.isInteger(scale) || scale < 1 || scale > 31) throw new RangeError(`rmat: scale must be an integer in [1, 31], got ${scale}`);
  const keep = o.vertices ?? 2 ** scale;
  if (!Number.isInteger(keep) || keep < 1 || keep > 2 ** scale)
    throw new RangeError(`rmat: vertices must be an integer in [1, 2^scale = ${2 ** scale}], got ${o.vertices}`);
  if (keep < 2 ** scale && o.permute === false)
    throw new RangeError('rmat: vertices below 2^scale needs permute (the kept ids would be the densest corner)');
  const a = o.a ?? 0.57,
    b = o.b ?? 0.19,
    c = o.c ?? 0.19;
  if (!(a > 0 && b >= 0 && c >= 0 && a + b + c < 1)) throw new RangeError(`rmat: a, b, c must be non-negative with a + b + c < 1`);
  const edgeFactor = o.edgeFactor ?? 16;
  if (!(edgeFactor >= 0 && Number.isFinite(edgeFactor)))
    throw new RangeError(`rmat: edgeFactor must be a non-negative number, got ${edgeFactor}`);
  const seed = o.seed ?? 1;
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`rmat: seed must be a non-negative integer, got ${seed}`);
  return {scale, edgeFactor, a, b, c, seed, permute: o.permute ?? true, vertices: keep};
}

export function rmat(o: RmatOptions): EdgeList {
  const p = rmatParams(o);
  const edges = generate({...o, ...p});
  return p.vertices === edges.numVertices ? edges : induced(edges, p.vertices);
}

function induced(e: EdgeList, keep: number): EdgeList {
  let m = 0;
  for (let i = 0; i < e.src.length; ++i) if (e.src[i] < keep && e.dst[i] < keep) ++m;
  const src = new Int32Array(m),
    dst = new Int32Array(m);
  for (let i = 0, j = 0; i < e.src.length; ++i) {
    if (e.src[i] < keep && e.dst[i] < keep) {
      src[j] = e.src[i];
      dst[j++] = e.dst[i];
    }
  }
  return {numVertices: keep, src, dst, directed: true};
}

function generate(o: Required<Omit<RmatOptions, 'inScript'>> & {inScript?: boolean}): EdgeList {
  const {scale, a, b, c} = o;
  const n = 2 ** scale;
  const m = Math.round(n * o.edgeFactor);
  const src = new Int32Array(m),
    dst = new Int32Array(m);
  // The C++ core draws exactly what the loop below draws, much faster.
  if (deviceStatus().addonLoaded && !o.inScript) {
    graphNative().rmat(scale, a, b, c, o.seed, o.permute, src, dst);
    return {numVertices: n, src, dst, directed: true};
  }
  const rng = seededRng(o.seed);
  for (let e = 0; e < m; ++e) {
    let u = 0,
      v = 0;
    for (let bit = scale - 1; bit >= 0; --bit) {
      const r = rng();
      const right = r >= a && (r < a + b || r >= a + b + c); // quadrants b and d
      const down = r >= a + b; // quadrants c and d
      if (down) u |= 1 << bit;
      if (right) v |= 1 << bit;
    }
    src[e] = u;
    dst[e] = v;
  }
  if (o.permute) {
    const perm = Int32Array.from({length: n}, (_, i) => i);
    for (let i = n - 1; i > 0; --i) {
      const j = Math.floor(rng() * (i + 1));
      [perm[i], perm[j]] = [perm[j], perm[i]];
    }
    for (let e = 0; e < m; ++e) {
      src[e] = perm[src[e]];
      dst[e] = perm[dst[e]];
    }
  }
  return {numVertices: n, src, dst, directed: true};
}

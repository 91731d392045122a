// A graph of one vertex type with heavy-tailed degrees and no community structure: each undirected edge's two
// ends drawn independently, id i about as often as (i / n)^(1 / skew - 1) (native/src/graph/typed_draws.cc),
// so the degrees follow a power law of exponent 1 + skew / (skew - 1) (skew 2: degrees ~ d^-3) around the asked
// mean. Between R-MAT (skewed, its hubs' neighbourhoods shared) and a uniform graph (no hubs): what a citation
// graph such as ogbn-papers100M looks like to a sampler. Generated natively and seeded, any size.
import {checkCapacity} from '../memory/capacity';
import {graphNative} from '../native/domains';
import {checkSeed} from '../util/random';
import {NativeCsr} from './native_csr';

export interface PowerLawOptions {
  vertices: number;
  /** Mean degree (each undirected edge counts at both ends); default 29, ogbn-papers100M's. */
  degree?: number;
  /** 1 draws ids uniformly; above it low ids are drawn more (default 2: degrees ~ d^-3). */
  skew?: number;
  seed?: number;
}

/** The graph as a NativeCsr, every edge both ways (symmetric rows, duplicates and self loops kept as drawn). */
export function powerLawGraph(o: PowerLawOptions): NativeCsr {
  const what = 'powerLawGraph';
  const n = o.vertices,
    degree = o.degree ?? 29,
    skew = o.skew ?? 2;
  if (!Number.isInteger(n) || n < 1 || n > 2 ** 31 - 1) throw new RangeError(`${what}: vertices must be an integer in [1, 2^31), got ${n}`);
  if (!(degree > 0 && Number.isFinite(degree))) throw new RangeError(`${what}: degree must be a finite number > 0, got ${o.degree}`);
  if (!(skew >= 1 && Number.isFinite(skew))) throw new RangeError(`${what}: skew must be a finite number >= 1, got ${o.skew}`);
  const seed = checkSeed(what, o.seed ?? 1) >>> 0;
  const m = Math.round((n * degree) / 2);
  // The drawn pairs both ways (8 bytes an entry while built), then the CSR (4 an entry, 8 an offset).
  checkCapacity(`${what} (${n} vertices, ${m} edges)`, 2 * m * 12 + 8 * (n + 1), 'host');
  return NativeCsr.adopt(graphNative().graphTypedDraw(n, n, m, skew, skew, 0, 1, seed, false, true, null, null));
}

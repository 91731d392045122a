// Uniform neighbour sampling on CSR graphs (host implementation).
import {randInt, Rng} from '../util/random';
import {CsrGraph} from './csr';

/**
 * `fanout` neighbours of each seed drawn uniformly with replacement, as a
 * [seeds.length * fanout] array (GraphSAGE's fixed-size sampling). A vertex
 * with no neighbours samples itself, so shapes stay fixed.
 */
export function sampleWithReplacement(g: CsrGraph, seeds: Int32Array, fanout: number, rng: Rng): Int32Array {
  const out = new Int32Array(seeds.length * fanout);
  for (let i = 0; i < seeds.length; ++i) {
    const v = seeds[i];
    const start = g.rowPtr[v],
      deg = g.rowPtr[v + 1] - start;
    for (let k = 0; k < fanout; ++k) out[i * fanout + k] = deg === 0 ? v : g.colIdx[start + randInt(rng, deg)];
  }
  return out;
}

/**
 * Up to `fanout` distinct neighbours of each seed, uniformly without
 * replacement (all of them when the degree is at most fanout). Returns
 * offsets (seeds.length + 1) and the sampled ids.
 */
export function sampleWithoutReplacement(g: CsrGraph, seeds: Int32Array, fanout: number, rng: Rng): {offsets: Int32Array; ids: Int32Array} {
  const offsets = new Int32Array(seeds.length + 1);
  for (let i = 0; i < seeds.length; ++i) offsets[i + 1] = offsets[i] + Math.min(fanout, g.degree(seeds[i]));
  const ids = new Int32Array(offsets[seeds.length]);
  const scratch: number[] = [];
  for (let i = 0; i < seeds.length; ++i) {
    const nb = g.neighbors(seeds[i]);
    const take = offsets[i + 1] - offsets[i];
    if (take === nb.length) {
      ids.set(nb, offsets[i]);
      continue;
    }
    // Partial Fisher-Yates over a copy: the first `take` are a uniform sample.
    scratch.length = 0;
    for (const u of nb) scratch.push(u);
    for (let k = 0; k < take; ++k) {
      const j = k + randInt(rng, scratch.length - k);
      const t = scratch[k];
      scratch[k] = scratch[j];
      scratch[j] = t;
      ids[offsets[i] + k] = scratch[k];
    }
  }
  return {offsets, ids};
}

// Seed and start checks the samplers and walkers share.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {knownValid} from '../backend/index_validation';

export function badSeed(what: string, numVertices: number, seeds: ArrayLike<number>, at: number): RangeError {
  return new RangeError(`${what}: seed vertex ${seeds[at]} at position ${at} is not in [0, ${numVertices})`);
}

/** @internal Throws badSeed for the first host seed outside [0, numVertices). */
export function checkSeeds(what: string, numVertices: number, seeds: Int32Array): void {
  for (let i = 0; i < seeds.length; ++i) {
    if (!(seeds[i] >= 0 && seeds[i] < numVertices)) throw badSeed(what, numVertices, seeds, i);
  }
}

/**
 * @internal Runs a kernel over vertex ids of a graph of numVertices: with an
 * error flag, returning the first id outside it (or -1) — unless the ids are
 * known to be vertices already, which needs no flag and so no wait for the
 * GPU (the kernels never read outside the graph either way).
 */
export function launchForVertices(b: WholeMemoryBackend, ids: tf.Tensor, numVertices: number, launch: (flag: number) => void): number {
  if (!knownValid(ids, numVertices)) return b.withErrorFlag(launch);
  launch(0);
  return -1;
}

// Open addressing over a reused table: a batch of 1,024 seeds in a few µs
// (sorting a copy took 74 µs per step on an H100 host). Values must be >= 0.
let seen = new Int32Array(0);
/** @internal Whether ids (>= 0) are all distinct. */
export function allDistinct(xs: Int32Array): boolean {
  let size = 16;
  while (size < 2 * xs.length) size *= 2;
  if (seen.length < size) seen = new Int32Array(size);
  const table = seen.subarray(0, size).fill(-1);
  const mask = size - 1;
  for (let i = 0; i < xs.length; ++i) {
    const v = xs[i];
    for (let h = (Math.imul(v, 0x9e3779b1) >>> 7) & mask; ; h = (h + 1) & mask) {
      const w = table[h];
      if (w === v) return false;
      if (w === -1) {
        table[h] = v;
        break;
      }
    }
  }
  return true;
}

/** @internal How many distinct values xs holds (for an error message): a sorted copy. */
export function distinctCount(xs: Int32Array): number {
  const sorted = xs.slice().sort();
  let n = sorted.length ? 1 : 0;
  for (let i = 1; i < sorted.length; ++i) if (sorted[i] !== sorted[i - 1]) ++n;
  return n;
}

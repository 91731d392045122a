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

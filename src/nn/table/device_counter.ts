// A 64-bit counter in device memory that kernels add to (skipped gradient elements, a cache's hits) and
// the host reads when asked: one word, no synchronisation per kernel.
import type {WholeMemoryBackend} from '../../backend/backend_wholememory';
import {embeddingNative} from '../../native/domains';

/** A new counter at zero (free it with b.freeDevice). */
export function deviceCounter(b: WholeMemoryBackend): number {
  const p = b.allocDevice(8);
  resetCounter(p);
  return p;
}

export function resetCounter(p: number): void {
  embeddingNative().upload(p, new BigUint64Array(1));
}

export function readCounter(p: number): number {
  const word = new BigUint64Array(1);
  embeddingNative().download(p, word);
  return Number(word[0]);
}

// A seeded random order of 0 .. n-1 (an epoch's order of training rows): util/random's Fisher-Yates
// shuffle with seededRng(seed), made natively where the addon is loaded (the same order; at tens of
// millions of rows the JavaScript shuffle waits on its random reads, which the native one fetches
// ahead), else in JavaScript.
import {deviceStatus} from '../native/device';
import {dataNative} from '../native/domains';
import {seededRng, shuffle} from '../util/random';

export function seededPermutation(n: number, seed: number): Int32Array {
  if (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1)
    throw new RangeError(`seededPermutation: n must be an integer in [0, 2^31), got ${n}`);
  if (!Number.isFinite(seed)) throw new RangeError(`seededPermutation: seed must be a finite number, got ${seed}`);
  const out = new Int32Array(n);
  if (deviceStatus().addonLoaded) {
    dataNative().seededPermutation(n, seed >>> 0, out);
    return out;
  }
  for (let i = 0; i < n; ++i) out[i] = i;
  return shuffle(out, seededRng(seed));
}

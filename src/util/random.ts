// A small seeded generator (mulberry32): reproducible sampling, splits and
// test data without pulling in a dependency.
export type Rng = () => number;

/** A seed a user gave: a non-negative integer (below 2^53); `what` names the call in the error. */
export function checkSeed(what: string, seed: number): number {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`${what}: seed must be a non-negative integer, got ${seed}`);
  return seed;
}

export function seededRng(seed: number): Rng {
  // NaN and Infinity would all collapse to one stream.
  if (!Number.isFinite(seed)) throw new RangeError(`seed must be a finite number, got ${seed}`);
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Uniform integer in [0, n). */
export function randInt(rng: Rng, n: number): number {
  return Math.floor(rng() * n);
}

/** Fisher-Yates shuffle in place. */
export function shuffle<T extends {length: number; [i: number]: number}>(a: T, rng: Rng): T {
  for (let i = a.length - 1; i > 0; --i) {
    const j = randInt(rng, i + 1);
    const t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
  return a;
}

/**
 * The seed to hand tfjs' seeded random ops (tf.randomNormal, tf.randomUniform, tfjs-layers' initializers):
 * they take a seed of 0 for none and draw from Math.random, so 0 maps to a fixed non-zero seed of its own.
 */
export function tfSeed(seed: number): number {
  return seed === 0 ? 0x5eed5eed : seed;
}

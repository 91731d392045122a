// Random train/validation/test splits of vertex sets.
import {Rng, shuffle} from '../util/random';

export interface Split {
  train: Int32Array;
  val: Int32Array;
  test: Int32Array;
}

/** A random split of 0..n-1 by fractions (train, val; the rest is test). */
export function randomSplit(n: number, trainFraction: number, valFraction: number, rng: Rng): Split {
  if (!(trainFraction > 0 && valFraction >= 0 && trainFraction + valFraction < 1)) {
    throw new Error(`randomSplit: fractions train=${trainFraction} val=${valFraction} must be positive and sum below 1`);
  }
  const order = shuffle(
    Int32Array.from({length: n}, (_, i) => i),
    rng,
  );
  const nTrain = Math.round(n * trainFraction),
    nVal = Math.round(n * valFraction);
  return {
    train: order.slice(0, nTrain).sort(),
    val: order.slice(nTrain, nTrain + nVal).sort(),
    test: order.slice(nTrain + nVal).sort(),
  };
}

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

/**
 * The Planetoid split of the GNN literature: `perClass` training vertices of
 * each class, then `val` and `test` vertices drawn from the rest (labelled
 * vertices only: label >= 0).
 */
export function planetoidSplit(labels: Int32Array, classes: number, perClass: number, val: number, test: number, rng: Rng): Split {
  const order = shuffle(
    Int32Array.from(labels.keys()).filter((v) => labels[v] >= 0),
    rng,
  );
  const taken = new Int32Array(classes);
  const train: number[] = [],
    rest: number[] = [];
  for (const v of order) {
    if (taken[labels[v]] < perClass) {
      ++taken[labels[v]];
      train.push(v);
    } else rest.push(v);
  }
  const short = [...taken.keys()].filter((y) => taken[y] < perClass);
  if (short.length)
    throw new RangeError(`planetoidSplit: class ${short[0]} has ${taken[short[0]]} labelled vertices, fewer than ${perClass}`);
  if (val + test > rest.length)
    throw new RangeError(`planetoidSplit: ${val} validation + ${test} test vertices, ${rest.length} left after training`);
  return {
    train: Int32Array.from(train).sort(),
    val: Int32Array.from(rest.slice(0, val)).sort(),
    test: Int32Array.from(rest.slice(val, val + test)).sort(),
  };
}

// Index checks for row gathers/scatters. Tensors are immutable, so a tensor
// of indices checked once against a row count needs no second pass: repeated
// lookups with the same indices cost nothing.
import * as tf from '@tensorflow/tfjs-core';

const validated = new WeakMap<object, number>();

export function indexError(what: string, value: number, position: number, rows: number, table = 'table'): RangeError {
  return new RangeError(`${what}: index ${value} at position ${position} is outside the ${table}'s ${rows} rows`);
}

/** The first position whose index is not in [0, rows), or -1. A plain loop: a util.assert with a message closure per index took 5x as long. */
export function firstOutside(idx: ArrayLike<number>, rows: number): number {
  for (let i = 0; i < idx.length; ++i) if (!(idx[i] >= 0 && idx[i] < rows)) return i;
  return -1;
}

export function checkIndexArray(idx: ArrayLike<number>, rows: number, what: string, table = 'table'): void {
  const i = firstOutside(idx, rows);
  if (i >= 0) throw indexError(what, idx[i], i, rows, table);
}

/** Whether `t` (a tensor, or a kernel's TensorInfo) was already checked against `rows`. */
export function knownValid(t: {dataId: object}, rows: number): boolean {
  return validated.get(t.dataId) === rows;
}

/** The row count t was checked against, if any. */
export function validRows(t: {dataId: object}): number | undefined {
  return validated.get(t.dataId);
}

export function markValid(t: {dataId: object}, rows: number): void {
  validated.set(t.dataId, rows);
}

/**
 * Marks `out` checked against the row count every input was checked against, when they agree: the
 * values of a gather from, a slice of or a concatenation of checked indices are checked indices too.
 */
export function inheritValid(out: {dataId: object}, inputs: ReadonlyArray<{dataId: object}>): void {
  if (inputs.length === 0) return;
  const rows = validated.get(inputs[0].dataId);
  if (rows !== undefined && inputs.every((t) => validated.get(t.dataId) === rows)) validated.set(out.dataId, rows);
}

/** Checks t's values (downloading them if needed) unless already known valid. */
export function checkIndexTensor(t: tf.Tensor, rows: number, what: string, table = 'table'): void {
  if (knownValid(t, rows)) return;
  checkIndexArray(t.dataSync(), rows, what, table);
  markValid(t, rows);
}

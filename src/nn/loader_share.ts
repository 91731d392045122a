// A data-parallel rank's share of a loader's batches, what every loader (homogeneous or typed) takes: every rank
// walks the same order of seeds and takes its part of each batch, its sampling drawn from its own stream.

/** One data-parallel rank's share: `rank` of `size` ranks, each taking its part of every batch. */
export interface LoaderShare {
  rank: number;
  size: number;
}

/** `share` (default: the whole of every batch) checked, or an error naming `what`. */
export function checkShare(what: string, share: LoaderShare | undefined): LoaderShare {
  const s = share ?? {rank: 0, size: 1};
  if (!Number.isInteger(s.size) || s.size < 1 || !Number.isInteger(s.rank) || s.rank < 0 || s.rank >= s.size)
    throw new RangeError(`${what}: share must be {rank, size} with 0 <= rank < size, got ${JSON.stringify(share)}`);
  return {rank: s.rank, size: s.size};
}

/** The rank's part of a batch: the rank-th of `size` runs of ceil(batch / size) seeds (the last ones shorter or empty). */
export function sharePart(batch: Int32Array, share: LoaderShare): Int32Array {
  const each = Math.ceil(batch.length / share.size);
  return batch.subarray(Math.min(batch.length, share.rank * each), Math.min(batch.length, (share.rank + 1) * each));
}

/** The rank's sampling stream for a batch's stream: each rank draws its own. */
export function shareStream(stream: number, share: LoaderShare): number {
  return (stream + share.rank * 0x5bd1e995) % 2 ** 31;
}

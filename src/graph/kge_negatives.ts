// Negative entities for knowledge-graph training, as PyTorch-BigGraph and DGL-KE draw them: a batch of
// positives is cut into chunks, and every positive of a chunk is scored against the same negatives (its
// head or tail replaced by each), so a chunk's negative scores are one matrix product. Draws are uniform
// over the entities, or proportional to each entity's degree in the training triples (an entity drawn as
// the head or tail of a uniform training triple), on the backend's device from a counter-based hash.
import * as tf from '@tensorflow/tfjs-core';

import {markValid} from '../backend/index_validation';
import {randomVertices} from './random_walk';

export type NegativeDistribution = 'uniform' | 'degree';

export class NegativeSampler {
  // The training triples' heads then tails (degree-proportional draws pick one of them).
  private readonly ends?: tf.Tensor1D;

  constructor(
    readonly numEntities: number,
    readonly distribution: NegativeDistribution,
    ends?: {heads: Int32Array; tails: Int32Array},
  ) {
    if (distribution !== 'uniform' && distribution !== 'degree')
      throw new RangeError(`negatives: distribution must be 'uniform' or 'degree', got ${distribution}`);
    if (distribution === 'degree') {
      if (!ends || ends.heads.length === 0)
        throw new RangeError(`negatives: degree-proportional draws need the training triples' heads and tails`);
      const all = new Int32Array(2 * ends.heads.length);
      all.set(ends.heads);
      all.set(ends.tails, ends.heads.length);
      this.ends = tf.tensor1d(all, 'int32');
      markValid(this.ends, numEntities);
    }
  }

  /** `count` negative entity ids as an int32 tensor, from the draw `seed` names. */
  draw(count: number, seed: number): tf.Tensor1D {
    if (!this.ends) return randomVertices(count, this.numEntities, {seed});
    const picks = randomVertices(count, this.ends.size, {seed});
    const ids = tf.gather(this.ends, picks) as tf.Tensor1D;
    picks.dispose();
    markValid(ids, this.numEntities);
    return ids;
  }

  dispose(): void {
    this.ends?.dispose();
  }
}

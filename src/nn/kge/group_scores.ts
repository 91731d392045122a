// Scores of groups of queries against groups of candidates, what ranking against every entity and a query's top
// candidates take: on the CPU, the distance models (transE with L1, rotatE) in one native op (`kgeGroupScores`:
// each pair's score summed straight from the two rows, no [groups, queries, candidates, width] differences held);
// elsewhere, and for the models whose scores are matrix products, the model's own tfjs ops (groupScores).
import * as tf from '@tensorflow/tfjs-core';

import {nativeBackend, WholeMemoryBackend} from '../../backend/backend_wholememory';
import {deviceStatus} from '../../native/device';
import {embeddingNative} from '../../native/domains';
import {scorerOf} from './chunk_loss';
import {KgeModel} from './kge_model';

/** The backend that scores the model's groups natively here, or undefined (its tfjs ops score them). */
function nativeScorer(model: KgeModel): WholeMemoryBackend | undefined {
  const scorer = scorerOf(model);
  const elementwise = scorer === 1 || scorer === 3; // L1, complex moduli: the others' scores are products
  return elementwise && !deviceStatus().gpu ? nativeBackend() : undefined;
}

/** model.groupScores(q [g, n, w], c [g, m, w]): [g, n, m], natively where nativeScorer says so. */
export function groupScores(model: KgeModel, q: tf.Tensor3D, c: tf.Tensor3D): tf.Tensor3D {
  const [g, n, w] = q.shape;
  if (c.shape[0] !== g || c.shape[2] !== w)
    throw new RangeError(`groupScores: c must be [${g}, m, ${w}] like q [${q.shape}], got [${c.shape}]`);
  const be = nativeScorer(model);
  if (!be) return model.groupScores(q, c);
  const m = c.shape[1];
  const [out] = be.nativeOutputs([q, c], [[g, n, m]], ([x, y], [s]) =>
    embeddingNative().kgeGroupScores(scorerOf(model), model.config.margin, g, n, m, w, x, y, s),
  );
  return out as tf.Tensor3D;
}

/** Bytes groupScores holds per (query, candidate) pair beyond its output, to size blocks: none when native. */
export function groupScoresPairBytes(model: KgeModel): number {
  return nativeScorer(model) ? 0 : model.pairBytes();
}

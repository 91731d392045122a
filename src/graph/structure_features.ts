// Node inputs from the graph alone, for data without features: a random
// Gaussian projection of each vertex's one-hot id, propagated over the
// GCN-normalised graph (Â R, Â² R, …), each power scaled to unit rows and
// concatenated (FastRP, Chen et al., 2019). Vertices that are close in the
// graph get close rows, so a classifier over them sees the structure that
// label propagation uses, and more (several scales, every class at once).
// Native products (wm.graph.aggregate), on the GPU or the CPU.
import * as tf from '@tensorflow/tfjs-core';

import {checkSeed, tfSeed} from '../util/random';
import {aggregate, CsrBlock} from './aggregate';
import {CsrGraph} from './csr';

export interface StructureFeatureOptions {
  /** Width of each power's projection. Default 32. */
  dim?: number;
  /** Powers of Â, each contributing `dim` columns. Default 3. */
  powers?: number;
  seed?: number;
}

/** [numVertices, dim × powers] float32, row-major. */
export function structureFeatures(graph: CsrGraph, o: StructureFeatureOptions = {}): {values: Float32Array; dim: number} {
  const dim = o.dim ?? 32,
    powers = o.powers ?? 3;
  if (!Number.isInteger(dim) || dim < 1 || dim > 4096)
    throw new RangeError(`structureFeatures: dim must be an integer in [1, 4096], got ${dim}`);
  if (!Number.isInteger(powers) || powers < 1 || powers > 16)
    throw new RangeError(`structureFeatures: powers must be an integer in [1, 16], got ${powers}`);
  const seed = checkSeed('structureFeatures', o.seed ?? 1);
  const block = CsrBlock.fromGraph(graph);
  try {
    const out = tf.tidy(() => {
      let h: tf.Tensor2D = tf.randomNormal([graph.numVertices, dim], 0, 1, 'float32', tfSeed(seed));
      const parts: tf.Tensor2D[] = [];
      for (let p = 0; p < powers; ++p) {
        h = aggregate(h, block, 'gcn');
        // Unit rows: every power weighs the same, whatever its scale.
        parts.push(tf.div(h, tf.add(tf.norm(h, 'euclidean', 1, true), 1e-12)));
      }
      return tf.concat(parts, 1);
    });
    const values = out.dataSync() as Float32Array;
    out.dispose();
    return {values, dim: dim * powers};
  } finally {
    block.dispose();
  }
}

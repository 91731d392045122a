// Unsupervised link prediction: node embeddings scored by a dot product,
// trained with uniform negative sampling (binary cross-entropy), evaluated
// by ROC AUC and Hits@50 on held-out edges against held-out non-edges.
import * as tf from '@tensorflow/tfjs-core';

import {CsrGraph} from '../graph/csr';
import {EdgePairs, splitEdges} from '../graph/link_split';
import {Embedding, EmbeddingMemory} from '../nn/embedding';
import {adam} from '../nn/sparse_optimizer';
import {int32Of} from '../util/arrays';
import {randInt, Rng, seededRng, shuffle} from '../util/random';
import {tidyValues} from '../util/tidy_values';
import {hitsAtK, rocAuc} from './link_metrics';

export interface LinkPredictionOptions {
  epochs: number;
  batchSize: number;
  dim: number;
  negativesPerPositive: number;
  learningRate: number;
  valFraction: number;
  testFraction: number;
  seed: number;
  memory?: EmbeddingMemory;
}

export const DEFAULT_LINK_PREDICTION: LinkPredictionOptions = {
  epochs: 20,
  batchSize: 4096,
  dim: 64,
  negativesPerPositive: 1,
  learningRate: 0.01,
  valFraction: 0.05,
  testFraction: 0.1,
  seed: 0,
};

export interface LinkEpochMetrics {
  seed: number;
  epoch: number;
  loss: number;
  valAuc: number;
  valHits50: number;
  testAuc: number;
  testHits50: number;
  seconds: number;
  edgesPerSecond: number;
}

/** Dot products of the rows of each pair's two vertices (link scores). */
export function pairScores(emb: Embedding, pairs: EdgePairs): Float32Array {
  return tidyValues(() => tf.sum(tf.mul(emb.read(pairs.src), emb.read(pairs.dst)), 1)) as Float32Array;
}

/** The random numbers whose first draws split the edges for `seed` (the shallow and the GNN models share the split). */
export function linkSplitRng(seed: number): Rng {
  return seededRng(seed * 9973 + 5);
}

export async function trainLinkPrediction(
  graph: CsrGraph,
  options: Partial<LinkPredictionOptions>,
  onEpoch: (m: LinkEpochMetrics) => void = () => {},
): Promise<LinkEpochMetrics> {
  const o = {...DEFAULT_LINK_PREDICTION, ...options};
  const rng = linkSplitRng(o.seed);
  const split = splitEdges(graph, o.valFraction, o.testFraction, rng);
  const n = graph.numVertices;
  const emb = new Embedding({
    rows: n,
    dim: o.dim,
    memory: o.memory,
    optimizer: adam({lr: o.learningRate}),
    init: {type: 'normal', scale: 0.1, seed: o.seed + 1},
  });
  const opt = tf.train.sgd(0); // carries the table's gradient; there are no dense parameters
  let best: LinkEpochMetrics | undefined;
  try {
    const m = split.trainEdges.src.length;
    for (let epoch = 1; epoch <= o.epochs; ++epoch) {
      const started = Date.now();
      const order = shuffle(
        Int32Array.from({length: m}, (_, i) => i),
        rng,
      );
      // The loss is summed on the device and read once per epoch: a read per
      // step would wait for the GPU every step.
      let lossSum: tf.Tensor = tf.scalar(0);
      let batches = 0;
      for (let b = 0; b < m; b += o.batchSize) {
        const ids = order.subarray(b, Math.min(m, b + o.batchSize));
        const k = ids.length * o.negativesPerPositive;
        const u = int32Of(ids.length, (j) => split.trainEdges.src[ids[j]]);
        const v = int32Of(ids.length, (j) => split.trainEdges.dst[ids[j]]);
        // Corrupt the tail: (u, random vertex) as negatives.
        const nu = int32Of(k, (j) => u[j % u.length]);
        const nv = int32Of(k, () => randInt(rng, n));
        const loss = opt.minimize(
          () => {
            const pos = tf.sum(tf.mul(emb.lookup(u), emb.lookup(v)), 1);
            const neg = tf.sum(tf.mul(emb.lookup(nu), emb.lookup(nv)), 1);
            // -log sigmoid(pos) - log(1 - sigmoid(neg)) = softplus(-pos) + softplus(neg)
            return tf.add(tf.mean(tf.softplus(tf.neg(pos))), tf.mean(tf.softplus(neg))) as tf.Scalar;
          },
          true,
          [emb.anchor],
        )!;
        emb.step();
        const next = tf.add(lossSum, loss);
        tf.dispose([lossSum, loss]);
        lossSum = next;
        ++batches;
      }
      const epochLoss = (await lossSum.data())[0] / batches;
      lossSum.dispose();
      const trainSeconds = (Date.now() - started) / 1000;
      const [vp, vn, tp, tn] = [split.valEdges, split.valNegatives, split.testEdges, split.testNegatives].map((p) => pairScores(emb, p));
      const metrics: LinkEpochMetrics = {
        seed: o.seed,
        epoch,
        loss: epochLoss,
        valAuc: rocAuc(vp, vn),
        valHits50: hitsAtK(vp, vn, 50),
        testAuc: rocAuc(tp, tn),
        testHits50: hitsAtK(tp, tn, 50),
        seconds: (Date.now() - started) / 1000,
        edgesPerSecond: m / trainSeconds,
      };
      onEpoch(metrics);
      if (best === undefined || metrics.valAuc >= best.valAuc) best = metrics;
    }
  } finally {
    opt.dispose();
    emb.dispose();
  }
  return best!;
}

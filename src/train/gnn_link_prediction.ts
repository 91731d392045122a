// Link prediction with a GNN encoder over node features (PyG's link-prediction recipe): a GraphSAGE encoder
// made of the public graph layers (wm.nn.sageConv) trained from a LinkNeighborLoader over the training
// edges (each batch: sampled neighbourhoods of the pairs' endpoints, one negative pair per edge, binary
// cross-entropy of a dot or MLP decoder), evaluated each epoch with every vertex embedded exactly over the
// training graph (wm.nn.inferLayerwise), by ROC AUC, Hits@K and MRR of held-out edges against non-edges,
// beside the common-neighbours heuristic on the same pairs. A graph without features is encoded from structure
// features of its training graph (FastRP: wm.graph.structureFeatures), so no held-out edge shapes the inputs.
import * as tf from '@tensorflow/tfjs-core';
import * as tfl from '@tensorflow/tfjs-layers';

import type {CsrGraph} from '../graph/csr';
import {EdgePairs, LinkSplit, splitEdges} from '../graph/link_split';
import {structureFeatures} from '../graph/structure_features';
import {sageConv} from '../nn/conv/sage_conv';
import {withGraph} from '../nn/conv/graph_input';
import {inferLayerwise} from '../nn/conv/layerwise_model';
import type {Embedding} from '../nn/embedding';
import {LinkNeighborLoader} from '../nn/neighbor_loader';
import {featureTable} from '../nn/node_inputs';
import {checkSeed} from '../util/random';
import {tidyValues} from '../util/tidy_values';
import {hitsAtK, meanReciprocalRank, rocAuc} from './link_metrics';
import {linkSplitRng} from './link_prediction';

export interface GnnLinkPredictionOptions {
  epochs?: number;
  /** Edges per batch (default 512), each with one negative pair. */
  batchSize?: number;
  /** Neighbours sampled per hop (default [10, 10]: a two-layer encoder; its length is the layer count). */
  fanouts?: number[];
  /** Width of the hidden and output embeddings (default 64). */
  hidden?: number;
  /** 'dot' (default): the embeddings' dot product; 'mlp': a two-layer MLP on their elementwise product. */
  decoder?: 'dot' | 'mlp';
  learningRate?: number;
  valFraction?: number;
  testFraction?: number;
  /** K of Hits@K (default 50). */
  k?: number;
  seed?: number;
}

export interface LinkScores {
  auc: number;
  hits: number;
  mrr: number;
}

export interface GnnLinkEpoch {
  epoch: number;
  loss: number;
  val: LinkScores;
  seconds: number;
}

export interface GnnLinkResult {
  /** The epochs, and the test scores at the epoch of the best validation AUC. */
  epochs: GnnLinkEpoch[];
  best: {epoch: number; val: LinkScores; test: LinkScores};
  /** Common neighbours over the training graph, on the same test pairs. */
  commonNeighbours: LinkScores;
  split: LinkSplit;
  /** What the encoder read: the features given, or ('structure') the training graph's structure features. */
  inputs: 'features' | 'structure';
}

/** The number of neighbours u and v share in `g` (rows sorted). */
export function commonNeighbours(g: CsrGraph, pairs: EdgePairs): Float32Array {
  const out = new Float32Array(pairs.src.length);
  for (let i = 0; i < out.length; ++i) {
    const a = g.neighbors(pairs.src[i]),
      b = g.neighbors(pairs.dst[i]);
    let x = 0,
      y = 0,
      common = 0;
    while (x < a.length && y < b.length) {
      if (a[x] === b[y]) (++common, ++x, ++y);
      else if (a[x] < b[y]) ++x;
      else ++y;
    }
    out[i] = common;
  }
  return out;
}

function scoresOf(pos: ArrayLike<number>, neg: ArrayLike<number>, k: number): LinkScores {
  return {auc: rocAuc(pos, neg), hits: hitsAtK(pos, neg, k), mrr: meanReciprocalRank(pos, neg)};
}

/**
 * Trains the encoder and decoder on `graph` (undirected) with `features` [numVertices, dim], or with structure
 * features of the training graph where `features` is undefined; see the file comment.
 */
export async function trainGnnLinkPrediction(
  graph: CsrGraph,
  features: {values: Float32Array; dim: number} | undefined,
  o: GnnLinkPredictionOptions = {},
  onEpoch: (m: GnnLinkEpoch) => void = () => {},
): Promise<GnnLinkResult> {
  const epochs = o.epochs ?? 20,
    hidden = o.hidden ?? 64,
    k = o.k ?? 50,
    fanouts = o.fanouts ?? [10, 10],
    decoder = o.decoder ?? 'dot';
  const seed = checkSeed('trainGnnLinkPrediction', o.seed ?? 0);
  if (!Number.isInteger(epochs) || epochs < 1)
    throw new RangeError(`trainGnnLinkPrediction: epochs must be a positive integer, got ${epochs}`);
  if (!Number.isInteger(hidden) || hidden < 1)
    throw new RangeError(`trainGnnLinkPrediction: hidden must be a positive integer, got ${hidden}`);
  if (decoder !== 'dot' && decoder !== 'mlp')
    throw new RangeError(`trainGnnLinkPrediction: decoder must be 'dot' or 'mlp', got ${String(decoder)}`);
  if (features && features.values.length !== graph.numVertices * features.dim)
    throw new RangeError(
      `trainGnnLinkPrediction: ${features.values.length} feature values for ${graph.numVertices} vertices of ${features.dim}`,
    );
  // The split trainLinkPrediction draws for the same seed: the shallow model is scored on the same pairs.
  const split = splitEdges(graph, o.valFraction ?? 0.05, o.testFraction ?? 0.1, linkSplitRng(seed));
  const x = features ?? structureFeatures(split.train, {seed});
  const table = featureTable(x.values, graph.numVertices, x.dim);
  const encoder = tfl.sequential({
    layers: fanouts.map((_, l) =>
      sageConv({
        units: hidden,
        activation: l + 1 < fanouts.length ? 'relu' : 'linear',
        inputShape: l === 0 ? [x.dim] : undefined,
        seed: seed + l,
      }),
    ),
  });
  const mlp =
    decoder === 'mlp'
      ? tfl.sequential({
          layers: [
            tfl.layers.dense({
              units: hidden,
              activation: 'relu',
              inputShape: [hidden],
              kernelInitializer: tfl.initializers.glorotUniform({seed: seed + 100}),
            }),
            tfl.layers.dense({units: 1, kernelInitializer: tfl.initializers.glorotUniform({seed: seed + 101})}),
          ],
        })
      : undefined;
  const decode = (a: tf.Tensor2D, b: tf.Tensor2D): tf.Tensor1D =>
    mlp ? (tf.reshape(mlp.apply(tf.mul(a, b)) as tf.Tensor, [-1]) as tf.Tensor1D) : (tf.sum(tf.mul(a, b), 1) as tf.Tensor1D);
  const opt = tf.train.adam(o.learningRate ?? 0.005);
  const loader = new LinkNeighborLoader(split.train, split.trainEdges, {fanouts, batchSize: o.batchSize ?? 512, features: table, seed});
  // Every vertex embedded exactly over the training graph, then each pair decoded a chunk at a time.
  const score = (pairs: EdgePairs, emb: Embedding): Float32Array => {
    const out = new Float32Array(pairs.src.length);
    for (let i = 0; i < out.length; i += 65536) {
      const end = Math.min(out.length, i + 65536);
      out.set(
        tidyValues(() => decode(emb.read(pairs.src.subarray(i, end)) as tf.Tensor2D, emb.read(pairs.dst.subarray(i, end)) as tf.Tensor2D)),
        i,
      );
    }
    return out;
  };
  // Validation each epoch; the test pairs only at a new best validation AUC (the scores the result reports).
  const evaluate = (best: LinkScores | undefined): {val: LinkScores; test?: LinkScores} => {
    const emb = inferLayerwise(encoder, split.train, table);
    try {
      const val = scoresOf(score(split.valEdges, emb), score(split.valNegatives, emb), k);
      if (best && val.auc <= best.auc) return {val};
      return {val, test: scoresOf(score(split.testEdges, emb), score(split.testNegatives, emb), k)};
    } finally {
      emb.dispose();
    }
  };
  const history: GnnLinkEpoch[] = [];
  let best: GnnLinkResult['best'] | undefined;
  try {
    for (let e = 0; e < epochs; ++e) {
      const t0 = performance.now();
      let lossSum = 0,
        batches = 0;
      for await (const b of loader) {
        const loss = opt.minimize(() => {
          const h = withGraph(b.layers, () => encoder.apply(b.x!, {training: true}) as tf.Tensor2D);
          const logits = decode(tf.gather(h, b.srcRow) as tf.Tensor2D, tf.gather(h, b.dstRow) as tf.Tensor2D);
          return tf.losses.sigmoidCrossEntropy(b.label, logits) as tf.Scalar;
        }, true)!;
        lossSum += (await loss.data())[0];
        ++batches;
        loss.dispose();
        b.dispose();
      }
      const {val, test} = evaluate(best?.val);
      const m = {epoch: e + 1, loss: lossSum / Math.max(1, batches), val, seconds: (performance.now() - t0) / 1000};
      history.push(m);
      if (test) best = {epoch: e + 1, val, test};
      onEpoch(m);
    }
  } finally {
    table.dispose();
    opt.dispose();
    encoder.dispose();
    mlp?.dispose();
  }
  const cnPos = commonNeighbours(split.train, split.testEdges),
    cnNeg = commonNeighbours(split.train, split.testNegatives);
  return {epochs: history, best: best!, commonNeighbours: scoresOf(cnPos, cnNeg, k), split, inputs: features ? 'features' : 'structure'};
}

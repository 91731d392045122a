// Link prediction over one edge type of a typed graph (user-item recommendation, authors and their papers):
// the relation's edges split into training, validation and test edges (seeded); the graph the encoder reads
// keeps only the training edges (of the relation and of its reverse, when the graph has one); two R-GCN layers
// encode both ends of each batch from the TypedLinkLoader, a dot product scores a pair, and the binary
// cross-entropy trains against corrupted destinations. Judged by ROC AUC of held-out edges against as many
// corrupted ones, with every neighbour taken.
import * as tf from '@tensorflow/tfjs-core';

import {releasedOnThrow, typedGraphFor, TypedSampling} from '../graph/device_hetero_graph';
import {EdgeType, edgeTypeKey, HeteroGraph, TypedEdges} from '../graph/hetero_graph';
import {RgcnConv} from '../nn/hetero/rgcn_conv';
import {TypedLinkBatch, TypedLinkLoader} from '../nn/typed_link_loader';
import {FeatureTables, TypedFeatureStorage} from '../nn/typed_neighbor_loader';
import {adam} from '../optimizers/fused_adam';
import {randInt, seededRng, shuffle} from '../util/random';
import {rocAuc} from './link_metrics';

export interface TypedLinkOptions {
  edgeType: EdgeType | string;
  hidden: number;
  fanouts: number[];
  epochs: number;
  batchSize: number;
  learningRate: number;
  /** Shares of the relation's edges held out for validation and test. */
  valFraction: number;
  testFraction: number;
  seed: number;
  /** Where training batches are sampled: 'auto' (the GPU when the backend has one and the relations fit), 'host' or 'device'. */
  sampleOn?: TypedSampling;
  /** How each type's features are kept (default: float32 tensors on the backend's device). */
  features?: TypedFeatureStorage;
}

export const DEFAULT_TYPED_LINK: Omit<TypedLinkOptions, 'edgeType'> = {
  hidden: 32,
  fanouts: [10, 10],
  epochs: 5,
  batchSize: 256,
  learningRate: 0.01,
  valFraction: 0.05,
  testFraction: 0.1,
  seed: 0,
};

export interface TypedLinkResult {
  losses: number[];
  valAuc: number;
  testAuc: number;
}

function pick(e: TypedEdges, at: Int32Array): TypedEdges {
  return {src: at.map((i) => e.src[i]), dst: at.map((i) => e.dst[i])};
}

export async function trainTypedLinkPrediction(
  graph: HeteroGraph,
  options: Partial<TypedLinkOptions> & {edgeType: EdgeType | string},
): Promise<TypedLinkResult> {
  const o = {...DEFAULT_TYPED_LINK, ...options};
  const rel = graph.relation(o.edgeType);
  const key = edgeTypeKey(rel.type);
  if (!(o.valFraction >= 0 && o.testFraction > 0 && o.valFraction + o.testFraction < 1))
    throw new RangeError(
      `trainTypedLinkPrediction: valFraction and testFraction must be >= 0 and > 0, summing below 1, got ${o.valFraction} and ${o.testFraction}`,
    );
  const all = graph.edgesOf(key);
  const m = all.src.length;
  const rng = seededRng(o.seed * 9973 + 5);
  const order = shuffle(
    Int32Array.from({length: m}, (_, i) => i),
    rng,
  );
  const nVal = Math.floor(m * o.valFraction),
    nTest = Math.max(1, Math.floor(m * o.testFraction));
  const val = pick(all, order.subarray(0, nVal)),
    test = pick(all, order.subarray(nVal, nVal + nTest)),
    train = pick(all, order.subarray(nVal + nTest));
  // The encoder's graph: the relation's training edges, and its reverse's where the graph has one.
  const [s, r, d] = rel.type;
  const revKey = edgeTypeKey([d, `rev_${r}`, s]);
  const g = HeteroGraph.fromEdges(
    {...graph.numNodes},
    graph.edgeTypes.map((t) => {
      const k = edgeTypeKey(t);
      if (k === key) return {type: t, edges: train};
      if (k === revKey) return {type: t, edges: {src: train.dst, dst: train.src}};
      return {type: t, edges: graph.edgesOf(k)};
    }),
    {features: {...graph.features}},
  );
  const relations = g.edgeTypes.map(edgeTypeKey);
  const width = Math.max(1, ...Object.values(g.features).map((f) => f.dim));
  const convs = [
    new RgcnConv({inDim: width, units: o.hidden, relations, numBases: 4, seed: o.seed * 13 + 1}),
    new RgcnConv({inDim: o.hidden, units: o.hidden, relations, numBases: 4, seed: o.seed * 13 + 2}),
  ];
  const vars = convs.flatMap((c) => c.variables);
  const logits = (b: TypedLinkBatch): tf.Tensor1D => {
    let h = b.x;
    b.sub.layers.forEach((layer, i) => {
      const out = convs[i].apply(h, layer);
      h = i === 0 ? Object.fromEntries(Object.entries(out).map(([t, x]) => [t, tf.relu(x) as tf.Tensor2D])) : out;
    });
    return tf.sum(tf.mul(tf.gather(h[b.srcType], b.srcRow), tf.gather(h[b.dstType], b.dstRow)), 1) as tf.Tensor1D;
  };
  const opt = adam(o.learningRate);
  // One set of feature tables for the training loader and every scoring one.
  const tables = new FeatureTables(g, o.features);
  const sampled = typedGraphFor(g, o.sampleOn);
  const loader = releasedOnThrow(
    sampled,
    () =>
      new TypedLinkLoader(sampled.graph, {
        edgeType: key,
        edges: train,
        fanouts: o.fanouts,
        batchSize: o.batchSize,
        shuffle: true,
        seed: o.seed,
        features: tables,
      }),
  );
  const big = Math.max(...Object.values(g.numNodes));
  const auc = async (e: TypedEdges): Promise<number> => {
    if (e.src.length === 0) return NaN;
    const nDst = g.numNodes[d];
    const neg = {src: e.src, dst: e.src.map(() => randInt(rng, nDst))};
    const scores = async (pairs: TypedEdges) => {
      const out: number[] = [];
      const l = new TypedLinkLoader(sampled.graph, {
        edgeType: key,
        edges: pairs,
        fanouts: o.fanouts.map(() => big),
        batchSize: 1024,
        negatives: 0,
        features: tables,
      });
      for await (const b of l) {
        const v = tf.tidy(() => logits(b));
        out.push(...v.dataSync());
        v.dispose();
        b.dispose();
      }
      l.dispose();
      return out;
    };
    return rocAuc(await scores(e), await scores(neg));
  };
  const losses: number[] = [];
  try {
    for (let epoch = 0; epoch < o.epochs; ++epoch) {
      let sum = 0,
        steps = 0;
      for await (const b of loader) {
        const loss = opt.minimize(() => tf.losses.sigmoidCrossEntropy(b.label, logits(b)) as tf.Scalar, true, vars)!;
        sum += loss.dataSync()[0];
        ++steps;
        loss.dispose();
        b.dispose();
      }
      losses.push(sum / Math.max(steps, 1));
    }
    return {losses, valAuc: await auc(val), testAuc: await auc(test)};
  } finally {
    loader.dispose();
    sampled.release();
    tables.dispose();
    convs.forEach((c) => c.dispose());
    opt.dispose();
    g.free();
  }
}

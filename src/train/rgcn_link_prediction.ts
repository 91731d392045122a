// Link prediction on a knowledge graph with a relational GNN (Schlichtkrull et al., 2018): an R-GCN encoder
// over the training triples (each relation and its reverse a relation of a one-type typed graph, every entity
// its full neighbourhood) turns entity inputs (given features, or a learnable row per entity) into
// embeddings, and a DistMult decoder scores (h, r, t) as sum(e_h * w_r * e_t). Trained full-batch against
// uniformly corrupted heads and tails with the logistic loss; ranked with the KGE protocol (filtered, both
// sides) by writing the embeddings and relation vectors into a distMult model.
import * as tf from '@tensorflow/tfjs-core';

import {CsrBlock} from '../graph/aggregate';
import {edgeTypeKey, EdgeType, HeteroGraph} from '../graph/hetero_graph';
import {checkKnowledgeGraph, KnowledgeGraph, tripleCount} from '../graph/triples';
import type {TypedLayer} from '../graph/typed_sampling';
import {RgcnConv} from '../nn/hetero/rgcn_conv';
import {DistMult} from '../nn/kge/distmult';
import {adam} from '../optimizers/fused_adam';
import {seededRng, tfSeed} from '../util/random';
import {evaluateKge, RankingMetrics} from './kge_ranking';

export interface RgcnLinkOptions {
  dim: number;
  numBases: number;
  epochs: number;
  learningRate: number;
  /** Corrupted triples per training triple (half heads, half tails). */
  negatives: number;
  seed: number;
}

export const DEFAULT_RGCN_LINK: RgcnLinkOptions = {dim: 64, numBases: 4, epochs: 100, learningRate: 0.01, negatives: 2, seed: 0};

export interface RgcnLinkResult {
  losses: number[];
  test: RankingMetrics;
  valid?: RankingMetrics;
}

/** One full-neighbourhood layer over the entity graph: every relation's rows as a block. */
function fullLayer(g: HeteroGraph, n: number): TypedLayer {
  const blocks: Record<string, CsrBlock> = {};
  for (const r of g.relations.values()) {
    const offsets = r.graph.offsets(0, n + 1);
    if (Number(offsets[n]) > 2 ** 31 - 1)
      throw new RangeError(`trainRgcnLinkPrediction: relation ${edgeTypeKey(r.type)} holds more than 2^31 - 1 edges`);
    blocks[edgeTypeKey(r.type)] = new CsrBlock(
      Int32Array.from(offsets, Number),
      Int32Array.from(r.graph.columns(0, Number(offsets[n]))),
      n,
    );
  }
  const all = Int32Array.from({length: n}, (_, i) => i);
  return {dst: {entity: all}, src: {entity: all}, blocks};
}

/** Trains the encoder and decoder on kg.train; `features` [entities, width] are the inputs (else a learnable row per entity). */
export async function trainRgcnLinkPrediction(
  kg: KnowledgeGraph,
  options: Partial<RgcnLinkOptions> = {},
  features?: {values: Float32Array; dim: number},
): Promise<RgcnLinkResult> {
  const o = {...DEFAULT_RGCN_LINK, ...options};
  checkKnowledgeGraph(kg, 'trainRgcnLinkPrediction');
  for (const k of ['dim', 'numBases', 'epochs', 'negatives'] as const)
    if (!Number.isInteger(o[k]) || o[k] < 1) throw new RangeError(`trainRgcnLinkPrediction: ${k} must be a positive integer, got ${o[k]}`);
  const n = kg.numEntities,
    R = kg.numRelations;
  if (features && (features.values.length !== n * features.dim || features.dim < 1))
    throw new RangeError(
      `trainRgcnLinkPrediction: features must hold ${n} rows of dim values, got ${features.values.length} for dim ${features.dim}`,
    );
  // Each relation r as two edge types: r (head -> tail: messages to the tail) and its reverse.
  // The training triples bucketed by relation in one pass.
  const byRelation: number[][] = Array.from({length: R}, () => []);
  kg.train.relations.forEach((r, i) => byRelation[r].push(i));
  const edges = byRelation.flatMap((at, r) => {
    const h = Int32Array.from(at, (i) => kg.train.heads[i]),
      t = Int32Array.from(at, (i) => kg.train.tails[i]);
    return [
      {type: ['entity', `r${r}`, 'entity'] as EdgeType, edges: {src: h, dst: t}},
      {type: ['entity', `rev_r${r}`, 'entity'] as EdgeType, edges: {src: t, dst: h}},
    ];
  });
  const g = HeteroGraph.fromEdges({entity: n}, edges);
  const layer = fullLayer(g, n);
  const relations = g.edgeTypes.map(edgeTypeKey);
  const inDim = features?.dim ?? o.dim;
  const input = features
    ? tf.tensor2d(features.values, [n, features.dim])
    : tf.tidy(() => tf.variable(tf.randomNormal([n, o.dim], 0, 1 / Math.sqrt(o.dim), 'float32', tfSeed(o.seed))));
  const convs = [
    new RgcnConv({inDim, units: o.dim, relations, numBases: o.numBases, seed: o.seed * 17 + 1}),
    new RgcnConv({inDim: o.dim, units: o.dim, relations, numBases: o.numBases, seed: o.seed * 17 + 2}),
  ];
  const relVec = tf.tidy(() => tf.variable(tf.randomNormal([R, o.dim], 1, 0.1, 'float32', tfSeed(o.seed + 3))));
  const vars = [...convs.flatMap((c) => c.variables), relVec, ...(features ? [] : [input as tf.Variable])];
  const encode = (): tf.Tensor2D => {
    const h1 = tf.relu(convs[0].apply({entity: input as tf.Tensor2D}, layer).entity) as tf.Tensor2D;
    return convs[1].apply({entity: h1}, layer).entity;
  };
  const m = tripleCount(kg.train);
  const heads = tf.tensor1d(kg.train.heads, 'int32'),
    rels = tf.tensor1d(kg.train.relations, 'int32'),
    tails = tf.tensor1d(kg.train.tails, 'int32');
  const rng = seededRng(o.seed * 31 + 7);
  const opt = adam(o.learningRate);
  const losses: number[] = [];
  const score = (e: tf.Tensor2D, h: tf.Tensor1D, r: tf.Tensor1D, t: tf.Tensor1D) =>
    tf.sum(tf.mul(tf.mul(tf.gather(e, h), tf.gather(relVec, r)), tf.gather(e, t)), 1);
  let model: DistMult | undefined;
  try {
    for (let epoch = 0; epoch < o.epochs; ++epoch) {
      const k = m * o.negatives;
      const corrupt = Int32Array.from({length: k}, () => Math.floor(rng() * n));
      const loss = opt.minimize(
        () => {
          const e = encode();
          const pos = score(e, heads, rels, tails);
          const idx = tf.tensor1d(
            Int32Array.from({length: k}, (_, i) => i % m),
            'int32',
          );
          const nh = tf.tensor1d(
            Int32Array.from({length: k}, (_, i) => (i % 2 === 0 ? corrupt[i] : kg.train.heads[i % m])),
            'int32',
          );
          const nt = tf.tensor1d(
            Int32Array.from({length: k}, (_, i) => (i % 2 === 1 ? corrupt[i] : kg.train.tails[i % m])),
            'int32',
          );
          const neg = score(e, nh, tf.gather(rels, idx) as tf.Tensor1D, nt);
          return tf.add(tf.mean(tf.softplus(tf.neg(pos))), tf.mean(tf.softplus(neg))) as tf.Scalar;
        },
        true,
        vars,
      )!;
      losses.push((await loss.data())[0]);
      loss.dispose();
    }
    // Ranking with the KGE protocol: the embeddings and relation vectors in a distMult model's tables.
    model = new DistMult({numEntities: n, numRelations: R, dim: o.dim});
    const e = tf.tidy(encode);
    model.entity.write(
      Int32Array.from({length: n}, (_, i) => i),
      e,
    );
    model.relation.write(
      Int32Array.from({length: R}, (_, i) => i),
      relVec,
    );
    e.dispose();
    const filter = [kg.train, kg.valid, kg.test];
    return {
      losses,
      test: evaluateKge(model, kg.test, {filter}),
      valid: tripleCount(kg.valid) > 0 ? evaluateKge(model, kg.valid, {filter}) : undefined,
    };
  } finally {
    model?.dispose();
    tf.dispose([heads, rels, tails, relVec, input]);
    convs.forEach((c) => c.dispose());
    Object.values(layer.blocks).forEach((b) => b.dispose());
    opt.dispose();
    g.free();
  }
}

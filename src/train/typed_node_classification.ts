// Node classification on a typed graph: the labelled type's training vertices in shuffled batches from the
// TypedNeighborLoader (each batch's typed sampled layers and inputs), a stack of rgcnConv, rgatConv or heteroConv(sageConv)
// layers (relu between), softmax cross-entropy; judged on
// the validation and test vertices with every neighbour taken (exact: a layer at a time over every vertex). Beside it the two baselines
// a relational model must beat: the same stack over the graph flattened to one vertex type and one relation
// (types ignored), and the labelled type's features alone (a logistic regression).
import * as tf from '@tensorflow/tfjs-core';

import {releasedOnThrow, typedGraphFor, TypedSampling} from '../graph/device_hetero_graph';
import {featureValues, HeteroGraph} from '../graph/hetero_graph';
import {softmaxCrossEntropy} from '../nn/softmax_cross_entropy';
import {TYPED_MODELS, TypedNodeClassifier} from '../nn/typed_classifier';
import {FeatureTables, TypedFeatureStorage, TypedNeighborLoader} from '../nn/typed_neighbor_loader';
import {accuracy} from './node_classification';
import {adam} from '../optimizers/fused_adam';

export {TYPED_MODELS} from '../nn/typed_classifier';
export type {TypedModelKind} from '../nn/typed_classifier';
import type {TypedModelKind} from '../nn/typed_classifier';

export interface TypedNodeClassificationOptions {
  model: TypedModelKind;
  hidden: number;
  /** Sampled neighbours per hop for training (one hop per layer). */
  fanouts: number[];
  numBases?: number;
  /** Attention heads of rgat (they split hidden). */
  heads: number;
  epochs: number;
  batchSize: number;
  learningRate: number;
  /**
   * What a type without features reads: 'zeros' (the common width), or 'embeddings': a learnable row per
   * vertex (a table of the common width trained by sparse Adam, as PyG's ogbn-mag example learns authors').
   */
  featurelessInputs: 'zeros' | 'embeddings';
  seed: number;
  /**
   * Validation accuracy every this many epochs (the exact layer-wise pass over the whole graph, as at the end);
   * 0: only at the end.
   */
  evalEvery: number;
  /** Called after each epoch with its figures (progress bars, metrics files). */
  onEpoch?: (m: TypedEpochMetrics) => void;
  /**
   * Return the trained classifier in the result (`classifier`: the caller predicts with it, saves it with
   * wm.nn.saveTypedClassifier and disposes it) instead of disposing it. Not for the 'flattened' baseline.
   */
  keep?: boolean;
  /** Where training batches are sampled: 'auto' (the GPU when the backend has one and the relations fit), 'host' or 'device'. */
  sampleOn?: TypedSampling;
  /** How each type's features are kept: memory, storage dtype, GPU cache share (default: float32 tensors on the backend's device). */
  features?: TypedFeatureStorage;
}

/** One epoch of a typed run. */
export interface TypedEpochMetrics {
  epoch: number;
  /** Mean training loss over the epoch's batches. */
  loss: number;
  seconds: number;
  /** Training seeds per second of the epoch's training (sampling included). */
  seedsPerSecond: number;
  /** Validation accuracy, in the epochs evalEvery asks for. */
  valAcc?: number;
}

export const DEFAULT_TYPED_NODE_CLASSIFICATION: TypedNodeClassificationOptions = {
  model: 'rgcn',
  hidden: 32,
  fanouts: [10, 10],
  heads: 2,
  epochs: 30,
  batchSize: 256,
  learningRate: 0.01,
  featurelessInputs: 'zeros',
  seed: 0,
  evalEvery: 0,
};

export interface TypedRunResult {
  model: TypedModelKind;
  valAcc: number;
  testAcc: number;
  seconds: number;
  /** Every epoch's figures, in order. */
  history: TypedEpochMetrics[];
  /** The trained classifier, with `keep`. */
  classifier?: TypedNodeClassifier;
}

/** The graph with one vertex type ('node': each type's vertices in turn) and one relation ('edge'): types ignored. */
export function flattened(g: HeteroGraph): HeteroGraph {
  const h = g.toHomogeneous();
  try {
    const n = h.numVertices;
    const offsets = h.graph.offsets(0, n + 1);
    const src = Int32Array.from(h.graph.columns(0, Number(offsets[n]))),
      dst = new Int32Array(src.length);
    for (let v = 0; v < n; ++v) dst.fill(v, Number(offsets[v]), Number(offsets[v + 1]));
    const l = g.labels!;
    const labels = new Int32Array(n).fill(-1);
    labels.set(l.labels, h.offsets[l.type]);
    const shift = (a: Int32Array) => a.map((v) => v + h.offsets[l.type]);
    const split = l.split && {train: shift(l.split.train), val: shift(l.split.val), test: shift(l.split.test)};
    const dim = Math.max(...Object.values(g.features).map((f) => f.dim));
    const values = new Float32Array(n * dim);
    for (const [t, f] of Object.entries(g.features)) {
      const rows = featureValues(f);
      for (let v = 0; v < g.numNodes[t]; ++v) values.set(rows.subarray(v * f.dim, (v + 1) * f.dim), (h.offsets[t] + v) * dim);
    }
    return HeteroGraph.fromEdges({node: n}, [{type: ['node', 'edge', 'node'], edges: {src, dst}}], {
      features: {node: {values, dim}},
      labels: {type: 'node', labels, numClasses: l.numClasses, split},
    });
  } finally {
    h.graph.free();
  }
}

/** Trains one model on g's labelled type; returns its validation and test accuracy. */
export async function trainTypedNodeClassification(
  graph: HeteroGraph,
  options: Partial<TypedNodeClassificationOptions> = {},
): Promise<TypedRunResult> {
  // Options left undefined keep their defaults.
  const o = {...DEFAULT_TYPED_NODE_CLASSIFICATION, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined))};
  const started = Date.now();
  const l0 = graph.labels;
  if (!l0?.split) throw new RangeError('trainTypedNodeClassification: the graph needs labels with a split on its labelled type');
  if (!TYPED_MODELS.includes(o.model))
    throw new RangeError(`trainTypedNodeClassification: model must be one of ${TYPED_MODELS.join(', ')}, got ${o.model}`);
  if (o.featurelessInputs !== 'zeros' && o.featurelessInputs !== 'embeddings')
    throw new RangeError(`trainTypedNodeClassification: featurelessInputs must be 'zeros' or 'embeddings', got ${o.featurelessInputs}`);
  if (!Number.isInteger(o.evalEvery) || o.evalEvery < 0)
    throw new RangeError(`trainTypedNodeClassification: evalEvery must be a non-negative integer, got ${o.evalEvery}`);
  if (o.keep && o.model === 'flattened')
    throw new RangeError(
      "trainTypedNodeClassification: keep is for the typed models; the 'flattened' baseline's graph is not the one given",
    );
  if ((o.model === 'rgat' || o.model === 'hgt') && o.hidden % o.heads !== 0)
    throw new RangeError(`trainTypedNodeClassification: heads (${o.heads}) must divide hidden (${o.hidden})`);
  const g = o.model === 'flattened' ? flattened(graph) : graph;
  try {
    const split = g.labels!.split!;
    const hops = o.model === 'features' ? 0 : o.fanouts.length;
    const model = new TypedNodeClassifier(g, {
      model: o.model,
      hidden: o.hidden,
      layers: hops,
      numBases: o.numBases,
      heads: o.heads,
      featurelessInputs: o.featurelessInputs,
      learningRate: o.learningRate,
      seed: o.seed,
    });
    const fanouts = hops === 0 ? [] : o.fanouts;
    const opt = adam(o.learningRate);
    // One set of feature tables for the loader, the first batch that sizes the layers and every evaluation.
    const tables = new FeatureTables(g, o.features);
    const sampled = typedGraphFor(g, o.sampleOn);
    const train = releasedOnThrow(
      sampled,
      () =>
        new TypedNeighborLoader(sampled.graph, {
          seeds: split.train,
          fanouts,
          batchSize: o.batchSize,
          shuffle: true,
          seed: o.seed,
          features: tables,
        }),
    );
    const labels = g.labels!.labels;
    const acc = (pred: Int32Array, ids: Int32Array) => accuracy(pred, labels, ids);
    const history: TypedEpochMetrics[] = [];
    let pred: Int32Array | undefined; // the last epoch's predictions
    let kept = false;
    try {
      const variables = model.variables(fanouts, tables).concat(Object.values(model.learnt).map((e) => e.anchor));
      for (let epoch = 1; epoch <= o.epochs; ++epoch) {
        const epochStarted = performance.now();
        // Each batch's loss stays on the device until the epoch's end: one read an epoch, not one a batch.
        const losses: tf.Scalar[] = [];
        for await (const b of train) {
          losses.push(opt.minimize(() => softmaxCrossEntropy(b.y!, model.forward(b)), true, variables)!);
          model.stepTables();
          b.dispose();
        }
        const total = losses.length ? tf.addN(losses) : undefined;
        const loss = total ? (await total.data())[0] / losses.length : NaN;
        tf.dispose([...losses, ...(total ? [total] : [])]);
        const trainSeconds = (performance.now() - epochStarted) / 1000;
        const m: TypedEpochMetrics = {epoch, loss, seconds: trainSeconds, seedsPerSecond: split.train.length / trainSeconds};
        // The last epoch is always judged (the run's result); others every evalEvery epochs.
        if (epoch === o.epochs || (o.evalEvery > 0 && epoch % o.evalEvery === 0)) {
          const p = model.predictAll(tables).classes;
          if (epoch === o.epochs) pred = p;
          m.valAcc = acc(p, split.val);
          m.seconds = (performance.now() - epochStarted) / 1000;
        }
        history.push(m);
        o.onEpoch?.(m);
      }
      pred ??= model.predictAll(tables).classes;
      const result: TypedRunResult = {
        model: o.model,
        valAcc: acc(pred, split.val),
        testAcc: acc(pred, split.test),
        seconds: (Date.now() - started) / 1000,
        history,
      };
      if (o.keep) {
        result.classifier = model;
        kept = true;
      }
      return result;
    } finally {
      if (!kept) model.dispose();
      train.dispose();
      sampled.release();
      tables.dispose();
      opt.dispose();
    }
  } finally {
    if (g !== graph) g.free();
  }
}

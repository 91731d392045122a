// Node classification on a typed graph: the labelled type's training vertices in shuffled batches from the
// TypedNeighborLoader (each batch's typed sampled layers and inputs), a stack of rgcnConv, rgatConv or heteroConv(sageConv)
// layers (relu between), softmax cross-entropy; judged on
// the validation and test vertices with every neighbour taken (exact: a layer at a time over every vertex). Beside it the two baselines
// a relational model must beat: the same stack over the graph flattened to one vertex type and one relation
// (types ignored), and the labelled type's features alone (a logistic regression).
import * as tf from '@tensorflow/tfjs-core';

import {HeteroGraph} from '../graph/hetero_graph';
import {edgeTypeKey} from '../graph/hetero_graph';
import {sageConv} from '../nn/conv/sage_conv';
import {HeteroConv} from '../nn/hetero/hetero_conv';
import {HgtConv} from '../nn/hetero/hgt_conv';
import {RgatConv} from '../nn/hetero/rgat_conv';
import {RgcnConv} from '../nn/hetero/rgcn_conv';
import {Embedding, embedding} from '../nn/embedding';
import {softmaxCrossEntropy} from '../nn/softmax_cross_entropy';
import {adam as sparseAdam} from '../nn/sparse_optimizer';
import type {TypedLayer} from '../graph/typed_sampling';
import {typedLayerwise} from '../nn/typed_layerwise';
import {FeatureTables, TypedBatch, TypedNeighborLoader} from '../nn/typed_neighbor_loader';
import {adam} from '../optimizers/fused_adam';
import {tfSeed} from '../util/random';

/**
 * 'sage': PyG's HeteroConv of SAGEConv (a SAGE layer per relation, summed); 'hgt': HGT layers (hidden wide, its
 * heads) and a linear map of the labelled type's rows to the classes, as PyG's HGT example.
 */
export type TypedModelKind = 'rgcn' | 'rgat' | 'sage' | 'hgt' | 'flattened' | 'features';
export const TYPED_MODELS: TypedModelKind[] = ['rgcn', 'rgat', 'sage', 'hgt', 'flattened', 'features'];

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
    for (const [t, f] of Object.entries(g.features))
      for (let v = 0; v < g.numNodes[t]; ++v) values.set(f.values.subarray(v * f.dim, (v + 1) * f.dim), (h.offsets[t] + v) * dim);
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
  if ((o.model === 'rgat' || o.model === 'hgt') && o.hidden % o.heads !== 0)
    throw new RangeError(`trainTypedNodeClassification: heads (${o.heads}) must divide hidden (${o.hidden})`);
  const g = o.model === 'flattened' ? flattened(graph) : graph;
  try {
    const l = g.labels!,
      split = l.split!;
    const dim = Math.max(1, ...Object.values(g.features).map((f) => f.dim));
    const hops = o.model === 'features' ? 0 : o.fanouts.length;
    const widths = [dim, ...Array.from({length: Math.max(hops - 1, 0)}, () => o.hidden)];
    const relations = g.edgeTypes.map(edgeTypeKey);
    const convs: (RgcnConv | RgatConv | HeteroConv | HgtConv)[] = widths.map((w, i) => {
      const last = i === widths.length - 1,
        seed = o.seed * 31 + i;
      if (o.model === 'hgt') return new HgtConv({inDim: w, units: o.hidden, heads: o.heads, nodeTypes: g.nodeTypes, relations, seed});
      if (o.model === 'sage')
        return new HeteroConv(
          Object.fromEntries(relations.map((key, r) => [key, sageConv({units: last ? l.numClasses : o.hidden, seed: seed * 1009 + r})])),
        );
      if (o.model === 'rgat')
        return new RgatConv({inDim: w, units: last ? l.numClasses : o.hidden / o.heads, heads: o.heads, concat: !last, relations, seed});
      return new RgcnConv({inDim: w, units: last ? l.numClasses : o.hidden, relations, numBases: o.numBases, seed});
    });
    // Learnable rows for the types without features (none for the features-alone baseline and the flattened graph).
    const learnt: Record<string, Embedding> =
      o.featurelessInputs === 'embeddings' && hops > 0
        ? Object.fromEntries(
            g.nodeTypes
              .filter((t) => !g.features[t] && g.numNodes[t] > 0)
              .map((t, i) => [
                t,
                embedding({rows: g.numNodes[t], dim, optimizer: sparseAdam({lr: o.learningRate}), init: {seed: o.seed * 131 + i + 1}}),
              ]),
          )
        : {};
    // A linear map to the classes: the features-alone baseline's model, and HGT's last step.
    const headIn = hops === 0 ? dim : o.model === 'hgt' ? o.hidden : 0;
    const head = headIn
      ? tf.tidy(() => tf.variable(tf.randomNormal([headIn, l.numClasses], 0, 0.1, 'float32', tfSeed(o.seed))))
      : undefined;
    // heteroConv's layers make their weights on their first call (their widths are the inputs'): the
    // variables are gathered after the first batch's forward pass.
    let vars: tf.Variable[] | undefined;
    const variables = (b: TypedBatch): tf.Variable[] => {
      if (!vars) {
        if (o.model === 'sage') tf.dispose(tf.tidy(() => forward(b)));
        vars = [...convs.flatMap((c) => c.variables), ...(head ? [head] : []), ...Object.values(learnt).map((e) => e.anchor)];
      }
      return vars;
    };
    const forward = (b: TypedBatch): tf.Tensor2D => {
      if (hops === 0) return tf.matMul(b.x[l.type], head!);
      let h = b.x;
      const ids = b.sub.layers[0].src;
      for (const [t, e] of Object.entries(learnt)) if (ids[t]?.length) h = {...h, [t]: e.lookup(ids[t]) as tf.Tensor2D};
      b.sub.layers.forEach((layer, i) => {
        const out = convs[i].apply(h, layer);
        // HGT's layers end in their own gelu and gate; the others take a ReLU between layers.
        const between = i < convs.length - 1 && o.model !== 'hgt';
        h = between ? Object.fromEntries(Object.entries(out).map(([t, x]) => [t, tf.relu(x) as tf.Tensor2D])) : out;
      });
      return head ? tf.matMul(h[l.type], head) : h[l.type];
    };
    const fanouts = hops === 0 ? [] : o.fanouts;
    const opt = adam(o.learningRate);
    const train = new TypedNeighborLoader(g, {seeds: split.train, fanouts, batchSize: o.batchSize, shuffle: true, seed: o.seed});
    // The predicted class of every vertex of the labelled type, exactly (every neighbour), a layer at a time.
    const predictAll = (): Int32Array => {
      const feats = new FeatureTables(g);
      feats.inputs({}); // its tables made here, outside the tidy scopes that read them
      try {
        const inputsOf = (t: string, ids: Int32Array): tf.Tensor2D =>
          learnt[t] ? (learnt[t].read(ids) as tf.Tensor2D) : feats.inputs({[t]: ids})[t];
        const n = g.numNodes[l.type];
        if (hops === 0) {
          const out = new Int32Array(n);
          for (let b = 0; b < n; b += 4096) {
            const ids = Int32Array.from({length: Math.min(4096, n - b)}, (_, i) => b + i);
            const p = tf.tidy(() => tf.argMax(tf.matMul(inputsOf(l.type, ids), head!), 1));
            out.set(p.dataSync() as Int32Array, b);
            p.dispose();
          }
          return out;
        }
        const layers = convs.map((c, i) => (x: Record<string, tf.Tensor2D>, layer: TypedLayer) => {
          const out = c.apply(x, layer);
          const between = i < convs.length - 1 && o.model !== 'hgt';
          return between ? Object.fromEntries(Object.entries(out).map(([t, v]) => [t, tf.relu(v) as tf.Tensor2D])) : out;
        });
        const last = typedLayerwise(g, inputsOf, layers, {batchSize: 1024, lastTypes: [l.type]});
        try {
          const p = tf.tidy(() => tf.argMax(head ? tf.matMul(last[l.type], head) : last[l.type], 1));
          const out = Int32Array.from(p.dataSync());
          p.dispose();
          return out;
        } finally {
          tf.dispose(Object.values(last));
        }
      } finally {
        feats.dispose();
      }
    };
    const acc = (pred: Int32Array, ids: Int32Array) => {
      let ok = 0;
      for (const v of ids) ok += pred[v] === l.labels[v] ? 1 : 0;
      return ids.length ? ok / ids.length : NaN;
    };
    const history: TypedEpochMetrics[] = [];
    let pred: Int32Array | undefined; // the last epoch's predictions
    try {
      for (let epoch = 1; epoch <= o.epochs; ++epoch) {
        const epochStarted = performance.now();
        // Each batch's loss stays on the device until the epoch's end: one read an epoch, not one a batch.
        const losses: tf.Scalar[] = [];
        for await (const b of train) {
          losses.push(opt.minimize(() => softmaxCrossEntropy(b.y!, forward(b)), true, variables(b))!);
          for (const e of Object.values(learnt)) e.step();
          b.dispose();
        }
        const total = losses.length ? tf.addN(losses) : undefined;
        const loss = total ? (await total.data())[0] / losses.length : NaN;
        tf.dispose([...losses, ...(total ? [total] : [])]);
        const trainSeconds = (performance.now() - epochStarted) / 1000;
        const m: TypedEpochMetrics = {
          epoch,
          loss,
          seconds: trainSeconds,
          seedsPerSecond: split.train.length / Math.max(trainSeconds, 1e-9),
        };
        // The last epoch is always judged (the run's result); others every evalEvery epochs.
        if (epoch === o.epochs || (o.evalEvery > 0 && epoch % o.evalEvery === 0)) {
          const p = predictAll();
          if (epoch === o.epochs) pred = p;
          m.valAcc = acc(p, split.val);
          m.seconds = (performance.now() - epochStarted) / 1000;
        }
        history.push(m);
        o.onEpoch?.(m);
      }
      pred ??= predictAll();
      return {
        model: o.model,
        valAcc: acc(pred, split.val),
        testAcc: acc(pred, split.test),
        seconds: (Date.now() - started) / 1000,
        history,
      };
    } finally {
      convs.forEach((c) => c.dispose());
      Object.values(learnt).forEach((e) => e.dispose());
      head?.dispose();
      train.dispose();
      opt.dispose();
    }
  } finally {
    if (g !== graph) g.free();
  }
}

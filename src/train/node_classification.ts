// Trains node classification (GraphSAGE, a graph attention network or a GCN) with
// the standard protocol: one random train/val/test split per seed, model
// selected at the best validation accuracy, test accuracy reported there.
import * as tf from '@tensorflow/tfjs-core';

import {NodeClassificationData} from '../graph/dataset';
import {randomSplit, Split} from '../graph/split';
import {EmbeddingMemory} from '../nn/embedding';
import {NeighborLoader} from '../nn/neighbor_loader';
import {GatClassifier} from '../nn/gat_classifier';
import {GcnClassifier} from '../nn/gcn_classifier';
import {MlpClassifier} from '../nn/mlp_classifier';
import {GraphSageClassifier} from '../nn/graphsage';
import {fullGraph, NodeModelConfig, predictedClasses} from '../nn/node_model';
import {Rng, seededRng} from '../util/random';
import {adam} from '../optimizers/fused_adam';
import {softmaxCrossEntropy} from '../nn/softmax_cross_entropy';
import {
  BaselineAccuracy,
  classMeans,
  nearestClassMean,
  onSplit,
  propagatedLabels,
  scoreAccuracy,
  smoothedScores,
  smoothingWeight,
} from './baselines';
import {saveNodeClassifier} from '../nn/saved_classifier';
import {featureTable, inputFeatures} from '../nn/node_inputs';
import type {FeatureSource} from '../nn/feature_source';
import type {EmbeddingDType} from '../nn/embedding';
import {sgc} from './sgc';
import {hottestRows} from '../nn/table/row_cache';

export const NODE_MODELS = ['sage', 'gat', 'gcn', 'mlp'] as const;
export type NodeModelKind = (typeof NODE_MODELS)[number];

/** The model's name as a reader knows it. */
export function nodeModelName(kind: NodeModelKind): string {
  return {sage: 'GraphSAGE', gat: 'GAT', gcn: 'GCN', mlp: 'MLP'}[kind];
}

export type NodeClassifier = GraphSageClassifier | GatClassifier | GcnClassifier | MlpClassifier;

export const NODE_SAMPLERS = ['tree', 'subgraph'] as const;

function requireNodeModel(kind: string): void {
  if (!NODE_MODELS.includes(kind as NodeModelKind)) throw new RangeError(`model must be one of ${NODE_MODELS.join(', ')}, got '${kind}'`);
}

/** Throws unless the model and the sampler are known and go together (GAT and GCN run over compact subgraphs only). */
export function checkNodeModel(kind: string, sampler: string): void {
  requireNodeModel(kind);
  if (!NODE_SAMPLERS.includes(sampler as (typeof NODE_SAMPLERS)[number]))
    throw new RangeError(`sampler must be one of ${NODE_SAMPLERS.join(', ')}, got '${sampler}'`);
  if (kind !== 'sage' && sampler !== 'subgraph')
    throw new RangeError(`model '${kind}' runs over compact subgraphs: use sampler 'subgraph'`);
}

/** The classifier of a kind (heads: a GAT's hidden heads; GAT and GCN train on compact subgraphs only). */
export function createNodeClassifier(
  kind: NodeModelKind,
  given: Pick<NodeModelConfig, 'numNodes' | 'numClasses'> & Partial<NodeModelConfig>,
  heads = DEFAULT_NODE_CLASSIFICATION.heads,
): NodeClassifier {
  requireNodeModel(kind);
  const d = DEFAULT_NODE_CLASSIFICATION;
  // Only the graph's size and the classes are the caller's to say; the rest has the main job's defaults
  // (learnable embeddings only when there are no features).
  const config: NodeModelConfig = {
    embeddingDim: given.features ? 0 : d.embeddingDim,
    hiddenDim: d.hiddenDim,
    numLayers: d.fanouts.length,
    dropout: d.dropout,
    seed: d.seed,
    embeddingLearningRate: d.embeddingLearningRate,
    ...given,
  };
  if (kind === 'sage') return new GraphSageClassifier(config);
  if (kind === 'mlp') return new MlpClassifier(config);
  return kind === 'gat' ? new GatClassifier({...config, heads}) : new GcnClassifier(config);
}

export interface NodeClassificationOptions {
  /**
   * 'sage': GraphSAGE (mean aggregator); 'gat': graph attention (wm.nn.gatAggregate);
   * 'gcn': Kipf and Welling's GCN (wm.graph.aggregate's 'gcn'). GAT and GCN need compact subgraphs.
   */
  model: NodeModelKind;
  /** Attention heads of a GAT's hidden layers (they split hiddenDim). */
  heads: number;
  epochs: number;
  batchSize: number;
  fanouts: number[];
  /**
   * 'tree': each seed's sampled neighbourhood as its own tree (duplicates
   * computed again); 'subgraph': a compact subgraph per batch (unique-and-
   * relabel, each vertex once per layer, native CSR aggregation).
   */
  sampler: (typeof NODE_SAMPLERS)[number];
  embeddingDim: number;
  hiddenDim: number;
  learningRate: number;
  /** The table's lazy Adam touches each row only when sampled: it takes a larger step. */
  embeddingLearningRate: number;
  weightDecay: number;
  dropout: number;
  /** Where the embedding table lives (default: the GPU if there is one, else host memory). */
  embeddingMemory?: EmbeddingMemory;
  trainFraction: number;
  valFraction: number;
  seed: number;
  /**
   * What the first layer reads: the data's node features, learnable embeddings, or both
   * (default: both when the data has features, else embeddings; on contextual SBMs the pair beats label
   * propagation where features alone do not: the embeddings learn what the graph's labels say).
   */
  inputs?: 'features' | 'embeddings' | 'both' | 'structure';
  /**
   * Choose the epoch and smoothing on half of the validation vertices and report the other half's
   * accuracy as `heldOutValAcc`: comparing configurations by the accuracy they were chosen on favours
   * the noisiest (the best of 200 epochs of a jumpy curve). The model search sets it. Default false.
   */
  heldOutScore?: boolean;
  /**
   * 'gradient' (the default): trained by Adam. 'class-means': a one-layer MLP over features whose
   * weights are set, not trained, to classify each vertex by its nearest training class mean (the
   * features-only baseline as a model that saves and predicts like the others).
   */
  fit?: 'gradient' | 'class-means';
  /**
   * Compute the baselines beyond label propagation beside the model (features alone and SGC, or the
   * structure features alone; the search, which reads none of them, skips them). Default true.
   */
  baselines?: boolean;
  /** Storage of the feature table (float16 / bfloat16 halve it); it lives where embeddingMemory says. */
  featureDtype?: EmbeddingDType;
  /**
   * With the features in 'host', 'managed' or 'continuous' memory: the share of their rows kept in a GPU
   * cache, the highest-degree vertices first (0 or absent: none). Each epoch's metrics carry the cache's hit rate.
   */
  featureCache?: number;
  /**
   * Smooth the best epoch's predictions over the graph with the training labels (smoothPredictions, the
   * predictions weighted by smoothingWeight of the model's and label propagation's validation accuracies):
   * the reported test accuracy is then the smoothed one (the model's own stays in `modelTestAcc`).
   * 'auto' (the default) smooths when that gives a validation accuracy at least the model's own.
   */
  smooth?: boolean | 'auto';
  /**
   * Full-batch training: one step per epoch over the whole graph (every layer over full neighbourhoods,
   * the loss over the training vertices), as the GCN paper trains; for graphs that fit. Default false
   * (sampled mini-batches of batchSize seeds).
   */
  fullBatch?: boolean;
  /** Stop after this many epochs without a better validation accuracy (0: run every epoch). Default 0. */
  patience?: number;
  /**
   * Scale each vertex's features to sum to 1 (the GCN paper's preprocessing of bag-of-words features);
   * features with a negative value are left as they are. Default false.
   */
  normalizeFeatures?: boolean;
  /** Save the model of the best validation epoch here (wm.nn.saveNodeClassifier), with the data's class names. */
  saveTo?: string;
  /** The dataset's location, recorded with a saved model (predictions need its graph). */
  dataLocation?: string;
  /**
   * A time (Date.now() ms) after which no further epoch starts: the run stops with what it has and
   * says so (`cutShort`). The first epoch always runs. Default none.
   */
  deadline?: number;
}

export const DEFAULT_NODE_CLASSIFICATION: NodeClassificationOptions = {
  model: 'sage',
  heads: 4,
  epochs: 60,
  batchSize: 64,
  fanouts: [25, 10],
  sampler: 'subgraph',
  embeddingDim: 64,
  hiddenDim: 64,
  learningRate: 0.01,
  embeddingLearningRate: 0.02,
  weightDecay: 5e-4,
  dropout: 0.5,
  trainFraction: 0.1,
  valFraction: 0.1,
  seed: 0,
};

/** What every trainer reports of an epoch: its loss and accuracies, and its seconds. */
export interface EpochFigures {
  epoch: number;
  loss: number;
  trainAcc: number;
  valAcc: number;
  testAcc: number;
  seconds: number;
}

export interface EpochMetrics extends EpochFigures {
  seed: number;
  seedsPerSecond: number;
  /** The feature cache's lookups and hits over the epoch's training steps (with featureCache). */
  cache?: {lookups: number; hits: number; hitRate: number};
}

export interface RunResult {
  seed: number;
  bestEpoch: number;
  valAcc: number;
  testAcc: number;
  history: EpochMetrics[];
  /** The model's own test accuracy at the best epoch, before smoothing. */
  modelTestAcc: number;
  /** The model's own validation accuracy at the best epoch (valAcc is the smoothed one when smoothed). */
  modelValAcc: number;
  /** Whether the reported accuracies are of the predictions smoothed over the graph with the training labels. */
  smoothed: boolean;
  /** With heldOutScore: the accuracy on the validation half the choices were not made on. */
  heldOutValAcc?: number;
  /** Whether the deadline stopped the run before its epochs (or patience) were done. */
  cutShort?: boolean;
  /** Parameter-free baselines on the same split (train/baselines.ts). */
  baselines: {
    labelPropagation: BaselineAccuracy;
    /** Nearest class mean on the data's features alone. */
    featuresOnly?: BaselineAccuracy;
    /** SGC: the features propagated twice, then logistic regression (data with features). */
    sgc?: BaselineAccuracy;
    /** Nearest class mean on the graph's structure features (data without features). */
    structureOnly?: BaselineAccuracy;
  };
}

/** A random split of the labelled vertices (label >= 0) by fractions; unlabelled ones are in no part. */
export function splitLabelled(labels: Int32Array, trainFraction: number, valFraction: number, rng: Rng): Split {
  const labelled = Int32Array.from(labels.keys()).filter((v) => labels[v] >= 0);
  const s = randomSplit(labelled.length, trainFraction, valFraction, rng);
  return {train: s.train.map((i) => labelled[i]), val: s.val.map((i) => labelled[i]), test: s.test.map((i) => labelled[i])};
}

/**
 * Sets a one-layer model's [w, bias] so that argmax(x w + b) is the training class mean nearest to x:
 * w's column c is mean_c, b_c = -|mean_c|^2 / 2 (argmin |x - mean_c|^2 drops the |x|^2 all classes share).
 */
function setClassMeans(
  vars: tf.Variable[],
  values: Float32Array,
  dim: number,
  labels: Int32Array,
  train: Int32Array,
  classes: number,
): void {
  const {means, counts} = classMeans(values, dim, labels, classes, train);
  const w = new Float32Array(dim * classes),
    b = new Float32Array(classes);
  for (let c = 0; c < classes; ++c) {
    let sq = 0;
    for (let k = 0; k < dim; ++k) {
      const m = means[c * dim + k];
      w[k * classes + c] = m;
      sq += m * m;
    }
    // A class without training vertices is never predicted.
    b[c] = counts[c] ? -sq / 2 : -Infinity;
  }
  tf.tidy(() => {
    vars[0].assign(tf.tensor2d(w, [dim, classes]));
    vars[1].assign(tf.tensor1d(b));
  });
}

/** Share of `ids` whose predicted class is their label. */
export function accuracy(pred: Int32Array, labels: Int32Array, ids: Int32Array): number {
  let ok = 0;
  for (const v of ids) if (pred[v] === labels[v]) ++ok;
  return ids.length ? ok / ids.length : NaN;
}

export async function trainNodeClassification(
  data: NodeClassificationData,
  options: Partial<NodeClassificationOptions>,
  onEpoch: (m: EpochMetrics) => void = () => {},
): Promise<RunResult> {
  const o = {...DEFAULT_NODE_CLASSIFICATION, ...options};
  const rng = seededRng(o.seed * 7919 + 17);
  const split: Split = data.split ?? splitLabelled(data.labels, o.trainFraction, o.valFraction, rng);
  checkNodeModel(o.model, o.sampler);
  // Label propagation's scores: the printed baseline, and what smoothing weighs the model against.
  const propagated = propagatedLabels(data.graph, data.labels, data.numClasses, split.train);
  const baselines: RunResult['baselines'] = {labelPropagation: onSplit(propagated, data.numClasses, data.labels, split)};
  // Feature rows are made once per source: the baselines and the model may read the same ones.
  const made = new Map<string, {values: Float32Array; dim: number}>();
  const rowsFor = (s: FeatureSource) => {
    const key = `${s.from} ${s.normalized}`;
    if (!made.has(key)) made.set(key, inputFeatures(data, s));
    return made.get(key)!;
  };
  if (data.features && (o.baselines ?? true)) {
    baselines.featuresOnly = nearestClassMean(data.features.values, data.features.dim, data.labels, data.numClasses, split);
    const f = rowsFor({from: 'data', normalized: true});
    baselines.sgc = sgc(data.graph, f.values, f.dim, data.labels, data.numClasses, split);
  } else if (!data.features && (o.baselines ?? true)) {
    const f = rowsFor({from: 'structure', normalized: false});
    baselines.structureOnly = nearestClassMean(f.values, f.dim, data.labels, data.numClasses, split);
  }
  const inputs = o.inputs ?? (data.features ? 'both' : 'embeddings');
  if ((inputs === 'features' || inputs === 'both') && !data.features)
    throw new Error(`inputs '${inputs}': ${data.name} has no node features`);
  // What the feature table holds: the data's features (normalised if asked), or the graph's structure features.
  const source: FeatureSource | undefined =
    inputs === 'embeddings'
      ? undefined
      : inputs === 'structure'
        ? {from: 'structure', normalized: false}
        : {from: 'data', normalized: !!o.normalizeFeatures};
  const f = source && rowsFor(source);
  const features = f && featureTable(f.values, data.graph.numVertices, f.dim, {memory: o.embeddingMemory, dtype: o.featureDtype});
  if (features && o.featureCache) {
    features.cache({rows: hottestRows(data.graph.degrees(), data.graph.numVertices), fraction: o.featureCache});
  }
  const common = {
    numNodes: data.graph.numVertices,
    numClasses: data.numClasses,
    embeddingDim: inputs === 'features' || inputs === 'structure' ? 0 : o.embeddingDim,
    features,
    hiddenDim: o.hiddenDim,
    numLayers: o.fanouts.length,
    dropout: o.dropout,
    seed: o.seed * 101 + 3,
    embeddingLearningRate: o.embeddingLearningRate,
    embeddingMemory: o.embeddingMemory,
  };
  const model = createNodeClassifier(o.model, common, o.heads);
  const fitted = o.fit === 'class-means';
  if (fitted) {
    if (o.model !== 'mlp' || o.fanouts.length !== 1 || !f)
      throw new RangeError("fit 'class-means' needs model 'mlp' with one layer (fanouts of length 1) over features");
    setClassMeans(model.denseVariables, f.values, f.dim, data.labels, split.train, data.numClasses);
  }
  const full = fullGraph(data.graph);
  const optimizer = adam(o.learningRate); // tf.train.adam's step in one native pass
  const labels = data.labels;
  let best: RunResult = {
    seed: o.seed,
    bestEpoch: -1,
    valAcc: -1,
    testAcc: NaN,
    modelTestAcc: NaN,
    modelValAcc: NaN,
    smoothed: false,
    history: [],
    baselines,
  };
  let bestProbs: Float32Array | undefined;
  const trainIds = o.fullBatch ? tf.tensor1d(split.train, 'int32') : undefined;
  // The validation vertices choices are made on, and (heldOutScore) the half they are scored on.
  const select = o.heldOutScore ? split.val.filter((_, i) => i % 2 === 0) : split.val;
  const scoreOn = o.heldOutScore ? split.val.filter((_, i) => i % 2 === 1) : undefined;
  const trainLabels = Int32Array.from(split.train, (v) => labels[v]);
  // Sampled mini-batches: the training vertices in a new order each epoch, each batch's subgraph
  // sampled while the one before trains.
  const loader =
    trainIds || fitted
      ? undefined
      : new NeighborLoader(data.graph, split.train, {
          fanouts: o.fanouts,
          batchSize: o.batchSize,
          sampler: o.sampler,
          labels,
          seed: (o.seed * 7919 + 17) % 2 ** 31,
        });
  // The loss of one step: softmax cross-entropy plus L2 weight decay on the projections.
  const lossOf = (y: Int32Array | tf.Tensor1D, logits: tf.Tensor2D) => {
    const l2 = tf.addN(model.weightVariables.map((w) => tf.sum(tf.square(w))));
    return tf.add(softmaxCrossEntropy(y, logits), tf.mul(l2, o.weightDecay / 2)) as tf.Scalar;
  };
  try {
    for (let epoch = 1; epoch <= (fitted ? 1 : o.epochs); ++epoch) {
      if (o.patience && best.bestEpoch > 0 && epoch - best.bestEpoch > o.patience) break;
      if (o.deadline !== undefined && epoch > 1 && Date.now() >= o.deadline) {
        best.cutShort = true;
        break;
      }
      const started = Date.now();
      features?.resetCacheCounts();
      let lossSum = 0,
        batches = 0;
      if (trainIds && !fitted) {
        const dropoutSeed = Math.floor(rng() * 2 ** 31);
        const loss = optimizer.minimize(
          () => lossOf(trainLabels, tf.gather(model.forwardFull(full, dropoutSeed), trainIds) as tf.Tensor2D),
          true,
          model.trainableVariables,
        )!;
        model.inputs.step();
        lossSum += (await loss.data())[0];
        ++batches;
        loss.dispose();
      }
      for await (const batch of loader?.epoch(epoch - 1) ?? []) {
        const dropoutSeed = (batch.seed ^ 0x2545f491) >>> 0;
        const loss = optimizer.minimize(() => lossOf(batch.y!, model.forward(batch, dropoutSeed)), true, model.trainableVariables)!;
        model.inputs.step();
        batch.dispose();
        lossSum += (await loss.data())[0];
        ++batches;
        loss.dispose();
      }
      const trainSeconds = (Date.now() - started) / 1000;
      const cache = features?.cacheStats();
      // One full forward per epoch: the classes now, the probabilities too when this epoch becomes the best.
      const logits = tf.tidy(() => model.forwardFull(full));
      const predicted = predictedClasses(() => logits);
      const m: EpochMetrics = {
        seed: o.seed,
        epoch,
        loss: lossSum / batches,
        trainAcc: accuracy(predicted, labels, split.train),
        valAcc: accuracy(predicted, labels, select),
        testAcc: accuracy(predicted, labels, split.test),
        seconds: (Date.now() - started) / 1000,
        seedsPerSecond: split.train.length / trainSeconds,
        ...(cache ? {cache: {lookups: cache.lookups, hits: cache.hits, hitRate: cache.hitRate}} : {}),
      };
      best.history.push(m);
      // Ties go to the later epoch: with ~120 validation vertices accuracy
      // moves in coarse steps, and the longer-trained model is the better pick.
      if (m.valAcc >= best.valAcc) {
        best = {...best, bestEpoch: epoch, valAcc: m.valAcc, testAcc: m.testAcc, modelTestAcc: m.testAcc, modelValAcc: m.valAcc};
        if (scoreOn) best.heldOutValAcc = accuracy(predicted, labels, scoreOn);
        if ((o.smooth ?? 'auto') !== false) {
          const probs = tf.softmax(logits);
          bestProbs = (await probs.data()) as Float32Array;
          probs.dispose();
        }
        if (o.saveTo)
          await saveNodeClassifier(model, o.saveTo, {
            classNames: data.classNames,
            data: o.dataLocation,
            features: source,
            graph: data.graph,
          });
      }
      logits.dispose();
      onEpoch(m);
    }
    if (bestProbs) {
      // One propagation, judged on each vertex set.
      // Label propagation's validation accuracy beside the model's sets how much of the model the smoothing keeps.
      const weight = smoothingWeight(best.modelValAcc, scoreAccuracy(propagated, data.numClasses, labels, select), data.numClasses);
      const scores = smoothedScores(data.graph, bestProbs, labels, data.numClasses, split.train, {weight});
      const on = (ids: Int32Array) => scoreAccuracy(scores, data.numClasses, labels, ids);
      if (o.smooth === true || on(select) >= best.modelValAcc) {
        best = {...best, valAcc: on(select), testAcc: on(split.test), smoothed: true};
        if (scoreOn) best.heldOutValAcc = on(scoreOn);
      }
    }
  } finally {
    trainIds?.dispose();
    optimizer.dispose();
    model.dispose();
    full.dispose();
    features?.dispose();
  }
  return best;
}

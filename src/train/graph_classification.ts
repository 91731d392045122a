// Graph classification as the TU literature reports it: stratified k-fold cross-validation, each fold's test
// graphs held out, the next fold's graphs the validation set that picks the epoch, the rest trained on in
// shuffled batches (GraphLoader); the test accuracy at the best validation epoch, mean and spread over the folds.
// With `regression`, each graph's label is a value: learnt standardised by the training graphs' mean and spread with
// the L1 loss, the mean absolute error chosen on and reported (lower is better), folds dealt in a seeded order.
import * as tf from '@tensorflow/tfjs-core';

import {checkGraphs, SmallGraph} from '../graph/graph_batch';
import {GraphLoader} from '../graph/graph_loader';
import {GraphClassifier, GraphConvKind, GraphPool} from '../nn/graph_classifier';
import {softmaxCrossEntropy} from '../nn/softmax_cross_entropy';
import type {EpochFigures} from './node_classification';
import {adam} from '../optimizers/fused_adam';
import {checkSeed, seededRng, shuffle} from '../util/random';
import type {Split} from '../graph/split';
import {rocAuc} from './link_metrics';

export interface GraphClassificationOptions {
  conv: GraphConvKind;
  pool: GraphPool;
  hiddenDim: number;
  numLayers: number;
  dropout: number;
  /** Batch normalisation of each graph layer's outputs (GraphClassifierConfig.batchNorm). */
  batchNorm: boolean;
  /** A virtual node per graph (GraphClassifierConfig.virtualNode). */
  virtualNode: boolean;
  learningRate: number;
  epochs: number;
  batchSize: number;
  /** Folds of the cross-validation (at least 3: a test fold, a validation fold, the rest to train on). */
  folds: number;
  /** Runs these folds only (default all): a model search scores candidates on the first few. */
  onlyFolds?: number[];
  /** A given split of the graphs (indices; an OGB folder's): one run on it in place of the folds. */
  split?: Split;
  /** Each graph's label is a value to predict (the L1 loss, the mean absolute error): a graph regression. */
  regression: boolean;
  seed: number;
}

export const DEFAULT_GRAPH_CLASSIFICATION: GraphClassificationOptions = {
  conv: 'gin',
  pool: 'add',
  hiddenDim: 64,
  numLayers: 3,
  // Chosen on generated graph families (two settings, two folds each, GIN): batch normalisation 0.975 / 0.933
  // validation against 0.958 / 0.742 without; with it, dropout 0.5 before the output layer 0.992 / 0.883.
  dropout: 0,
  batchNorm: true,
  virtualNode: false,
  learningRate: 0.01,
  epochs: 50,
  batchSize: 32,
  folds: 10,
  regression: false,
  seed: 0,
};

export interface GraphEpochMetrics extends EpochFigures {
  fold: number;
  /** With `regression` (the accuracies are NaN): the mean absolute errors. */
  trainMae?: number;
  valMae?: number;
  testMae?: number;
  /** ROC-AUC of the positive class's probability, with two classes. */
  valAuc?: number;
  testAuc?: number;
}

export interface GraphFoldResult {
  fold: number;
  bestEpoch: number;
  /** Accuracy; with `regression`, NaN (the mean absolute errors are valMae, testMae). */
  valAcc: number;
  testAcc: number;
  /** With `regression`: the mean absolute errors at the best (lowest validation error) epoch. */
  valMae?: number;
  testMae?: number;
  /** With two classes: ROC-AUC at the same epoch. */
  valAuc?: number;
  testAuc?: number;
}

export interface GraphClassificationResult {
  folds: GraphFoldResult[];
  /** Mean and standard deviation over the folds of the test accuracy at the best validation epoch. */
  testAcc: [number, number];
  valAcc: [number, number];
  /** With two classes: the test ROC-AUC's mean and spread. */
  testAuc?: [number, number];
  /** With `regression`: the test and validation mean absolute errors' mean and spread. */
  testMae?: [number, number];
  valMae?: [number, number];
}

/** Mean and (population) standard deviation. */
export function meanStd(xs: number[]): [number, number] {
  const m = xs.reduce((a, x) => a + x, 0) / xs.length;
  return [m, Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / xs.length)];
}

/** Each graph's fold: graphs of each class dealt round-robin in a seeded order, so every fold has each class's share. */
export function stratifiedFolds(labels: Int32Array, folds: number, seed: number): Int32Array {
  const fold = new Int32Array(labels.length);
  const order = shuffle(
    Int32Array.from(labels, (_, i) => i),
    seededRng(seed * 7919 + 11),
  );
  const next = new Map<number, number>();
  for (const i of order) {
    const c = labels[i];
    const k = next.get(c) ?? 0;
    fold[i] = k % folds;
    next.set(c, k + 1);
  }
  return fold;
}

function graphTargets(graphs: SmallGraph[]): Float32Array {
  return Float32Array.from(graphs, (g, i) => {
    if (typeof g.label !== 'number' || !Number.isFinite(g.label))
      throw new RangeError(`trainGraphClassification: graphs[${i}].label must be a finite number (regression), got ${g.label}`);
    return g.label;
  });
}

function graphLabels(graphs: SmallGraph[], numClasses: number): Int32Array {
  return Int32Array.from(graphs, (g, i) => {
    const y = g.label;
    if (!(Number.isInteger(y) && y! >= 0 && y! < numClasses))
      throw new RangeError(`trainGraphClassification: graphs[${i}].label must be a class id in [0, ${numClasses}), got ${y}`);
    return y!;
  });
}

/** The classes the model gives `graphs`, a batch at a time. */
export async function classifyGraphs(model: GraphClassifier, graphs: SmallGraph[], batchSize = 256): Promise<Int32Array> {
  return (await predictGraphs(model, graphs, false, batchSize)).classes;
}

/** Per graph, one value of each output `per` makes of a batch's rows (a value a graph each), a batch at a time. */
async function graphOutputs(
  model: GraphClassifier,
  graphs: SmallGraph[],
  per: ((rows: tf.Tensor2D) => tf.Tensor)[],
  batchSize = 256,
): Promise<Float32Array[]> {
  const out = per.map(() => new Float32Array(graphs.length));
  // One pass in order: made in place (a worker thread pays off over many passes).
  for await (const b of new GraphLoader(graphs, {batchSize, shuffle: false, prefetch: false})) {
    const values = tf.tidy(() => {
      const rows = model.forward(b);
      return per.map((f) => f(rows));
    });
    for (let k = 0; k < values.length; ++k) out[k].set(await values[k].data(), b.indices[0]);
    tf.dispose(values);
    b.dispose();
  }
  return out;
}

async function predictGraphs(
  model: GraphClassifier,
  graphs: SmallGraph[],
  positive: boolean,
  batchSize = 256,
): Promise<{classes: Int32Array; positive?: Float32Array}> {
  const [classes, p1] = await graphOutputs(
    model,
    graphs,
    [(logits) => tf.argMax(logits, 1), ...(positive ? [(logits: tf.Tensor2D) => tf.slice(tf.softmax(logits), [0, 1], [-1, 1])] : [])],
    batchSize,
  );
  return {classes: Int32Array.from(classes), positive: p1};
}

function accuracyOf(pred: Int32Array, labels: Int32Array): number {
  let ok = 0;
  pred.forEach((p, i) => (ok += p === labels[i] ? 1 : 0));
  return labels.length ? ok / labels.length : NaN;
}

// Accuracy, and with two classes the ROC-AUC of class 1's probability, of the model on a set of graphs.
async function evaluate(
  model: GraphClassifier,
  set: {graphs: SmallGraph[]; labels: Int32Array},
  binary: boolean,
): Promise<{acc: number; auc?: number}> {
  const {classes, positive} = await predictGraphs(model, set.graphs, binary);
  const acc = accuracyOf(classes, set.labels);
  if (!positive) return {acc};
  const pos = positive.filter((_, i) => set.labels[i] === 1),
    neg = positive.filter((_, i) => set.labels[i] === 0);
  return {acc, auc: pos.length && neg.length ? rocAuc(pos, neg) : NaN};
}

/** A regression's targets as the model learns them: standardised by the training graphs' mean and spread. */
interface TargetScale {
  mean: number;
  std: number;
}

function targetScale(targets: Float32Array): TargetScale {
  const [mean, std] = meanStd(Array.from(targets));
  return {mean, std: std > 0 ? std : 1};
}

/** The mean absolute error of the model's values (in the targets' units) on a set of graphs. */
async function meanAbsoluteError(
  model: GraphClassifier,
  set: {graphs: SmallGraph[]; targets: Float32Array},
  scale: TargetScale,
): Promise<number> {
  const [values] = await graphOutputs(model, set.graphs, [(rows) => tf.reshape(rows, [-1])]);
  let sum = 0;
  values.forEach((v, i) => (sum += Math.abs(v * scale.std + scale.mean - set.targets[i])));
  return set.graphs.length ? sum / set.graphs.length : NaN;
}

/**
 * k-fold cross-validation of a graph classifier on `data`: each fold trained from fresh weights, the epoch chosen
 * on its validation fold. Graphs need a label (a class id; with `regression` a value, `numClasses` then unread) each,
 * and features of one width on all or none.
 */
export async function trainGraphClassification(
  data: {graphs: SmallGraph[]; numClasses: number},
  options: Partial<GraphClassificationOptions> = {},
  onEpoch: (m: GraphEpochMetrics) => void = () => {},
): Promise<GraphClassificationResult> {
  const o = {...DEFAULT_GRAPH_CLASSIFICATION, ...options};
  const what = 'trainGraphClassification';
  checkSeed(what, o.seed);
  for (const [k, min] of [
    ['folds', 3],
    ['epochs', 1],
    ['batchSize', 1],
  ] as const)
    if (!Number.isInteger(o[k]) || o[k] < min) throw new RangeError(`${what}: ${k} must be an integer of at least ${min}, got ${o[k]}`);
  if (!(o.learningRate > 0)) throw new RangeError(`${what}: learningRate must be positive, got ${o.learningRate}`);
  const {graphs, numClasses} = data;
  if (!Array.isArray(graphs) || graphs.length < (o.split ? 1 : o.folds))
    throw new RangeError(`${what}: ${o.folds} folds need at least as many graphs, got ${graphs?.length ?? 0}`);
  // Regression: the values to predict; the folds dealt in a seeded order (every graph one "class").
  const targets = o.regression ? graphTargets(graphs) : undefined;
  const labels = targets ? new Int32Array(graphs.length) : graphLabels(graphs, numClasses);
  const binary = !targets && numClasses === 2;
  // The widths of the features and edge features, as every batch's checks find them (0: none).
  const {dim, edgeDim} = checkGraphs(graphs);
  // Each graph's fold: the stratified folds, or the given split as one run (train -1, validation 1, test 0).
  const fold = o.split ? splitFolds(o.split, graphs.length) : stratifiedFolds(labels, o.folds, o.seed);
  const pick = (keep: (f: number) => boolean) => {
    const ids = Int32Array.from(labels.keys()).filter((i) => keep(fold[i]));
    return {
      graphs: Array.from(ids, (i) => graphs[i]),
      labels: Int32Array.from(ids, (i) => labels[i]),
      targets: targets ? Float32Array.from(ids, (i) => targets[i]) : new Float32Array(0),
    };
  };
  const results: GraphFoldResult[] = [];
  for (const k of o.split ? [0] : (o.onlyFolds ?? Array.from({length: o.folds}, (_, i) => i))) {
    if (!Number.isInteger(k) || k < 0 || k >= o.folds) throw new RangeError(`${what}: onlyFolds holds ${k}, not a fold of ${o.folds}`);
    const valFold = o.split ? 1 : (k + 1) % o.folds;
    const test = pick((f) => f === k),
      val = pick((f) => f === valFold),
      train = pick((f) => f !== k && f !== valFold && f >= (o.split ? -1 : 0));
    const model = new GraphClassifier({
      inDim: dim || 1,
      numClasses: targets ? 1 : numClasses,
      regression: o.regression,
      conv: o.conv,
      pool: o.pool,
      hiddenDim: o.hiddenDim,
      numLayers: o.numLayers,
      dropout: o.dropout,
      batchNorm: o.batchNorm,
      virtualNode: o.virtualNode,
      edgeDim: edgeDim || undefined,
      seed: o.seed * 31 + k,
    });
    // Regression: the model learns the targets standardised by the training graphs' mean and spread.
    const scale = targets ? targetScale(train.targets) : {mean: 0, std: 1};
    const optimizer = adam(o.learningRate);
    const loader = new GraphLoader(train.graphs, {batchSize: o.batchSize, shuffle: true, seed: o.seed * 1009 + k});
    let best: GraphFoldResult = {fold: k, bestEpoch: 0, valAcc: -1, testAcc: NaN, ...(targets ? {valMae: Infinity, testMae: NaN} : {})};
    try {
      for (let epoch = 1; epoch <= o.epochs; ++epoch) {
        const t0 = Date.now();
        let lossSum = 0,
          steps = 0;
        for await (const b of loader) {
          const dropoutSeed = (o.seed * 1_000_003 + k * 65_537 + epoch * 257 + steps) % 2 ** 31;
          const loss = optimizer.minimize(
            () =>
              targets
                ? (tf.mean(
                    tf.abs(
                      tf.sub(
                        tf.reshape(model.forward(b, dropoutSeed), [-1]),
                        Float32Array.from(b.indices, (i) => (train.targets[i] - scale.mean) / scale.std),
                      ),
                    ),
                  ) as tf.Scalar)
                : softmaxCrossEntropy(
                    Int32Array.from(b.indices, (i) => train.labels[i]),
                    model.forward(b, dropoutSeed),
                  ),
            true,
            model.trainableVariables,
          )!;
          b.dispose();
          lossSum += (await loss.data())[0];
          loss.dispose();
          ++steps;
        }
        const figures = {fold: k, epoch, loss: lossSum / steps, seconds: (Date.now() - t0) / 1000};
        if (targets) {
          const [tr, va, te] = [
            await meanAbsoluteError(model, train, scale),
            await meanAbsoluteError(model, val, scale),
            await meanAbsoluteError(model, test, scale),
          ];
          // Ties go to the later epoch, as in node classification.
          if (va <= best.valMae!) best = {fold: k, bestEpoch: epoch, valAcc: NaN, testAcc: NaN, valMae: va, testMae: te};
          onEpoch({...figures, trainAcc: NaN, valAcc: NaN, testAcc: NaN, trainMae: tr, valMae: va, testMae: te});
          continue;
        }
        const [tr, va, te] = [await evaluate(model, train, false), await evaluate(model, val, binary), await evaluate(model, test, binary)];
        const aucs = binary ? {valAuc: va.auc, testAuc: te.auc} : {};
        // Ties go to the later epoch, as in node classification.
        if (va.acc >= best.valAcc) best = {fold: k, bestEpoch: epoch, valAcc: va.acc, testAcc: te.acc, ...aucs};
        onEpoch({...figures, trainAcc: tr.acc, valAcc: va.acc, testAcc: te.acc, ...aucs});
      }
    } finally {
      loader.dispose();
      optimizer.dispose();
      model.dispose();
    }
    results.push(best);
  }
  return {
    folds: results,
    testAcc: meanStd(results.map((r) => r.testAcc)),
    valAcc: meanStd(results.map((r) => r.valAcc)),
    ...(binary ? {testAuc: meanStd(results.map((r) => r.testAuc!))} : {}),
    ...(targets ? {testMae: meanStd(results.map((r) => r.testMae!)), valMae: meanStd(results.map((r) => r.valMae!))} : {}),
  };
}

// A given split as folds: test 0, validation 1, train -1; graphs in no part -2 (left out). Ids checked.
function splitFolds(split: Split, n: number): Int32Array {
  const fold = new Int32Array(n).fill(-2);
  for (const [part, f] of [
    ['test', 0],
    ['val', 1],
    ['train', -1],
  ] as const)
    split[part].forEach((g, i) => {
      if (!(Number.isInteger(g) && g >= 0 && g < n))
        throw new RangeError(`trainGraphClassification: split.${part}[${i}] = ${g} is not a graph index in [0, ${n})`);
      fold[g] = f;
    });
  return fold;
}

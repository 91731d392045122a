// Parameter-free baselines every node-classification result is printed
// beside, on the same split: label propagation (Zhou et al., 2004: the
// training labels spread over the symmetric-normalised graph,
// Y <- alpha S Y + (1 - alpha) Y0, alpha 0.9, 50 rounds) and, when the data
// has features, a nearest-class-mean classifier on the features alone.
import {CsrGraph} from '../graph/csr';
import {Split} from '../graph/split';

export interface BaselineAccuracy {
  val: number;
  test: number;
}

/** Share of `ids` whose highest score (rows of `classes` scores) is their label. */
export function scoreAccuracy(scores: Float64Array, classes: number, labels: Int32Array, ids: Int32Array): number {
  let ok = 0;
  for (const v of ids) {
    let best = 0;
    for (let k = 1; k < classes; ++k) if (scores[v * classes + k] > scores[v * classes + best]) best = k;
    if (best === labels[v]) ++ok;
  }
  return ids.length ? ok / ids.length : NaN;
}

/** Y <- alpha S Y + (1 - alpha) Y0 over the symmetric-normalised graph S, `rounds` times. */
function propagate(graph: CsrGraph, y0: Float64Array, classes: number, alpha: number, rounds: number): Float64Array {
  const n = graph.numVertices;
  const {rowPtr, colIdx} = graph;
  const norm = new Float64Array(n);
  for (let v = 0; v < n; ++v) norm[v] = 1 / Math.sqrt(Math.max(1, rowPtr[v + 1] - rowPtr[v]));
  let y = y0.slice(),
    next = new Float64Array(n * classes);
  for (let r = 0; r < rounds; ++r) {
    for (let v = 0; v < n; ++v) {
      const out = v * classes;
      for (let k = 0; k < classes; ++k) next[out + k] = (1 - alpha) * y0[out + k];
      for (let e = rowPtr[v]; e < rowPtr[v + 1]; ++e) {
        const u = colIdx[e];
        const w = alpha * norm[v] * norm[u];
        for (let k = 0; k < classes; ++k) next[out + k] += w * y[u * classes + k];
      }
    }
    [y, next] = [next, y];
  }
  return y;
}

/** Propagates y0, its training rows set to their labels' one-hot rows. */
function propagateLabelled(
  graph: CsrGraph,
  y0: Float64Array,
  labels: Int32Array,
  classes: number,
  train: Int32Array,
  alpha: number,
  rounds: number,
): Float64Array {
  for (const v of train) {
    y0.fill(0, v * classes, (v + 1) * classes);
    y0[v * classes + labels[v]] = 1;
  }
  return propagate(graph, y0, classes, alpha, rounds);
}

/** The accuracy of `scores` on the split's validation and test vertices. */
export const onSplit = (scores: Float64Array, classes: number, labels: Int32Array, split: Split): BaselineAccuracy => ({
  val: scoreAccuracy(scores, classes, labels, split.val),
  test: scoreAccuracy(scores, classes, labels, split.test),
});

/** Label propagation's scores: the training labels alone spread over the graph (what labelPropagation judges). */
export function propagatedLabels(
  graph: CsrGraph,
  labels: Int32Array,
  classes: number,
  train: Int32Array,
  alpha = 0.9,
  rounds = 50,
): Float64Array {
  return propagateLabelled(graph, new Float64Array(graph.numVertices * classes), labels, classes, train, alpha, rounds);
}

export function labelPropagation(
  graph: CsrGraph,
  labels: Int32Array,
  classes: number,
  split: Split,
  alpha = 0.9,
  rounds = 50,
): BaselineAccuracy {
  return onSplit(propagatedLabels(graph, labels, classes, split.train, alpha, rounds), classes, labels, split);
}

/**
 * How much of a model's predictions the smoothing starts from: a soft choice between the model and label
 * propagation by their validation accuracies. Each accuracy's share of the way from chance (1 / classes) to every
 * vertex right, s, weighs s^8; the model gets its share of the two. A model far better than label propagation
 * is taken whole (heterophilous graphs, where propagation is near chance); one far worse leaves label
 * propagation itself (sparse graphs without features, where learned embeddings reach few vertices); close ones
 * are blended. The power was chosen across generated families of graphs, with and without features
 * (docs/design-notes.md).
 */
export function smoothingWeight(modelValAcc: number, propagationValAcc: number, classes: number): number {
  const chance = 1 / classes;
  const weigh = (acc: number) => {
    const skill = Math.max(0, Math.min(1, (acc - chance) / (1 - chance)));
    return Number.isFinite(skill) ? skill ** 8 : 0;
  };
  const m = weigh(modelValAcc),
    l = weigh(propagationValAcc);
  return m + l > 0 ? m / (m + l) : 0.5;
}

/**
 * A model's class probabilities smoothed over the graph, its training rows replaced by their labels
 * (the "smooth" step of Huang et al., 2021, Correct and Smooth): neighbours' predictions and the known
 * labels correct a vertex's own. `weight` scales the predictions the propagation starts from
 * (smoothingWeight; 0 is label propagation).
 */
export function smoothPredictions(
  graph: CsrGraph,
  probs: Float32Array,
  labels: Int32Array,
  classes: number,
  split: Split,
  o: {weight?: number; alpha?: number; rounds?: number} = {},
): BaselineAccuracy {
  return onSplit(smoothedScores(graph, probs, labels, classes, split.train, o), classes, labels, split);
}

/** The scores smoothPredictions judges: one propagation, for callers that score several vertex sets. */
export function smoothedScores(
  graph: CsrGraph,
  probs: Float32Array,
  labels: Int32Array,
  classes: number,
  train: Int32Array,
  o: {weight?: number; alpha?: number; rounds?: number} = {},
): Float64Array {
  const weight = o.weight ?? 1;
  if (!(weight >= 0 && weight <= 1)) throw new RangeError(`smoothPredictions: weight must be in [0, 1], got ${o.weight}`);
  return propagateLabelled(
    graph,
    Float64Array.from(probs, (p) => weight * p),
    labels,
    classes,
    train,
    o.alpha ?? 0.9,
    o.rounds ?? 50,
  );
}

/** Each class's mean of the training vertices' features (rows of `dim`), and how many it has. */
export function classMeans(
  values: Float32Array,
  dim: number,
  labels: Int32Array,
  classes: number,
  train: Int32Array,
): {means: Float64Array; counts: Float64Array} {
  const means = new Float64Array(classes * dim),
    counts = new Float64Array(classes);
  for (const v of train) {
    counts[labels[v]]++;
    for (let k = 0; k < dim; ++k) means[labels[v] * dim + k] += values[v * dim + k];
  }
  for (let c = 0; c < classes; ++c) for (let k = 0; k < dim; ++k) means[c * dim + k] /= Math.max(1, counts[c]);
  return {means, counts};
}

/** Each vertex to the class whose training mean of the features is nearest. */
export function nearestClassMean(values: Float32Array, dim: number, labels: Int32Array, classes: number, split: Split): BaselineAccuracy {
  const {means, counts} = classMeans(values, dim, labels, classes, split.train);
  const n = labels.length;
  const scores = new Float64Array(n * classes);
  for (let v = 0; v < n; ++v) {
    for (let c = 0; c < classes; ++c) {
      let d = 0;
      for (let k = 0; k < dim; ++k) d += (values[v * dim + k] - means[c * dim + k]) ** 2;
      scores[v * classes + c] = counts[c] > 0 ? -d : -Infinity;
    }
  }
  return onSplit(scores, classes, labels, split);
}

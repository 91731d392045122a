// Transforms of a node-classification dataset, as PyG's torch_geometric.transforms: each returns a new
// dataset and leaves its input as it was; compose() chains them. The dataset is the one object that
// carries the graph, features, labels and split (NodeClassificationData, from loadDataset or the generators).
import {checkSeed, seededRng} from '../util/random';
import {CsrGraph} from './csr';
import {LinkSplit, splitEdges} from './link_split';
import type {NodeClassificationData} from './node_data';
import {planetoidSplit, Split} from './split';

export type Transform = (data: NodeClassificationData) => NodeClassificationData;

/** The transforms applied in order (PyG's Compose). */
export function compose(...transforms: Transform[]): Transform {
  transforms.forEach((t, i) => {
    if (typeof t !== 'function') throw new TypeError(`compose: argument ${i} is not a transform (a function of a dataset)`);
  });
  return (data) => transforms.reduce((d, t) => t(d), data);
}

/**
 * The dataset over a new graph: edge weights, which follow the old graph's entries, are dropped, and that is
 * said (a warning naming the transform), never left beside entries they no longer match.
 */
function withGraph(data: NodeClassificationData, graph: CsrGraph, what: string): NodeClassificationData {
  if (data.edgeWeights)
    process.emitWarning(`${what}: ${data.name}'s edge weights are not carried to the new graph; it is unweighted`, {
      code: 'WM_EDGE_WEIGHTS_DROPPED',
    });
  return {...data, graph, edgeWeights: undefined};
}

/** Every edge both ways, duplicates and self loops dropped, rows sorted (PyG's ToUndirected); edge weights dropped. */
export function toUndirected(): Transform {
  return (data) => {
    const {rowPtr, colIdx} = data.graph;
    const src = new Int32Array(colIdx.length);
    for (let u = 0; u < data.graph.numVertices; ++u) src.fill(u, rowPtr[u], rowPtr[u + 1]);
    const graph = CsrGraph.fromEdges({numVertices: data.graph.numVertices, src, dst: colIdx.slice(), directed: true}, {symmetric: true});
    return withGraph(data, graph, 'toUndirected');
  };
}

/** A self loop at every vertex that has none, rows kept sorted (PyG's AddSelfLoops); edge weights kept, each new loop weighing 1. */
export function addSelfLoops(): Transform {
  return (data) => {
    const g = data.graph;
    const n = g.numVertices;
    const has = Uint8Array.from({length: n}, (_, v) => (g.neighbors(v).includes(v) ? 1 : 0));
    const rowPtr = new Int32Array(n + 1),
      colIdx = new Int32Array(g.numEdges + n - has.reduce((a, x) => a + x, 0));
    const w = data.edgeWeights,
      weights = w && new Float32Array(colIdx.length);
    let at = 0;
    const loop = (v: number) => {
      if (weights) weights[at] = 1;
      colIdx[at++] = v;
    };
    for (let v = 0; v < n; ++v) {
      rowPtr[v] = at;
      let placed = has[v] === 1;
      for (let e = g.rowPtr[v]; e < g.rowPtr[v + 1]; ++e) {
        const u = g.colIdx[e];
        if (!placed && u > v) {
          loop(v);
          placed = true;
        }
        if (weights) weights[at] = w![e];
        colIdx[at++] = u;
      }
      if (!placed) loop(v);
    }
    rowPtr[n] = at;
    return {...data, graph: new CsrGraph(rowPtr, colIdx).validate('addSelfLoops'), edgeWeights: weights};
  };
}

/** Features scaled so each row sums to 1 (rows with a negative value or summing to 0 unchanged); a copy. */
export function rowNormalized(f: {values: Float32Array; dim: number}): Float32Array {
  const out = f.values.slice();
  for (let r = 0; r < out.length / f.dim; ++r) {
    const row = out.subarray(r * f.dim, (r + 1) * f.dim);
    let sum = 0,
      negative = false;
    for (const x of row) {
      sum += x;
      negative ||= x < 0;
    }
    if (!negative && sum > 0) for (let k = 0; k < row.length; ++k) row[k] /= sum;
  }
  return out;
}

/** Feature rows scaled to sum to 1 (PyG's NormalizeFeatures; rows with a negative value or summing to 0 kept), a copy. */
export function normalizeFeatures(): Transform {
  return (data) => {
    if (!data.features) throw new Error(`normalizeFeatures: ${data.name} has no node features`);
    return {...data, features: {...data.features, values: rowNormalized(data.features)}};
  };
}

export interface NodeSplitOptions {
  /** Training vertices per class (PyG's num_train_per_class; default 20). */
  trainPerClass?: number;
  /** Validation and test vertices: counts, or shares (< 1) of the labelled vertices (default 500 and 1000). */
  val?: number;
  test?: number;
  seed?: number;
}

/**
 * A new split over the labelled vertices (PyG's RandomNodeSplit, split='test_rest' aside): `trainPerClass`
 * of each class for training, then `val` and `test` from the rest. Unlabelled vertices are in no part.
 */
export function randomNodeSplit(o: NodeSplitOptions = {}): Transform {
  const perClass = o.trainPerClass ?? 20;
  if (!Number.isInteger(perClass) || perClass < 1)
    throw new RangeError(`randomNodeSplit: trainPerClass must be a positive integer, got ${perClass}`);
  for (const k of ['val', 'test'] as const) {
    const v = o[k];
    if (v !== undefined && !(v >= 0 && (v < 1 || Number.isInteger(v))))
      throw new RangeError(`randomNodeSplit: ${k} must be a count or a share in [0, 1), got ${v}`);
  }
  const seed = checkSeed('randomNodeSplit', o.seed ?? 0);
  return (data) => {
    let labelled = 0;
    for (const y of data.labels) if (y >= 0) ++labelled;
    const count = (v: number | undefined, fallback: number) => (v === undefined ? fallback : v < 1 ? Math.round(v * labelled) : v);
    const split: Split = planetoidSplit(data.labels, data.numClasses, perClass, count(o.val, 500), count(o.test, 1000), seededRng(seed));
    return {...data, split};
  };
}

export interface LinkSplitOptions {
  /** Shares of the undirected edges held out for validation and test (default 0.05 and 0.1, as PyG's). */
  val?: number;
  test?: number;
  seed?: number;
}

/**
 * Held-out edges for link prediction (PyG's RandomLinkSplit): the dataset over the training edges only (edge
 * weights dropped), and the validation and test edges with as many negative pairs (non-edges of the whole
 * graph) each.
 */
export function randomLinkSplit(
  o: LinkSplitOptions = {},
): (data: NodeClassificationData) => {train: NodeClassificationData; edges: LinkSplit} {
  const val = o.val ?? 0.05,
    test = o.test ?? 0.1;
  if (!(val >= 0 && test >= 0 && val + test < 1))
    throw new RangeError(`randomLinkSplit: val (${val}) and test (${test}) must be shares summing below 1`);
  const seed = checkSeed('randomLinkSplit', o.seed ?? 0);
  return (data) => {
    const edges = splitEdges(data.graph, val, test, seededRng(seed));
    return {train: withGraph(data, edges.train, 'randomLinkSplit'), edges};
  };
}

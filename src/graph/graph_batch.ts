// Many small graphs as one (PyG's Batch.from_data_list): their vertices numbered one graph after another,
// their edges block-diagonal, a batch vector naming each vertex's graph, and the pooling block whose row g
// reads graph g's vertices, so a global pooling is a neighbour reduction over it (wm.nn.globalAddPool).
import {CsrBlock} from './aggregate';
import {CsrGraph} from './csr';
import type {Split} from './split';

/** One small graph: vertices 0..numVertices-1, edges (src[i], dst[i]), optional features and label. */
export interface SmallGraph {
  numVertices: number;
  src: ArrayLike<number>;
  dst: ArrayLike<number>;
  /** [numVertices, dim] row-major; every graph of a batch has features of one width, or none has. */
  features?: Float32Array;
  /** [edges, edgeDim] row-major, edge e's beside (src[e], dst[e]); every graph of a batch has them, or none has. */
  edgeFeatures?: Float32Array;
  /** The graph's target (a class id or a value); every graph of a batch has one, or none has. */
  label?: number;
}

/** Many small graphs and their targets, as the readers give them (readOgbGraphs, readTuDataset, readSdf). */
export interface GraphDataset {
  name: string;
  graphs: SmallGraph[];
  numClasses: number;
  /** Vertex feature width (0: none). */
  dim: number;
  /** The folder's split of the graphs (indices), where it has one. */
  split?: Split;
  /** Edge feature width (0: none). */
  edgeDim: number;
  /** The labels are values, not class ids (numClasses is then 1): train with `{regression: true}`. */
  regression: boolean;
  /** The file's label of each class id, where the reader numbers the classes itself (the TU format's). */
  classLabels?: number[];
}

export interface GraphBatch {
  numGraphs: number;
  numVertices: number;
  /** The graphs' edges block-diagonal (made two-way with `symmetric`; duplicates and self loops dropped), made when first read. */
  readonly graph: CsrGraph;
  /** Each vertex's graph. */
  batch: Int32Array;
  /** Graph g's vertices are [ptr[g], ptr[g + 1]). */
  ptr: Int32Array;
  /** [numVertices, dim] row-major, where the graphs have features. */
  features?: Float32Array;
  dim: number;
  labels?: Float32Array;
  /** Row g reads graph g's vertices: what the global poolings reduce over. */
  pool: CsrBlock;
  /**
   * The block-diagonal edges as the block a graph layer reads (`layer.apply(x, {graph: b.edges})`). Where the
   * graphs have edge features, every edge is an entry (both ways with `symmetric`, repeats kept) in the order of
   * `edgeAttr`'s rows; else the graph's entries (repeats and self loops dropped).
   */
  edges: CsrBlock;
  /** [edges' entries, edgeDim]: each entry's edge features (`gineConv`'s edgeAttr), where the graphs have them. */
  edgeAttr?: Float32Array;
  edgeDim: number;
  /** Frees what the blocks keep on the device (their arrays, uploaded once on first use). */
  dispose(): void;
}

/**
 * Checks that the graphs fit in one batch (ids within each graph, features of one width on all or none, a label on
 * all or none), naming the graph and the rule; returns each graph's first vertex (ptr), the edges and the width.
 */
export function checkGraphs(graphs: SmallGraph[]): {
  ptr: Int32Array;
  edges: number;
  dim: number;
  withFeatures: boolean;
  withLabels: boolean;
  edgeDim: number;
} {
  if (!Array.isArray(graphs) || graphs.length === 0) throw new RangeError('batchGraphs: graphs must be a non-empty array');
  const withFeatures = graphs[0].features !== undefined,
    withLabels = graphs[0].label !== undefined,
    withEdgeFeatures = graphs[0].edgeFeatures !== undefined;
  let edgeDim = 0;
  const ptr = new Int32Array(graphs.length + 1);
  let edges = 0,
    dim = 0;
  graphs.forEach((g, i) => {
    const n = g.numVertices;
    if (!Number.isInteger(n) || n < 0)
      throw new RangeError(`batchGraphs: graphs[${i}].numVertices must be a non-negative integer, got ${n}`);
    if (ptr[i] + n > 2 ** 31 - 1) throw new RangeError('batchGraphs: more than 2^31 - 1 vertices in one batch');
    ptr[i + 1] = ptr[i] + n;
    if (g.src.length !== g.dst.length)
      throw new RangeError(`batchGraphs: graphs[${i}]: src and dst must be equally long, got ${g.src.length} and ${g.dst.length}`);
    for (const [side, ids] of [
      ['src', g.src],
      ['dst', g.dst],
    ] as const)
      for (let e = 0; e < ids.length; ++e)
        if (!(Number.isInteger(ids[e]) && ids[e] >= 0 && ids[e] < n))
          throw new RangeError(`batchGraphs: graphs[${i}].${side}[${e}] = ${ids[e]} is not a vertex of its ${n}`);
    edges += g.src.length;
    if ((g.features !== undefined) !== withFeatures)
      throw new RangeError(
        `batchGraphs: graphs[${i}] ${withFeatures ? 'lacks' : 'has'} features, graphs[0] ${withFeatures ? 'has' : 'lacks'} them`,
      );
    if (g.features) {
      if (!(g.features instanceof Float32Array)) throw new TypeError(`batchGraphs: graphs[${i}].features must be a Float32Array`);
      const d = n > 0 ? g.features.length / n : dim;
      if (n > 0 && !Number.isInteger(d))
        throw new RangeError(`batchGraphs: graphs[${i}].features holds ${g.features.length} values for ${n} vertices`);
      if (i > 0 && n > 0 && d !== dim && dim > 0)
        throw new RangeError(`batchGraphs: graphs[${i}]'s features are ${d} wide, the batch's ${dim}`);
      if (n > 0) dim = d;
    }
    if ((g.edgeFeatures !== undefined) !== withEdgeFeatures)
      throw new RangeError(
        `batchGraphs: graphs[${i}] ${withEdgeFeatures ? 'lacks' : 'has'} edge features, graphs[0] ${withEdgeFeatures ? 'has' : 'lacks'} them`,
      );
    if (g.edgeFeatures) {
      if (!(g.edgeFeatures instanceof Float32Array)) throw new TypeError(`batchGraphs: graphs[${i}].edgeFeatures must be a Float32Array`);
      const m = g.src.length;
      const d = m > 0 ? g.edgeFeatures.length / m : edgeDim;
      if (m > 0 && (!Number.isInteger(d) || d < 1))
        throw new RangeError(`batchGraphs: graphs[${i}].edgeFeatures holds ${g.edgeFeatures.length} values for ${m} edges`);
      if (m > 0 && edgeDim > 0 && d !== edgeDim)
        throw new RangeError(`batchGraphs: graphs[${i}]'s edge features are ${d} wide, the batch's ${edgeDim}`);
      if (m > 0) edgeDim = d;
    }
    if ((g.label !== undefined) !== withLabels)
      throw new RangeError(
        `batchGraphs: graphs[${i}] ${withLabels ? 'lacks' : 'has'} a label, graphs[0] ${withLabels ? 'has' : 'lacks'} one`,
      );
    if (g.label !== undefined && !Number.isFinite(g.label))
      throw new RangeError(`batchGraphs: graphs[${i}].label must be a finite number, got ${g.label}`);
  });
  return {ptr, edges, dim, withFeatures, withLabels, edgeDim};
}

// Every edge an entry of its destination's row (and its reverse one of its source's, with `symmetric`), in
// edge order within a row, and each entry's edge features beside it.
function edgesWithFeatures(
  src: Int32Array,
  dst: Int32Array,
  features: Float32Array,
  edgeDim: number,
  n: number,
  symmetric: boolean,
): {edges: CsrBlock; edgeAttr: Float32Array} {
  const m = src.length,
    entries = symmetric ? 2 * m : m;
  const rowPtr = new Int32Array(n + 1);
  for (let e = 0; e < m; ++e) {
    ++rowPtr[dst[e] + 1];
    if (symmetric) ++rowPtr[src[e] + 1];
  }
  for (let v = 0; v < n; ++v) rowPtr[v + 1] += rowPtr[v];
  const at = rowPtr.slice(0, n),
    colIdx = new Int32Array(entries),
    edgeAttr = new Float32Array(entries * edgeDim);
  for (let e = 0; e < m; ++e)
    for (let side = 0; side < (symmetric ? 2 : 1); ++side) {
      const k = at[side ? src[e] : dst[e]]++;
      colIdx[k] = side ? dst[e] : src[e];
      for (let j = 0, to = k * edgeDim, from = e * edgeDim; j < edgeDim; ++j) edgeAttr[to + j] = features[from + j];
    }
  return {edges: CsrBlock.trusted(rowPtr, colIdx, n, undefined, undefined, true), edgeAttr};
}

/**
 * Graphs laid one after another in shared columns (OGB's graph property layout, the graph cache's): graph g has the
 * next `vertices[g]` vertex rows and `edges[g]` edges, each a view of the columns. Every edge must stay within its
 * graph's vertices; `badEdge(g, k, n)` says why not for entry k of the columns (graph g of n vertices).
 */
export function graphsFromColumns(
  c: {
    vertices: ArrayLike<number>;
    edges: ArrayLike<number>;
    src: Int32Array;
    dst: Int32Array;
    features?: Float32Array;
    dim: number;
    edgeFeatures?: Float32Array;
    edgeDim: number;
    labels?: ArrayLike<number>;
  },
  badEdge: (g: number, k: number, n: number) => string,
): SmallGraph[] {
  const graphs: SmallGraph[] = [];
  let e = 0,
    v = 0;
  for (let g = 0; g < c.vertices.length; ++g) {
    const n = c.vertices[g],
      m = c.edges[g];
    if (n < 0 || m < 0 || e + m > c.src.length) throw new Error(`graph ${g}'s counts run past the columns`);
    for (let k = e; k < e + m; ++k) if (c.src[k] < 0 || c.src[k] >= n || c.dst[k] < 0 || c.dst[k] >= n) throw new Error(badEdge(g, k, n));
    graphs.push({
      numVertices: n,
      src: c.src.subarray(e, e + m),
      dst: c.dst.subarray(e, e + m),
      ...(c.features ? {features: c.features.subarray(v * c.dim, (v + n) * c.dim)} : {}),
      ...(c.edgeFeatures ? {edgeFeatures: c.edgeFeatures.subarray(e * c.edgeDim, (e + m) * c.edgeDim)} : {}),
      ...(c.labels ? {label: c.labels[g]} : {}),
    });
    e += m;
    v += n;
  }
  return graphs;
}

/** The graphs as one batch; `symmetric` (default true) adds each edge's reverse. */
export function batchGraphs(graphs: SmallGraph[], o: {symmetric?: boolean} = {}): GraphBatch {
  const {ptr, edges: edgeCount, dim, withFeatures, withLabels, edgeDim} = checkGraphs(graphs);
  const edgeFeatures = graphs[0].edgeFeatures ? new Float32Array(edgeCount * edgeDim) : undefined;
  const n = ptr[graphs.length];
  const src = new Int32Array(edgeCount),
    dst = new Int32Array(edgeCount),
    batch = new Int32Array(n);
  const features = withFeatures ? new Float32Array(n * dim) : undefined;
  let at = 0;
  graphs.forEach((g, i) => {
    const base = ptr[i];
    for (let e = 0; e < g.src.length; ++e, ++at) {
      src[at] = base + g.src[e];
      dst[at] = base + g.dst[e];
    }
    batch.fill(i, base, ptr[i + 1]);
    if (features && g.features) features.set(g.features, base * dim);
    if (edgeFeatures && g.edgeFeatures) edgeFeatures.set(g.edgeFeatures, (at - g.src.length) * edgeDim);
  });
  const symmetric = o.symmetric ?? true;
  // The graph is made when asked for where the layers read the edges with their features (a block of its own).
  let graph: CsrGraph | undefined;
  const made = () => (graph ??= CsrGraph.fromEdges({numVertices: n, src, dst, directed: !symmetric}, {symmetric}));
  const {edges, edgeAttr} = edgeFeatures
    ? edgesWithFeatures(src, dst, edgeFeatures, edgeDim, n, symmetric)
    : {edges: CsrBlock.trusted(made().rowPtr, made().colIdx, n, undefined, undefined, true), edgeAttr: undefined};
  const vertices = new Int32Array(n);
  for (let v = 0; v < n; ++v) vertices[v] = v;
  // A batch's blocks serve one step: on the GPU their products are differentiated by scattering (no transposes).
  const pool = CsrBlock.trusted(ptr, vertices, n, undefined, undefined, true);
  return {
    numGraphs: graphs.length,
    numVertices: n,
    get graph() {
      return made();
    },
    batch,
    ptr,
    ...(features ? {features} : {}),
    dim,
    ...(withLabels ? {labels: Float32Array.from(graphs, (g) => g.label!)} : {}),
    pool,
    edges,
    ...(edgeAttr ? {edgeAttr} : {}),
    edgeDim,
    dispose: () => (pool.dispose(), edges.dispose()),
  };
}

// The array work of batching small graphs (PyG's Batch.from_data_list), with no tensors, blocks or addon: the
// graphs checked, their vertices numbered one graph after another, their edges shifted and laid out as CSR
// rows. What batchGraphs makes its blocks from, on the main thread or in a loader's worker thread.
import {csrFromEdges} from './csr_from_edges';

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

/** A batch's arrays (graph_batch.ts makes its blocks from them). */
export interface BatchArrays {
  numGraphs: number;
  numVertices: number;
  ptr: Int32Array;
  batch: Int32Array;
  features?: Float32Array;
  dim: number;
  labels?: Float32Array;
  /** The graphs' edges, shifted (src[i], dst[i]). */
  src: Int32Array;
  dst: Int32Array;
  symmetric: boolean;
  /** The rows the layers read: every edge an entry with its features beside it (edgeAttr), or the graph's rows. */
  rowPtr: Int32Array;
  colIdx: Int32Array;
  edgeAttr?: Float32Array;
  edgeDim: number;
  /** rowPtr and colIdx are the graph's own rows (no edge features): duplicates and self loops dropped. */
  graphRows: boolean;
}

/** How the graph's rows are made from its edges: natively on the main thread, in script in a worker. */
export type RowsFromEdges = (n: number, src: Int32Array, dst: Int32Array, symmetric: boolean) => {rowPtr: Int32Array; colIdx: Int32Array};

/** The graphs' batch as arrays, the graph's rows made by `rows`. */
export function batchArrays(graphs: SmallGraph[], symmetric: boolean, rows: RowsFromEdges = csrFromEdges): BatchArrays {
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
  const layered: {rowPtr: Int32Array; colIdx: Int32Array; edgeAttr?: Float32Array} = edgeFeatures
    ? edgesWithFeatures(src, dst, edgeFeatures, edgeDim, n, symmetric)
    : rows(n, src, dst, symmetric);
  return {
    numGraphs: graphs.length,
    numVertices: n,
    ptr,
    batch,
    ...(features ? {features} : {}),
    dim,
    ...(withLabels ? {labels: Float32Array.from(graphs, (g) => g.label!)} : {}),
    src,
    dst,
    symmetric,
    rowPtr: layered.rowPtr,
    colIdx: layered.colIdx,
    ...(layered.edgeAttr ? {edgeAttr: layered.edgeAttr} : {}),
    edgeDim,
    graphRows: !edgeFeatures,
  };
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
): {rowPtr: Int32Array; colIdx: Int32Array; edgeAttr: Float32Array} {
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
  return {rowPtr, colIdx, edgeAttr};
}

/** Graphs one after another in columns: graph g's counts, then every graph's edges, features and label in turn. */
export interface GraphColumns {
  vertices: ArrayLike<number>;
  edges: ArrayLike<number>;
  src: Int32Array;
  dst: Int32Array;
  features?: Float32Array;
  dim: number;
  edgeFeatures?: Float32Array;
  edgeDim: number;
  labels?: ArrayLike<number>;
}

/**
 * Graphs laid one after another in shared columns (OGB's graph property layout, the graph cache's): graph g has the
 * next `vertices[g]` vertex rows and `edges[g]` edges, each a view of the columns. Every edge must stay within its
 * graph's vertices; `badEdge(g, k, n)` says why not for entry k of the columns (graph g of n vertices).
 */
export function graphsFromColumns(c: GraphColumns, badEdge: (g: number, k: number, n: number) => string): SmallGraph[] {
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

/** Graphs packed in columns (GraphColumns) in memory threads share. */
export interface PackedGraphs extends GraphColumns {
  vertices: Int32Array;
  edges: Int32Array;
  labels?: Float64Array;
}

/** Checked graphs (checkGraphs) packed into shared columns, for a worker thread to batch from. */
export function packGraphs(graphs: SmallGraph[]): PackedGraphs {
  const {ptr, edges, dim, withFeatures, withLabels, edgeDim} = checkGraphs(graphs);
  const shared = <T>(make: new (b: SharedArrayBuffer) => T, bytes: number, length: number): T =>
    new make(new SharedArrayBuffer(Math.max(bytes, 1) * Math.max(length, 0)));
  const n = ptr[graphs.length];
  const p: PackedGraphs = {
    vertices: shared(Int32Array, 4, graphs.length),
    edges: shared(Int32Array, 4, graphs.length),
    src: shared(Int32Array, 4, edges),
    dst: shared(Int32Array, 4, edges),
    ...(withFeatures ? {features: shared(Float32Array, 4, n * dim)} : {}),
    dim,
    ...(graphs[0].edgeFeatures ? {edgeFeatures: shared(Float32Array, 4, edges * edgeDim)} : {}),
    edgeDim,
    ...(withLabels ? {labels: shared(Float64Array, 8, graphs.length)} : {}),
  };
  let e = 0;
  graphs.forEach((g, i) => {
    const m = g.src.length;
    p.vertices[i] = g.numVertices;
    p.edges[i] = m;
    for (let k = 0; k < m; ++k) ((p.src[e + k] = g.src[k]), (p.dst[e + k] = g.dst[k]));
    if (p.features && g.features) p.features.set(g.features, ptr[i] * dim);
    if (p.edgeFeatures && g.edgeFeatures) p.edgeFeatures.set(g.edgeFeatures, e * edgeDim);
    if (p.labels) p.labels[i] = g.label!;
    e += m;
  });
  return p;
}

/** The buffers a batch's arrays hold, to transfer them between threads (each its own). */
export function buffersOf(a: BatchArrays): ArrayBuffer[] {
  return [a.ptr, a.batch, a.features, a.labels, a.src, a.dst, a.rowPtr, a.colIdx, a.edgeAttr].flatMap((x) =>
    x && x.buffer instanceof ArrayBuffer ? [x.buffer] : [],
  );
}

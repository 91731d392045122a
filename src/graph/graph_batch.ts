// Many small graphs as one (PyG's Batch.from_data_list): their vertices numbered one graph after another,
// their edges block-diagonal, a batch vector naming each vertex's graph, and the pooling block whose row g
// reads graph g's vertices, so a global pooling is a neighbour reduction over it (wm.nn.globalAddPool).
import {CsrBlock} from './aggregate';
import {BatchArrays, batchArrays, SmallGraph} from './batch_arrays';
import {CsrGraph} from './csr';
import type {Split} from './split';

export {checkGraphs, graphsFromColumns} from './batch_arrays';
export type {SmallGraph} from './batch_arrays';

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

/** The graphs as one batch; `symmetric` (default true) adds each edge's reverse. */
export function batchGraphs(graphs: SmallGraph[], o: {symmetric?: boolean} = {}): GraphBatch {
  return batchOf(batchArrays(graphs, o.symmetric ?? true, nativeRows));
}

/** @internal The graph's rows made natively (CsrGraph.fromEdges: the addon where it loaded). */
export function nativeRows(n: number, src: Int32Array, dst: Int32Array, symmetric: boolean): CsrGraph {
  return CsrGraph.fromEdges({numVertices: n, src, dst, directed: !symmetric}, {symmetric});
}

/** @internal A batch's blocks over its arrays (made here or by a loader's worker thread). */
export function batchOf(a: BatchArrays): GraphBatch {
  const n = a.numVertices;
  // The graph is made when asked for where the layers read the edges with their features (a block of its own).
  let graph: CsrGraph | undefined = a.graphRows ? new CsrGraph(a.rowPtr, a.colIdx).trusted() : undefined;
  const made = () => (graph ??= nativeRows(n, a.src, a.dst, a.symmetric));
  const vertices = new Int32Array(n);
  for (let v = 0; v < n; ++v) vertices[v] = v;
  // A batch's blocks serve one step: on the GPU their products are differentiated by scattering (no transposes).
  const edges = CsrBlock.trusted(a.rowPtr, a.colIdx, n, undefined, undefined, true);
  const pool = CsrBlock.trusted(a.ptr, vertices, n, undefined, undefined, true);
  return {
    numGraphs: a.numGraphs,
    numVertices: n,
    get graph() {
      return made();
    },
    batch: a.batch,
    ptr: a.ptr,
    ...(a.features ? {features: a.features} : {}),
    dim: a.dim,
    ...(a.labels ? {labels: a.labels} : {}),
    pool,
    edges,
    ...(a.edgeAttr ? {edgeAttr: a.edgeAttr} : {}),
    edgeDim: a.edgeDim,
    dispose: () => (pool.dispose(), edges.dispose()),
  };
}

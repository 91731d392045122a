// A graph held in native memory: CSR with int64 row offsets and int32 columns
// (vertices below 2^31), built, generated, saved and loaded by multithreaded
// C++ (wm/native_graph.h). JavaScript holds a handle; no graph-sized array
// crosses into it unless asked for (toCsrGraph, for small graphs). Graphs past
// 2^31 edges, which Int32Array offsets cannot describe, live here.
import {readNpyHeader} from '../data/npy';
import {checkCapacity} from '../memory/capacity';
import type {NativeGraph} from '../native/addon';
import {graphNative} from '../native/domains';
import {Ids, int32Ids} from '../util/arrays';
import {CsrGraph} from './csr';
import {EdgeList, edgeFileHeader, vertexCount} from './edge_list';
import {readTextTable} from './text_table';
import type {HostGraph, SampleOptions} from './graph_store';
import {sampleHostGraph} from './native_sampling';
import {RmatOptions, rmatParams} from './rmat';
import {checkTrustedFile} from '../util/trusted_files';

export class NativeCsr implements HostGraph {
  readonly place = 'host' as const;
  readonly samples = 'arrays' as const;
  readonly wideOffsets = true;
  private graph: NativeGraph | undefined;
  private sortedRows = false;

  private constructor(graph: NativeGraph) {
    this.graph = graph;
  }

  /**
   * CSR from an edge list: rows sorted ascending, duplicates and self loops dropped; `symmetric` adds
   * every reverse edge. The same graph as CsrGraph.fromEdges, with 64-bit offsets.
   */
  static fromEdges(edges: EdgeList, opts: {symmetric: boolean}): NativeCsr {
    if (edges.src.length !== edges.dst.length)
      throw new RangeError(`NativeCsr.fromEdges: src and dst differ in length (${edges.src.length} and ${edges.dst.length})`);
    return new NativeCsr(graphNative().graphFromEdges(edges.numVertices, edges.src, edges.dst, opts.symmetric));
  }

  /**
   * CSR from an edge-list file (TSV, CSV or whitespace, gzip or not; `# vertices=N` headers and comments
   * read as readEdgeList reads them), parsed natively as the file is read: any size, past 2^31 entries
   * too, with nothing file-sized in JavaScript. With numVertices every id must be below it and a line
   * holds exactly two ids (OGB's edge files); without, extra fields are ignored and the vertex count
   * comes from the header or the largest id. Errors name the file and line.
   */
  static async fromEdgeFile(file: string, opts: {symmetric: boolean; numVertices?: number}): Promise<NativeCsr> {
    return new NativeCsr((await edgeFileGraph(file, opts)).graph);
  }

  /**
   * CSR from an edge matrix saved by NumPy (`np.save('edges.npy', edge_index)`): shape [2, m] (sources,
   * then destinations: PyG's and OGB's edge_index) or [m, 2], int32 or int64, C order. The file is read
   * natively in place (int32 [2, m] is mapped, not copied); `numVertices` defaults to the largest id + 1.
   * Rows sorted, duplicates and self loops dropped, as fromEdges; errors name the file and the edge.
   */
  static fromNpy(file: string, opts: {symmetric: boolean; numVertices?: number}): NativeCsr {
    return new NativeCsr(edgeMatrixGraph(file, opts).graph);
  }

  /**
   * CSR arrays copied as they are (rows keep their order): offsets must run from 0 to colIdx.length
   * without decreasing, and every column must be a vertex (refused by position otherwise).
   */
  static fromCsr(rowPtr: Int32Array, colIdx: Int32Array): NativeCsr {
    return new NativeCsr(graphNative().graphFromCsr(rowPtr, colIdx));
  }

  /**
   * The R-MAT graph of `rmat(opts)` made into CSR (symmetric by default) without an edge list: edges
   * are drawn twice from their seeded streams (degrees, then placement), so memory holds only the CSR.
   * The same graph as CsrGraph.fromEdges(rmat(opts), {symmetric}).
   */
  static rmat(opts: RmatOptions & {symmetric?: boolean}): NativeCsr {
    const p = rmatParams(opts);
    // At most every drawn edge kept (no edge arrays: the edges are drawn twice), refused before drawing.
    const drawn = Math.round(2 ** p.scale * p.edgeFactor);
    checkBuild(`NativeCsr.rmat (scale ${p.scale}, edge factor ${p.edgeFactor}: up to ${drawn} edges)`, {
      edges: drawn,
      vertices: p.vertices,
      symmetric: opts.symmetric ?? true,
      edgeArrays: false,
    });
    return new NativeCsr(
      // mulberry32 keeps the seed's low 32 bits, as rmat() does
      graphNative().graphRmat(p.scale, p.edgeFactor, p.a, p.b, p.c, p.seed % 2 ** 32, p.permute, p.vertices, opts.symmetric ?? true),
    );
  }

  /** @internal A handle a native generator made (the NativeCsr owns it from here). */
  static adopt(graph: NativeGraph): NativeCsr {
    return new NativeCsr(graph);
  }

  /**
   * A graph file written by save(), mapped read-only (the pages are shared with other processes that
   * load it). Throws naming the file when it is not a graph file, is truncated, fails its checksum or
   * holds offsets or columns out of range, and refuses a file another user could have written
   * (`checkTrustedFile`: docs/robustness.md).
   */
  static load(file: string): NativeCsr {
    checkTrustedFile(file, 'NativeCsr.load');
    return new NativeCsr(graphNative().graphLoad(file));
  }

  /** Writes the graph to `file` (atomically: a temporary beside it, renamed); `meta` is kept with it. */
  save(file: string, meta = ''): void {
    this.handle().save(file, meta);
  }

  get numVertices(): number {
    return this.handle().numVertices;
  }

  /** CSR entries (directed edges; an undirected edge counts twice). May exceed 2^31. */
  get numEdges(): number {
    return this.handle().numEdges;
  }

  /** Bytes of its arrays: (numVertices + 1) * 8 of offsets and numEdges * 4 of columns. */
  get bytes(): number {
    return this.handle().bytes;
  }

  /** What identifies the graph: a checksum of its offsets and columns (16 hex digits; the note left out). */
  checksum(): string {
    return this.handle().checksum;
  }

  /** The note saved with the graph ('' for one built here). */
  get meta(): string {
    return this.handle().meta;
  }

  degree(v: number): number {
    return this.degrees([this.vertex(v, 'degree')])[0];
  }

  /** Degrees of many vertices at once (every vertex when omitted). */
  degrees(vertices?: Ids): Int32Array {
    const ids = vertices ? int32Ids(vertices, 'NativeCsr.degrees: vertices') : Int32Array.from({length: this.numVertices}, (_, v) => v);
    const out = new Int32Array(ids.length);
    this.handle().degrees(ids, ids.length, out);
    return out;
  }

  /** Rows [first, first + count): offsets from 0 and their columns (copies; at most 2^31 - 1 entries). */
  rows(first: number, count: number): {offsets: Int32Array; columns: Int32Array} {
    for (const [k, v] of [
      ['first', first],
      ['count', count],
    ] as const)
      if (!Number.isInteger(v) || v < 0) throw new RangeError(`NativeCsr.rows: ${k} must be a non-negative integer, got ${v}`);
    return this.handle().rows(first, count);
  }

  /** A copy of v's neighbours, ascending. */
  neighbors(v: number): Int32Array {
    return this.handle().neighbors(this.vertex(v, 'neighbors'));
  }

  /** Whether every row's neighbours are in ascending order (the builders sort them; fromCsr and files need not). */
  hasSortedRows(): boolean {
    if (!this.sortedRows) this.sortedRows = this.handle().firstUnsortedRow() < 0;
    return this.sortedRows;
  }

  /** Throws unless hasSortedRows(): negative sampling and node2vec walks search rows by bisection. */
  requireSortedRows(what: string): this {
    if (this.hasSortedRows()) return this;
    const v = this.handle().firstUnsortedRow();
    const row = this.neighbors(v);
    throw new RangeError(
      `${what}: the neighbours of vertex ${v} are not in ascending order (${Array.from(row.subarray(0, 8))}${row.length > 8 ? ', ...' : ''}); ` +
        'build the graph with NativeCsr.fromEdges or sort each row',
    );
  }

  /** The graph as Int32Array CSR (a copy); refused past 2^31 - 1 edges, which Int32Array offsets cannot hold. */
  toCsrGraph(): CsrGraph {
    return CsrGraph.fromNative(this.handle());
  }

  /** On the host: ids [seeds * fanout] with replacement, or {offsets, ids} without (as sampleNeighbors). */
  sample(seeds: Ids, fanout: number, opts: SampleOptions = {}): {offsets?: Int32Array; ids: Int32Array} {
    return sampleHostGraph(this, seeds, fanout, opts, 'NativeCsr.sample');
  }

  /** Its arrays were checked when it was built or loaded. */
  checked(_what: string): this {
    this.handle();
    return this;
  }

  csrSource(): {rowPtr: NativeGraph; colIdx: null} {
    return {rowPtr: this.handle(), colIdx: null};
  }

  /** Row offsets [first, first + count), int64, viewing native memory (at most 4 GiB a view). */
  offsets(first: number, count: number): BigInt64Array {
    return this.handle().offsets(first, count);
  }

  /** Columns [first, first + count), viewing native memory (at most 4 GiB a view). */
  columns(first: number, count: number): Int32Array {
    return this.handle().columns(first, count);
  }

  /** The first entry whose column is not an id in [0, limit), or -1 (read natively, in parallel: any size). */
  firstColumnOutside(limit: number): number {
    return this.handle().firstColumnOutside(limit);
  }

  copyToDevice(rowPtr: number, colIdx: number): void {
    this.handle().copyToDevice(rowPtr, colIdx);
  }

  /** Frees the native memory now (else when the handle is collected). */
  free(): void {
    this.graph?.free();
    this.graph = undefined;
  }

  /** @internal The handle, for the samplers and DeviceCsr. */
  handle(): NativeGraph {
    if (!this.graph) throw new Error('NativeCsr: the graph was freed');
    return this.graph;
  }

  private vertex(v: number, what: string): number {
    if (!Number.isInteger(v) || v < 0 || v >= this.numVertices)
      throw new RangeError(`NativeCsr.${what}: v must be a vertex in [0, ${this.numVertices}), got ${v}`);
    return v;
  }
}

/** @internal NativeCsr.fromEdgeFile's graph, and the edges (lines) the file held. */
export async function edgeFileGraph(
  file: string,
  opts: {symmetric: boolean; numVertices?: number; weights?: 'column' | Float32Array},
): Promise<{graph: NativeGraph; edges: number; weights?: Float32Array}> {
  const n = opts.numVertices;
  if (n !== undefined && (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1))
    throw new RangeError(`NativeCsr.fromEdgeFile: numVertices must be an integer in [0, 2^31 - 1], got ${n}`);
  const column = opts.weights === 'column';
  const spec = n === undefined ? {ids: 2, comments: true, extraFields: true} : {ids: 2, idBound: n};
  const t = await readTextTable(file, column ? {...spec, values: 1, extraFields: true} : spec);
  const {rows, maxId, maxIdLine, comments, extraRows, extraLine} = t.summary;
  const vertices = n ?? vertexCount(file, edgeFileHeader(comments).vertices, maxId, maxIdLine, rows);
  // Never dropped without a word: Node prints the warning (process.on('warning') receives it).
  if (extraRows > 0) {
    const what = column
      ? `fields past the two vertex ids and the weight (the first on line ${extraLine}); they are not read`
      : `fields past the two vertex ids (the first on line ${extraLine}: edge weights?); they are not read: the graph is built unweighted`;
    process.emitWarning(`${file}: ${extraRows} of ${rows} edges hold ${what}`, {code: 'WM_EDGE_FIELDS_IGNORED'});
  }
  checkBuild(`NativeCsr.fromEdgeFile (${rows} edges)`, {edges: rows, vertices, symmetric: opts.symmetric, edgeArrays: true});
  if (opts.weights === undefined)
    return {graph: graphNative().graphFromEdgeArrays(vertices, t.ids(0), t.ids(1), opts.symmetric), edges: rows};
  // Weighted: the edges stay until each weight is placed in the CSR's entry order.
  const w = column ? (t.values().view() as Float32Array) : (opts.weights as Float32Array);
  if (w.length !== rows) throw new RangeError(`${file}: ${rows} edges, ${w.length} weights`);
  const src = t.ids(0).view() as Int32Array,
    dst = t.ids(1).view() as Int32Array;
  const graph = graphNative().graphFromEdges(vertices, src, dst, opts.symmetric);
  try {
    const weights = new Float32Array(graph.numEdges);
    const bad = graphNative().csrEdgeWeights(graph, src, dst, w, rows, opts.symmetric, weights);
    if (bad >= 0) throw new Error(`${file}: edge ${bad} (${src[bad]}, ${dst[bad]}) is not in the graph built from it`);
    return {graph, edges: rows, weights};
  } catch (e) {
    graph.free();
    throw e;
  }
}

/** @internal The edge matrix of a .npy file: where its ids start, the edges, their width and layout; checked against the file's size. */
export function edgeMatrixOf(file: string, what: string): {offset: number; m: number; int64: boolean; pairsInRows: boolean} {
  const h = readNpyHeader(file);
  const int64 = h.descr === '<i8' || h.descr === '=i8';
  if (!int64 && h.descr !== '<i4' && h.descr !== '=i4')
    throw new TypeError(`${what}: ${file}: ids must be little-endian int32 or int64, the file holds '${h.descr}'`);
  if (h.fortran) throw new RangeError(`${what}: ${file}: a Fortran-order array; save it in C order (np.ascontiguousarray)`);
  const [rows, cols] = h.shape;
  if (h.shape.length !== 2 || (rows !== 2 && cols !== 2))
    throw new RangeError(`${what}: ${file}: shape (${h.shape.join(', ')}) is not [2, m] or [m, 2]`);
  // [2, 2] is read as [2, m], as PyG stores edge_index.
  const pairsInRows = rows !== 2;
  const m = pairsInRows ? rows : cols;
  const need = h.dataStart + 2 * m * (int64 ? 8 : 4);
  if (h.fileBytes !== need)
    throw new RangeError(`${what}: ${file}: ${m} edges of ${int64 ? 'int64' : 'int32'} need ${need} bytes, the file holds ${h.fileBytes}`);
  return {offset: h.dataStart, m, int64, pairsInRows};
}

/** @internal NativeCsr.fromNpy's build, and the edge count read (for loaders that check it). */
export function edgeMatrixGraph(file: string, opts: {symmetric: boolean; numVertices?: number}): {graph: NativeGraph; edges: number} {
  const e = edgeMatrixOf(file, 'NativeCsr.fromNpy');
  checkBuild(`NativeCsr.fromNpy (${e.m} edges)`, {
    edges: e.m,
    vertices: opts.numVertices ?? 0,
    symmetric: opts.symmetric,
    edgeArrays: true,
  });
  const n = opts.numVertices ?? -1;
  if (opts.numVertices !== undefined && (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1))
    throw new RangeError(`NativeCsr.fromNpy: numVertices must be an integer in [0, 2^31 - 1], got ${opts.numVertices}`);
  return {graph: graphNative().graphFromEdgeMatrix(file, e.offset, e.m, e.int64, e.pairsInRows, n, opts.symmetric), edges: e.m};
}

/**
 * @internal Refuses a native graph build that cannot fit in host memory, before it starts: the CSR's
 * offsets and entries (every edge both ways when symmetric) and, with edgeArrays, the two id columns
 * the build holds until the edges are placed.
 */
export function checkBuild(what: string, o: {edges: number; vertices: number; symmetric: boolean; edgeArrays: boolean}): void {
  const entries = (o.symmetric ? 2 : 1) * o.edges;
  checkCapacity(what, entries * 4 + (o.vertices + 1) * 8 + (o.edgeArrays ? 8 * o.edges : 0), 'host');
}

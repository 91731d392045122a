// Compressed sparse rows: rowPtr[v]..rowPtr[v+1] index v's neighbours in colIdx.
import {deviceStatus} from '../native/device';
import {csrFromEdges} from './csr_from_edges';
import {EdgeList} from './edge_list';
import type {NativeGraph} from '../native/addon';
import {graphNative} from '../native/domains';
import {Ids, int32Ids, int32Of} from '../util/arrays';
import type {HostGraph, SampleOptions} from './graph_store';
import {sampleHostGraph} from './native_sampling';

// The most one typed array viewing native memory spans (Node's external ArrayBuffers).
const MAX_VIEW_BYTES = 2 ** 32;

export class CsrGraph implements HostGraph {
  readonly place = 'script' as const;
  readonly samples = 'arrays' as const;
  readonly wideOffsets = false;

  constructor(
    readonly rowPtr: Int32Array,
    readonly colIdx: Int32Array,
  ) {
    if (rowPtr.length === 0 || rowPtr[rowPtr.length - 1] !== colIdx.length) {
      throw new Error('CsrGraph: rowPtr must end at colIdx.length');
    }
  }

  private valid = false;
  private sortedRows = false;

  /**
   * Throws unless every row is non-decreasing and every column is a vertex
   * (once per graph; graphs from fromEdges are valid by construction). The
   * samplers read these arrays unchecked, so they call this first.
   */
  validate(what = 'CsrGraph'): this {
    if (this.valid) return this;
    const n = this.numVertices,
      {rowPtr, colIdx} = this;
    if (rowPtr[0] !== 0) throw new RangeError(`${what}: rowPtr[0] must be 0, got ${rowPtr[0]}`);
    for (let v = 0; v < n; ++v) {
      if (rowPtr[v + 1] < rowPtr[v]) throw new RangeError(`${what}: rowPtr decreases at vertex ${v} (${rowPtr[v]} then ${rowPtr[v + 1]})`);
    }
    for (let e = 0; e < colIdx.length; ++e) {
      const c = colIdx[e];
      if (!(c >= 0 && c < n)) throw new RangeError(`${what}: colIdx[${e}] = ${c} is not a vertex in [0, ${n})`);
    }
    this.valid = true;
    return this;
  }

  checked(what: string): this {
    return this.validate(what);
  }

  csrSource(): {rowPtr: Int32Array; colIdx: Int32Array} {
    return {rowPtr: this.rowPtr, colIdx: this.colIdx};
  }

  offsets(first: number, count: number): Int32Array {
    return this.rowPtr.subarray(first, first + count);
  }

  columns(first: number, count: number): Int32Array {
    return this.colIdx.subarray(first, first + count);
  }

  copyToDevice(rowPtr: number, colIdx: number): void {
    graphNative().upload(rowPtr, this.rowPtr);
    if (this.colIdx.length) graphNative().upload(colIdx, this.colIdx);
  }

  /** On the host: ids [seeds * fanout] with replacement, or {offsets, ids} without. */
  sample(seeds: Ids, fanout: number, opts: SampleOptions = {}): {offsets?: Int32Array; ids: Int32Array} {
    return sampleHostGraph(this, seeds, fanout, opts, 'sampleNeighbors');
  }

  /** @internal Built valid (fromEdges): skips validate()'s pass. */
  trusted(): this {
    this.valid = true;
    this.sortedRows = true;
    return this;
  }

  /** Whether every row's neighbours are in ascending order (fromEdges sorts them). */
  hasSortedRows(): boolean {
    if (!this.sortedRows) this.sortedRows = this.firstUnsortedRow() < 0;
    return this.sortedRows;
  }

  /**
   * Throws unless hasSortedRows(): the edge tests of negative sampling and
   * node2vec walks search rows by bisection.
   */
  requireSortedRows(what: string): this {
    this.validate(what);
    if (this.hasSortedRows()) return this;
    const v = this.firstUnsortedRow();
    throw new RangeError(
      `${what}: the neighbours of vertex ${v} are not in ascending order (${Array.from(this.neighbors(v).subarray(0, 8))}` +
        `${this.degree(v) > 8 ? ', ...' : ''}); build the graph with CsrGraph.fromEdges or sort each row`,
    );
  }

  private firstUnsortedRow(): number {
    const {rowPtr, colIdx} = this;
    for (let v = 0; v < this.numVertices; ++v) {
      for (let e = rowPtr[v] + 1; e < rowPtr[v + 1]; ++e) if (colIdx[e] < colIdx[e - 1]) return v;
    }
    return -1;
  }

  get numVertices(): number {
    return this.rowPtr.length - 1;
  }

  get numEdges(): number {
    return this.colIdx.length;
  }

  degree(v: number): number {
    return this.degrees([v])[0];
  }

  /** Degrees of `vertices` (every vertex when omitted; ids as `int32Ids` reads them), as NativeCsr.degrees. */
  degrees(vertices?: Ids): Int32Array {
    const {rowPtr, numVertices: n} = this;
    if (vertices === undefined) return int32Of(n, (v) => rowPtr[v + 1] - rowPtr[v]);
    const ids = int32Ids(vertices, 'CsrGraph.degrees: vertices');
    const out = new Int32Array(ids.length);
    for (let i = 0; i < ids.length; ++i) {
      const v = ids[i];
      if (v < 0 || v >= n) throw new RangeError(`CsrGraph.degrees: vertices[${i}] = ${v} is not a vertex (0 to ${n - 1})`);
      out[i] = rowPtr[v + 1] - rowPtr[v];
    }
    return out;
  }

  /** What identifies the graph (its offsets and columns), as NativeCsr.checksum gives it for the same graph. */
  checksum(): string {
    const g = graphNative().graphFromCsr(this.rowPtr, this.colIdx);
    try {
      return g.checksum;
    } finally {
      g.free();
    }
  }

  /** Rows [first, first + count): offsets from 0 and their columns (the columns a view), as NativeCsr.rows. */
  rows(first: number, count: number): {offsets: Int32Array; columns: Int32Array} {
    const base = this.rowPtr[first];
    const offsets = Int32Array.from(this.rowPtr.subarray(first, first + count + 1), (x) => x - base);
    return {offsets, columns: this.colIdx.subarray(base, this.rowPtr[first + count])};
  }

  neighbors(v: number): Int32Array {
    return this.colIdx.subarray(this.rowPtr[v], this.rowPtr[v + 1]);
  }

  /**
   * Builds CSR from an edge list. `symmetric` adds every reverse edge (an
   * undirected view); duplicates and self loops are dropped.
   */
  static fromEdges(edges: EdgeList, opts: {symmetric: boolean}): CsrGraph {
    // The C++ core when the addon loaded (the same result, many times faster).
    if (deviceStatus().addonLoaded) {
      const g = graphNative().graphFromEdges(edges.numVertices, edges.src, edges.dst, opts.symmetric);
      try {
        return CsrGraph.viewNative(g, 'CsrGraph.fromEdges'); // the view keeps the columns when g is freed
      } finally {
        g.free();
      }
    }
    return CsrGraph.fromEdgesInScript(edges, opts);
  }

  /** @internal A native graph's arrays as Int32Array CSR (a copy); refused past 2^31 - 1 edges, which Int32Array offsets cannot hold. */
  static fromNative(g: NativeGraph): CsrGraph {
    const rowPtr = new Int32Array(g.numVertices + 1),
      colIdx = new Int32Array(g.numEdges <= 2 ** 31 - 1 ? g.numEdges : 0);
    g.copyCsr(rowPtr, colIdx);
    return new CsrGraph(rowPtr, colIdx).trusted();
  }

  /**
   * @internal A native graph seen as Int32Array CSR: the columns viewed in native memory (no copy; they
   * stay alive with the view), the offsets copied to int32. Columns past the 4 GiB a view spans are
   * copied instead; refused past 2^31 - 1 entries, naming `where`. The graph's builder or loader checked
   * its structure and sorted its rows.
   */
  static viewNative(g: NativeGraph, where: string): CsrGraph {
    if (g.numEdges > 2 ** 31 - 1)
      throw new RangeError(
        `${where}: ${g.numEdges} CSR entries are past the 2^31 - 1 that Int32Array offsets hold; keep such a graph native (NativeCsr)`,
      );
    if (g.numEdges * 4 > MAX_VIEW_BYTES) return CsrGraph.fromNative(g);
    const rowPtr = new Int32Array(g.numVertices + 1);
    g.copyCsr(rowPtr, null);
    return new CsrGraph(rowPtr, g.columns()).trusted();
  }

  /** @internal fromEdges in TypeScript (no addon; and the tests' reference). */
  static fromEdgesInScript(edges: EdgeList, opts: {symmetric: boolean}): CsrGraph {
    const {rowPtr, colIdx} = csrFromEdges(edges.numVertices, edges.src, edges.dst, opts.symmetric);
    return new CsrGraph(rowPtr, colIdx).trusted();
  }

  /** Connected component ids (treating edges as undirected in this CSR). */
  components(): {id: Int32Array; count: number} {
    const n = this.numVertices;
    const id = new Int32Array(n).fill(-1);
    let count = 0;
    const stack: number[] = [];
    for (let s = 0; s < n; ++s) {
      if (id[s] >= 0) continue;
      id[s] = count;
      stack.push(s);
      while (stack.length) {
        const v = stack.pop()!;
        for (let e = this.rowPtr[v]; e < this.rowPtr[v + 1]; ++e) {
          const u = this.colIdx[e];
          if (id[u] < 0) {
            id[u] = count;
            stack.push(u);
          }
        }
      }
      ++count;
    }
    return {id, count};
  }

  /** The subgraph induced by `keep` (old ids, ascending), relabelled 0..k-1. */
  induced(keep: Int32Array): CsrGraph {
    const newId = new Int32Array(this.numVertices).fill(-1);
    keep.forEach((v, i) => (newId[v] = i));
    const rowPtr = new Int32Array(keep.length + 1);
    const col: number[] = [];
    keep.forEach((v, i) => {
      for (const u of this.neighbors(v)) if (newId[u] >= 0) col.push(newId[u]);
      rowPtr[i + 1] = col.length;
    });
    return new CsrGraph(rowPtr, Int32Array.from(col)).trusted();
  }

  /** The largest connected component: its vertices (old ids) and subgraph. */
  largestComponent(): {vertices: Int32Array; graph: CsrGraph} {
    const {id, count} = this.components();
    const size = new Int32Array(count);
    id.forEach((c) => size[c]++);
    let best = 0;
    for (let c = 1; c < count; ++c) if (size[c] > size[best]) best = c;
    const vertices = Int32Array.from(Array.from(id.keys()).filter((v) => id[v] === best));
    return {vertices, graph: this.induced(vertices)};
  }
}

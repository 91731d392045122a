// Typed graphs (PyG's HeteroData): vertex types with counts; edge types (source type, relation,
// destination type), each a graph in native memory with 64-bit offsets whose row v lists the sources of
// destination v's incoming edges (the direction messages and samplers follow); features per vertex type;
// labels and splits on one target type (features as JavaScript rows, or NativeFeatures: a mapped .npy file
// of any size). Transforms: reverse relations added (PyG's ToUndirected), and
// the whole as one homogeneous graph with each type's id offset and each entry's relation id (what
// R-GCN-style kernels read).
import {graphNative} from '../native/domains';
import type {Split} from './split';
import {NativeCsr} from './native_csr';
import {NativeFeatures} from './native_features';

/** (source type, relation, destination type). */
export type EdgeType = readonly [string, string, string];

/** An edge type's key: `paper___cites___paper`, as OGB names its relation folders. */
export function edgeTypeKey(t: EdgeType): string {
  return `${t[0]}___${t[1]}___${t[2]}`;
}

/** The edge type of a key edgeTypeKey made; `what` names the argument when the key is not one. */
export function parseEdgeTypeKey(key: string, what: string): EdgeType {
  const parts = typeof key === 'string' ? key.split('___') : [];
  if (parts.length !== 3 || parts.some((p) => p.length === 0))
    throw new RangeError(`${what}: '${key}' is not an edge type key (source___relation___destination, as edgeTypeKey makes)`);
  return [parts[0], parts[1], parts[2]];
}

export interface TypedEdges {
  /** Source ids (of the source type) and destination ids (of the destination type), one pair per edge. */
  src: Int32Array;
  dst: Int32Array;
}

export interface HeteroRelation {
  type: EdgeType;
  /** Row v (a destination vertex) lists the sources of its incoming edges, duplicates kept. */
  graph: NativeCsr;
  numEdges: number;
}

/**
 * A vertex type's features: rows of `dim` float32 values in JavaScript, or a NativeFeatures (rows read a
 * window at a time from native memory or a mapped .npy file: tables past what a JavaScript array holds).
 */
export type HeteroFeatures = {values: Float32Array; dim: number} | NativeFeatures;

/** A type's feature rows in one Float32Array (refused, naming the source, past what a typed array holds). */
export function featureValues(f: HeteroFeatures): Float32Array {
  return f instanceof NativeFeatures ? f.toArray() : f.values;
}

export interface HeteroLabels {
  /** The type whose vertices carry labels. */
  type: string;
  /** One class per vertex of the type; -1 where a vertex has none. */
  labels: Int32Array;
  numClasses: number;
  split?: Split;
}

const NAME = /^[A-Za-z0-9_.-]+$/;

function checkName(what: string, name: string): void {
  if (typeof name !== 'string' || !NAME.test(name) || name.includes('___'))
    throw new RangeError(`HeteroGraph: ${what} '${name}' must be letters, digits, '_', '.' or '-' (and no '___')`);
}

/** One relation's graph: row = destination, its sources ascending, every edge kept (wm/native_graph.h relation). */
function relationCsr(key: string, e: TypedEdges, numSrc: number, numDst: number): NativeCsr {
  if (!(e.src instanceof Int32Array) || !(e.dst instanceof Int32Array) || e.src.length !== e.dst.length)
    throw new RangeError(`HeteroGraph: edges of ${key} must be two Int32Arrays of one length (src, dst)`);
  // Columns are source ids: a square graph over the larger of the two counts holds them; each end's ids are
  // checked against its own type's count natively, the first bad edge named.
  try {
    return NativeCsr.adopt(graphNative().graphRelation(Math.max(numSrc, numDst), e.src, e.dst, numSrc, numDst));
  } catch (err) {
    throw new RangeError(`HeteroGraph: ${key} ${(err as Error).message}`);
  }
}

export class HeteroGraph {
  readonly numNodes: Readonly<Record<string, number>>;
  readonly relations: ReadonlyMap<string, HeteroRelation>;
  readonly features: Readonly<Record<string, HeteroFeatures>>;
  readonly labels?: HeteroLabels;

  private constructor(
    numNodes: Record<string, number>,
    relations: Map<string, HeteroRelation>,
    features: Record<string, HeteroFeatures>,
    labels?: HeteroLabels,
  ) {
    this.numNodes = numNodes;
    this.relations = relations;
    this.features = features;
    this.labels = labels;
  }

  /**
   * A typed graph from each vertex type's count and each edge type's (src, dst) pairs; features and
   * labels checked against the counts. Every limit is checked before anything is built.
   */
  static fromEdges(
    numNodes: Record<string, number>,
    edges: ReadonlyArray<{type: EdgeType; edges: TypedEdges}>,
    opts: {features?: Record<string, HeteroFeatures>; labels?: HeteroLabels} = {},
  ): HeteroGraph {
    const types = edges.map((e) => e.type);
    HeteroGraph.check(numNodes, types, opts);
    const relations = new Map<string, HeteroRelation>();
    try {
      for (const {type, edges: e} of edges) {
        const key = edgeTypeKey(type);
        relations.set(key, {
          type: [type[0], type[1], type[2]],
          graph: relationCsr(key, e, numNodes[type[0]], numNodes[type[2]]),
          numEdges: e.src.length,
        });
      }
    } catch (err) {
      for (const r of relations.values()) r.graph.free();
      throw err;
    }
    return new HeteroGraph({...numNodes}, relations, {...(opts.features ?? {})}, opts.labels);
  }

  /**
   * @internal A typed graph over relations already built as this class builds them (a relation's rows are its
   * destinations, its graph square over the larger of its two counts): what the binary cache maps back. Each
   * graph's size and columns are checked against the counts; the graph takes the relations' graphs.
   */
  static fromRelations(
    numNodes: Record<string, number>,
    relations: ReadonlyArray<HeteroRelation>,
    opts: {features?: Record<string, HeteroFeatures>; labels?: HeteroLabels} = {},
  ): HeteroGraph {
    const types = relations.map((r) => r.type);
    HeteroGraph.check(numNodes, types, opts);
    const map = new Map<string, HeteroRelation>();
    for (const r of relations) {
      const key = edgeTypeKey(r.type);
      const [ns, nd] = [numNodes[r.type[0]], numNodes[r.type[2]]];
      const g = r.graph;
      if (g.numVertices !== Math.max(ns, nd) || g.numEdges !== r.numEdges)
        throw new RangeError(
          `HeteroGraph: the graph of ${key} has ${g.numVertices} rows and ${g.numEdges} entries; its types need ${Math.max(ns, nd)} and it says ${r.numEdges}`,
        );
      // Offsets never decrease: rows past the destinations are empty when the first of them starts at the end.
      const offsets = g.offsets(nd, 1);
      if (Number(offsets[0]) !== g.numEdges)
        throw new RangeError(`HeteroGraph: the graph of ${key} has entries in rows past its ${nd} destinations`);
      const e = g.firstColumnOutside(ns);
      if (e >= 0) throw new RangeError(`HeteroGraph: entry ${e} of ${key} is source ${g.columns(e, 1)[0]}, not an id in [0, ${ns})`);
      map.set(key, {type: [r.type[0], r.type[1], r.type[2]], graph: g, numEdges: r.numEdges});
    }
    return new HeteroGraph({...numNodes}, map, {...(opts.features ?? {})}, opts.labels);
  }

  // Every limit of a typed graph's description: names, counts, edge types, features, labels and split.
  private static check(
    numNodes: Record<string, number>,
    edgeTypes: ReadonlyArray<EdgeType>,
    opts: {features?: Record<string, HeteroFeatures>; labels?: HeteroLabels},
  ): void {
    const types = Object.keys(numNodes);
    if (types.length === 0) throw new RangeError('HeteroGraph: no vertex types');
    for (const t of types) {
      checkName('vertex type', t);
      const n = numNodes[t];
      if (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1)
        throw new RangeError(`HeteroGraph: vertex type '${t}' has ${n} vertices; a count is an integer in [0, 2^31)`);
    }
    const seen = new Set<string>();
    for (const type of edgeTypes) {
      if (!Array.isArray(type) || type.length !== 3)
        throw new TypeError('HeteroGraph: an edge type is [source type, relation, destination type]');
      checkName('relation', type[1]);
      for (const end of [type[0], type[2]])
        if (!(end in numNodes))
          throw new RangeError(`HeteroGraph: edge type ${edgeTypeKey(type)} names vertex type '${end}', which has no count`);
      const key = edgeTypeKey(type);
      if (seen.has(key)) throw new RangeError(`HeteroGraph: edge type ${key} is given twice`);
      seen.add(key);
    }
    for (const [t, f] of Object.entries(opts.features ?? {})) {
      if (!(t in numNodes)) throw new RangeError(`HeteroGraph: features for vertex type '${t}', which has no count`);
      if (f instanceof NativeFeatures) {
        if (f.rows !== numNodes[t] || f.dim < 1)
          throw new RangeError(
            `HeteroGraph: features of '${t}' (${f.source}) hold ${f.rows} rows of ${f.dim}; the type has ${numNodes[t]} vertices`,
          );
      } else if (!Number.isInteger(f.dim) || f.dim < 1 || !(f.values instanceof Float32Array) || f.values.length !== numNodes[t] * f.dim)
        throw new RangeError(
          `HeteroGraph: features of '${t}' must be a Float32Array of ${numNodes[t]} x dim values, got ${f.values?.length} for dim ${f.dim}`,
        );
    }
    const l = opts.labels;
    if (l) {
      if (!(l.type in numNodes)) throw new RangeError(`HeteroGraph: labels on vertex type '${l.type}', which has no count`);
      if (!(l.labels instanceof Int32Array) || l.labels.length !== numNodes[l.type])
        throw new RangeError(`HeteroGraph: labels of '${l.type}' must be an Int32Array of ${numNodes[l.type]}, got ${l.labels?.length}`);
      for (let v = 0; v < l.labels.length; ++v)
        if (l.labels[v] < -1 || l.labels[v] >= l.numClasses)
          throw new RangeError(`HeteroGraph: label ${v} of '${l.type}' is ${l.labels[v]}, not in [-1, ${l.numClasses})`);
      for (const [part, ids] of Object.entries(l.split ?? {}))
        for (let i = 0; i < ids.length; ++i)
          if (!(ids[i] >= 0 && ids[i] < numNodes[l.type]))
            throw new RangeError(`HeteroGraph: split ${part}[${i}] = ${ids[i]} is not a '${l.type}' id in [0, ${numNodes[l.type]})`);
    }
  }

  get nodeTypes(): string[] {
    return Object.keys(this.numNodes);
  }

  get edgeTypes(): EdgeType[] {
    return [...this.relations.values()].map((r) => r.type);
  }

  /** The relation of `type`, by its triple or its key; a missing one is refused by name. */
  relation(type: EdgeType | string): HeteroRelation {
    const key = typeof type === 'string' ? type : edgeTypeKey(type);
    const r = this.relations.get(key);
    if (!r) throw new RangeError(`HeteroGraph: no edge type ${key}; the graph has ${[...this.relations.keys()].join(', ')}`);
    return r;
  }

  /** A relation's edges as (src, dst) pairs, in its rows' order. */
  edgesOf(type: EdgeType | string): TypedEdges {
    const r = this.relation(type);
    const numDst = this.numNodes[r.type[2]];
    const offsets = r.graph.offsets(0, numDst + 1),
      cols = r.graph.columns(0, r.numEdges);
    const src = Int32Array.from(cols),
      dst = new Int32Array(r.numEdges);
    for (let v = 0; v < numDst; ++v) dst.fill(v, Number(offsets[v]), Number(offsets[v + 1]));
    return {src, dst};
  }

  /**
   * PyG's ToUndirected: each relation (a, r, b) between two types gains its reverse (b, rev_r, a); a
   * relation within one type gains the reverse of each edge in the same relation. The features and
   * labels are shared with this graph.
   */
  toUndirected(): HeteroGraph {
    const out: HeteroRelation[] = [];
    // Built natively from each relation's graph (no edge list in JavaScript: graphs of any size).
    const from = (r: HeteroRelation, which: 0 | 1 | 2) => NativeCsr.adopt(graphNative().graphRelationFrom(r.graph.handle(), which));
    try {
      for (const r of this.relations.values()) {
        const [a, rel, b] = r.type;
        if (a === b) {
          out.push({type: r.type, graph: from(r, 2), numEdges: 2 * r.numEdges});
        } else {
          out.push({type: r.type, graph: from(r, 0), numEdges: r.numEdges});
          const rev: EdgeType = [b, `rev_${rel}`, a];
          if (!this.relations.has(edgeTypeKey(rev))) out.push({type: rev, graph: from(r, 1), numEdges: r.numEdges});
        }
      }
      return HeteroGraph.fromRelations({...this.numNodes}, out, {
        features: {...this.features},
        ...(this.labels ? {labels: this.labels} : {}),
      });
    } catch (e) {
      for (const r of out) r.graph.free();
      throw e;
    }
  }

  /**
   * The graph as one homogeneous graph: type t's vertex v is vertex offsets[t] + v (types in
   * nodeTypes' order); `edgeType[k]` is the relation id (edgeTypes' order) of entry k of the graph's
   * rows. Row v lists the sources of v's incoming edges, as each relation's rows do.
   */
  toHomogeneous(): {graph: NativeCsr; offsets: Record<string, number>; numVertices: number; edgeTypes: EdgeType[]; edgeType: Int32Array} {
    const offsets: Record<string, number> = {};
    let n = 0;
    for (const t of this.nodeTypes) {
      offsets[t] = n;
      n += this.numNodes[t];
    }
    if (n > 2 ** 31 - 1) throw new RangeError(`HeteroGraph.toHomogeneous: ${n} vertices in all is past int32 ids`);
    const types = this.edgeTypes;
    const rowPtr = new Int32Array(n + 1);
    const parts = types.map((t) => this.edgesOf(t));
    types.forEach((t, i) => {
      for (const d of parts[i].dst) ++rowPtr[offsets[t[2]] + d + 1];
    });
    for (let v = 0; v < n; ++v) rowPtr[v + 1] += rowPtr[v];
    const at = rowPtr.slice(0, n),
      colIdx = new Int32Array(rowPtr[n]),
      edgeType = new Int32Array(rowPtr[n]);
    types.forEach((t, i) => {
      const {src, dst} = parts[i];
      for (let k = 0; k < src.length; ++k) {
        const slot = at[offsets[t[2]] + dst[k]]++;
        colIdx[slot] = offsets[t[0]] + src[k];
        edgeType[slot] = i;
      }
    });
    return {graph: NativeCsr.fromCsr(rowPtr, colIdx), offsets, numVertices: n, edgeTypes: types, edgeType};
  }

  /** Frees every relation's graph. */
  free(): void {
    for (const r of this.relations.values()) r.graph.free();
  }
}

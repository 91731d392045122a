// OGB-LSC's processed arrays (MAG240M's layout: the `mag240m_kddcup2021` folder) as a typed graph, read
// natively in place:
//   processed/<src>___<rel>___<dst>/edge_index.npy   [2, m] (or [m, 2]) int64 or int32: one relation each
//   processed/<type>/node_feat.npy                   [rows, dim] float16 / float32 / float64, mapped as read
//   processed/<type>/node_label.npy                  [rows] float (NaN: no label) or int: one type's classes
//   processed/<type>/node_year.npy                   [rows] int: the years the split is made from
// The counts and the split that OGB keeps in PyTorch pickles (meta.pt, split_dict.pt) are not read: a type's
// count is `numNodes[type]`, else the rows of its arrays, else its largest id + 1 (pass MAG240M's meta counts,
// 121,751,666 / 122,383,112 / 25,721, to keep vertices no edge names); the split is `split`, else made from the
// years as OGB-LSC makes it: labelled vertices before `validYear` train, labelled ones from it valid. Bad input is
// refused naming the file and the rule, and every size is checked before anything is built.
import * as fs from 'fs';
import * as path from 'path';

import {float16ToFloat32, readNpyHeader} from '../data/npy';
import {checkCapacity} from '../memory/capacity';
import {graphNative} from '../native/domains';
import {EdgeType, HeteroFeatures, HeteroGraph, HeteroRelation, parseEdgeTypeKey} from './hetero_graph';
import {edgeMatrixOf, NativeCsr} from './native_csr';
import {NativeFeatures} from './native_features';
import type {Split} from './split';

export interface LscArraysOptions {
  /** Vertex counts by type (MAG240M's meta.pt); a type not named takes its arrays' rows or its largest id + 1. */
  numNodes?: Record<string, number>;
  /** The split of the labelled type (vertex ids); default: made from its years. */
  split?: Split;
  /** Labelled vertices of this year or later are the validation set, earlier ones the training set. Default 2019. */
  validYear?: number;
}

const ROW_CHUNK = 1 << 20;

// The element types a vector is read from, by NumPy's dtype string (float16 is converted after the read).
const VECTOR_TYPES = {
  '<f2': Uint16Array,
  '<f4': Float32Array,
  '<f8': Float64Array,
  '<i2': Int16Array,
  '<i4': Int32Array,
  '<i8': BigInt64Array,
  '|i1': Int8Array,
  '|u1': Uint8Array,
} as const;

// A one-dimensional .npy of numbers, read a chunk at a time; `each(i, value)` sees every element in order.
function readVector(file: string, each: (i: number, v: number) => void): void {
  const h = readNpyHeader(file);
  const type = VECTOR_TYPES[h.descr as keyof typeof VECTOR_TYPES];
  if (type === undefined) throw new TypeError(`${file}: dtype '${h.descr}' is not a little-endian float or int`);
  if (h.fortran || h.shape.length !== 1) throw new RangeError(`${file}: shape (${h.shape.join(', ')}) is not one-dimensional`);
  const n = h.shape[0],
    width = type.BYTES_PER_ELEMENT;
  if (h.fileBytes !== h.dataStart + n * width)
    throw new RangeError(`${file}: ${n} values of ${width} bytes need ${h.dataStart + n * width} bytes, the file holds ${h.fileBytes}`);
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(ROW_CHUNK * width);
    for (let first = 0; first < n; first += ROW_CHUNK) {
      const count = Math.min(ROW_CHUNK, n - first);
      const got = fs.readSync(fd, buf, 0, count * width, h.dataStart + first * width);
      if (got !== count * width) throw new Error(`${file}: changed while read (short read at value ${first})`);
      // A view of the chunk in its own type (Buffer.alloc's memory starts its own ArrayBuffer: aligned).
      const view = new type(buf.buffer, 0, count);
      const values = view instanceof Uint16Array ? float16ToFloat32(view) : view;
      const at = values instanceof BigInt64Array ? (k: number) => Number(values[k]) : (k: number) => (values as ArrayLike<number>)[k];
      for (let k = 0; k < count; ++k) each(first + k, at(k));
    }
  } finally {
    fs.closeSync(fd);
  }
}

function rowsOf(file: string): number {
  return readNpyHeader(file).shape[0];
}

/** The typed graph of an OGB-LSC processed folder (MAG240M's layout; see the file comment). */
export function readLscArrays(folder: string, o: LscArraysOptions = {}): HeteroGraph {
  const root = fs.existsSync(path.join(folder, 'processed')) ? folder : path.join(folder, 'mag240m_kddcup2021');
  const processed = path.join(root, 'processed');
  if (!fs.existsSync(processed)) throw new Error(`readLscArrays: ${folder} holds no processed/ folder (nor mag240m_kddcup2021/processed/)`);
  const entries = fs.readdirSync(processed).filter((d) => fs.statSync(path.join(processed, d)).isDirectory());
  const relationDirs = entries.filter((d) => d.includes('___'));
  if (relationDirs.length === 0) throw new Error(`readLscArrays: ${processed} holds no <src>___<rel>___<dst> folder`);
  const edgeTypes: EdgeType[] = relationDirs.map((d) => parseEdgeTypeKey(d, `readLscArrays: ${path.join(processed, d)}`));
  const typeDirs = entries.filter((d) => !d.includes('___'));
  const types = [...new Set([...edgeTypes.flatMap((t) => [t[0], t[2]]), ...typeDirs])];
  const arrayFile = (t: string, name: string) => {
    const f = path.join(processed, t, name);
    return fs.existsSync(f) ? f : undefined;
  };
  // Each relation's matrix and largest ids, read before anything is built.
  const matrices = relationDirs.map((d, i) => {
    const file = path.join(processed, d, 'edge_index.npy');
    if (!fs.existsSync(file)) throw new Error(`readLscArrays: ${file}: missing`);
    const e = edgeMatrixOf(file, 'readLscArrays');
    const [maxSrc, maxDst] = graphNative().edgeMatrixMaxIds(file, e.offset, e.m, e.int64, e.pairsInRows);
    return {type: edgeTypes[i], file, e, maxSrc, maxDst};
  });
  const numNodes: Record<string, number> = {};
  for (const t of types) {
    const given = o.numNodes?.[t];
    const rows = ['node_feat.npy', 'node_label.npy', 'node_year.npy'].map((n) => arrayFile(t, n)).filter((f) => f !== undefined);
    const counts = rows.map((f) => ({f: f!, n: rowsOf(f!)}));
    for (const c of counts.slice(1))
      if (c.n !== counts[0].n) throw new RangeError(`readLscArrays: ${c.f} has ${c.n} rows, ${counts[0].f} ${counts[0].n}`);
    const largest = Math.max(-1, ...matrices.flatMap((m) => [m.type[0] === t ? m.maxSrc : -1, m.type[2] === t ? m.maxDst : -1]));
    const n = given ?? counts[0]?.n ?? largest + 1;
    if (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1)
      throw new RangeError(`readLscArrays: numNodes.${t} must be an integer in [0, 2^31), got ${n}`);
    for (const c of counts)
      if (c.n !== n) throw new RangeError(`readLscArrays: ${c.f} has ${c.n} rows; type '${t}' has ${n} vertices (numNodes)`);
    numNodes[t] = n;
  }
  for (const m of matrices) {
    const [s, , d] = m.type;
    if (m.maxSrc >= numNodes[s])
      throw new RangeError(`readLscArrays: ${m.file}: source id ${m.maxSrc} is not below the ${numNodes[s]} '${s}' vertices`);
    if (m.maxDst >= numNodes[d])
      throw new RangeError(`readLscArrays: ${m.file}: destination id ${m.maxDst} is not below the ${numNodes[d]} '${d}' vertices`);
  }
  // Every relation's graph (offsets, entries and the converted id columns) at once in host memory, checked first.
  const bytes = matrices.reduce((a, m) => a + (Math.max(numNodes[m.type[0]], numNodes[m.type[2]]) + 1) * 16 + m.e.m * 12, 0);
  checkCapacity(`readLscArrays (${matrices.length} relations)`, bytes, 'host');
  // Labels: the one type with node_label.npy.
  const labelled = types.filter((t) => arrayFile(t, 'node_label.npy'));
  if (labelled.length > 1) throw new RangeError(`readLscArrays: ${labelled.join(', ')} all have node_label.npy; one type is labelled`);
  let labels: HeteroGraph['labels'];
  if (labelled.length === 1) {
    const t = labelled[0];
    const file = arrayFile(t, 'node_label.npy')!;
    const values = new Int32Array(numNodes[t]);
    let classes = 0;
    readVector(file, (i, y) => {
      if (Number.isNaN(y)) values[i] = -1;
      else if (Number.isInteger(y) && y >= 0 && y < 2 ** 31) {
        values[i] = y;
        classes = Math.max(classes, y + 1);
      } else throw new RangeError(`${file}: value ${i} is ${y}, not a class id (a non-negative integer) or NaN`);
    });
    labels = {
      type: t,
      labels: values,
      numClasses: classes,
      split: o.split ?? yearSplit(arrayFile(t, 'node_year.npy'), values, o.validYear ?? 2019),
    };
  }
  const features: Record<string, HeteroFeatures> = {};
  for (const t of types) {
    const f = arrayFile(t, 'node_feat.npy');
    if (f) features[t] = NativeFeatures.fromNpy(f, numNodes[t]);
  }
  const relations: HeteroRelation[] = [];
  try {
    for (const m of matrices) {
      const n = Math.max(numNodes[m.type[0]], numNodes[m.type[2]]);
      const graph = NativeCsr.adopt(graphNative().graphRelationFromEdgeMatrix(m.file, m.e.offset, m.e.m, m.e.int64, m.e.pairsInRows, n));
      relations.push({type: m.type, graph, numEdges: m.e.m});
    }
    return HeteroGraph.fromRelations(numNodes, relations, {features, ...(labels ? {labels} : {})});
  } catch (e) {
    for (const r of relations) r.graph.free();
    throw e;
  }
}

// Labelled vertices before `validYear` train, from it valid (OGB-LSC's rule); none test (its labels are withheld).
function yearSplit(file: string | undefined, labels: Int32Array, validYear: number): Split | undefined {
  if (!file) return undefined;
  const train: number[] = [],
    val: number[] = [];
  readVector(file, (i, year) => {
    if (labels[i] >= 0) (year < validYear ? train : val).push(i);
  });
  return {train: Int32Array.from(train), val: Int32Array.from(val), test: new Int32Array(0)};
}

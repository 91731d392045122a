// Node-classification datasets from a folder: the ../shared/datasets layout
// (edges.tsv, vertex_value.tsv with class numbers or names, optional
// vertex_features.npy / .tsv and split/{train,valid,test}.txt), or the layout
// the ogb Python package leaves on disk for ogbn-* (raw/*.csv.gz and
// split/<name>/*.csv.gz), read streaming through zlib so features go
// straight into their table. Every error names the file and line (or byte).
import * as fs from 'fs';
import * as path from 'path';

import {readNpy} from '../data/npy';
import {readLines} from '../data/lines';
import {CsrGraph} from './csr';
import {EdgeList, parseVertexId, readEdgeList, vertexBound} from './edge_list';
import {Split} from './split';

export interface VertexFeatures {
  /** [numVertices, dim], row-major, float32. */
  values: Float32Array;
  dim: number;
  /** The file they came from and its element type there. */
  source: string;
  stored: 'float32' | 'float16' | 'float64';
}

export interface NodeClassificationData {
  name: string;
  /** Undirected: the largest connected component when the data has no fixed split, else every vertex. */
  graph: CsrGraph;
  /** Class of each vertex of `graph` (0..numClasses-1), -1 for a vertex without a label. */
  labels: Int32Array;
  numClasses: number;
  /** Each class's name as the data gives it (numbers as written), classes numbered in sorted order. */
  classNames: string[];
  /** Id in the original files of each vertex of `graph`. */
  originalIds: Int32Array;
  features?: VertexFeatures;
  /** A fixed split from the data (vertices of `graph`); without one, callers draw random splits. */
  split?: Split;
  /**
   * Without a fixed split only the largest connected component is kept (the literature's protocol: a
   * vertex cut off from every label cannot be classified from the graph): how many of the file's vertices
   * that is. Vertices outside it are in no split and get no prediction.
   */
  component?: {kept: number; of: number};
}

const MIN_VERTICES = 10;

/** Loads a dataset folder (see the file comment); `folder` names it in errors. */
export async function loadDataset(folder: string): Promise<NodeClassificationData> {
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new Error(`${folder}: not a dataset folder`);
  if (fs.existsSync(path.join(folder, 'raw', 'edge.csv.gz'))) return loadOgb(folder);
  return loadTsvFolder(folder);
}

// ---- labels ----

/** The labelled vertices and their labels as written, one entry per label (unlabelled vertices take no room). */
interface RawLabels {
  vertices: number[];
  values: string[];
}

/** Class ids per vertex (-1: unlabelled) from the labels given; numbers sort numerically, names as strings. */
function numberClasses(raw: RawLabels, numVertices: number): {labels: Int32Array; classNames: string[]} {
  const given = [...new Set(raw.values)];
  const numeric = given.every((s) => s.trim() !== '' && Number.isFinite(Number(s)));
  // Numbers are named as numbers ("1.0" and "1" are class "1").
  const nameOf = numeric ? (x: string) => String(Number(x)) : (x: string) => x;
  const names = [...new Set(given.map(nameOf))];
  names.sort(numeric ? (a, b) => Number(a) - Number(b) : (a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const id = new Map(names.map((n, i) => [n, i]));
  const labels = new Int32Array(numVertices).fill(-1);
  raw.vertices.forEach((v, i) => (labels[v] = id.get(nameOf(raw.values[i]))!));
  return {labels, classNames: names};
}

async function readLabels(file: string, numVertices: number): Promise<RawLabels> {
  const out: RawLabels = {vertices: [], values: []};
  const firstLine = new Int32Array(numVertices); // 0: no line yet
  for await (const {line, lineNo} of readLines(file)) {
    const t = line.trim();
    if (t.length === 0 || t.startsWith('#')) continue;
    const tab = t.search(/[\t,]| /);
    const idText = tab < 0 ? t : t.slice(0, tab);
    const v = parseVertexId(idText);
    if (!(v < numVertices)) throw new Error(`${file}:${lineNo}: vertex id "${idText}" is not in [0, ${numVertices})`);
    if (firstLine[v]) throw new Error(`${file}:${lineNo}: vertex ${v} has a second label line (the first is line ${firstLine[v]})`);
    firstLine[v] = lineNo;
    const value = tab < 0 ? '' : t.slice(tab + 1).trim();
    if (value === '') continue;
    out.vertices.push(v);
    out.values.push(value);
  }
  return out;
}

// ---- features ----

/** fields[first..first+dim) as numbers into row `row` of values; `at` (file:line) names a bad one. */
function storeRow(fields: string[], first: number, dim: number, values: Float32Array, row: number, at: string): void {
  for (let k = 0; k < dim; ++k) {
    const x = Number(fields[first + k]);
    if (!Number.isFinite(x)) throw new Error(`${at}: value ${k + 1} ("${fields[first + k]}") is not a finite number`);
    values[row * dim + k] = x;
  }
}

async function readFeatureTsv(file: string, numVertices: number): Promise<VertexFeatures> {
  let dim = -1;
  let values = new Float32Array(0);
  const seen = new Uint8Array(numVertices);
  let rows = 0;
  for await (const {line, lineNo} of readLines(file)) {
    const t = line.trim();
    if (t.length === 0 || t.startsWith('#')) continue;
    const f = t.split(/[\t, ]+/);
    const v = parseVertexId(f[0]);
    if (!(v < numVertices)) throw new Error(`${file}:${lineNo}: vertex id "${f[0]}" is not in [0, ${numVertices})`);
    if (dim < 0) {
      dim = f.length - 1;
      if (dim < 1) throw new Error(`${file}:${lineNo}: a vertex id and at least one value per line`);
      values = new Float32Array(numVertices * dim);
    }
    if (f.length - 1 !== dim) throw new Error(`${file}:${lineNo}: ${f.length - 1} values where the first row had ${dim}`);
    if (seen[v]) throw new Error(`${file}:${lineNo}: vertex ${v} has a second row`);
    seen[v] = 1;
    ++rows;
    storeRow(f, 1, dim, values, v, `${file}:${lineNo}`);
  }
  if (rows !== numVertices) throw new Error(`${file}: ${rows} rows of features for ${numVertices} vertices`);
  return {values, dim, source: file, stored: 'float32'};
}

function readFeatureNpy(file: string, numVertices: number): VertexFeatures {
  const a = readNpy(file);
  if (a.shape.length !== 2) throw new Error(`${file}: features must be [vertices, features], got shape (${a.shape.join(', ')})`);
  if (a.shape[0] !== numVertices) throw new Error(`${file}: ${a.shape[0]} rows of features for ${numVertices} vertices`);
  for (let i = 0; i < a.data.length; ++i) {
    if (!Number.isFinite(a.data[i]))
      throw new Error(`${file}: row ${Math.floor(i / a.shape[1])} holds a value that is not finite (${a.data[i]})`);
  }
  return {values: a.data, dim: a.shape[1], source: file, stored: a.stored};
}

// ---- splits ----

async function readIds(file: string, numVertices: number, labels: Int32Array): Promise<Int32Array> {
  const ids: number[] = [];
  for await (const {line, lineNo} of readLines(file)) {
    const t = line.trim();
    if (t.length === 0 || t.startsWith('#')) continue;
    const v = parseVertexId(t);
    if (!(v < numVertices)) throw new Error(`${file}:${lineNo}: vertex id "${t}" is not in [0, ${numVertices})`);
    if (labels[v] < 0) throw new Error(`${file}:${lineNo}: vertex ${v} has no label`);
    ids.push(v);
  }
  return Int32Array.from(ids);
}

async function readSplit(dir: string, names: [string, string, string], numVertices: number, labels: Int32Array): Promise<Split> {
  const [train, val, test] = await Promise.all(names.map((n) => readIds(path.join(dir, n), numVertices, labels)));
  const where = new Int8Array(numVertices);
  for (const [k, part] of [train, val, test].entries()) {
    for (const v of part) {
      if (where[v]) throw new Error(`${path.join(dir, names[k])}: vertex ${v} is also in ${names[where[v] - 1]}`);
      where[v] = k + 1;
    }
  }
  if (train.length === 0) throw new Error(`${path.join(dir, names[0])}: no training vertices`);
  return {train, val, test};
}

// ---- assembly ----

async function assemble(
  name: string,
  edges: EdgeList,
  raw: RawLabels,
  features: VertexFeatures | undefined,
  split: ((labels: Int32Array) => Promise<Split>) | undefined,
  where: string,
): Promise<NodeClassificationData> {
  const {labels: all, classNames} = numberClasses(raw, edges.numVertices);
  const full = CsrGraph.fromEdges(edges, {symmetric: true});
  if (split) {
    if (classNames.length < 2) throw new Error(`${where}: ${classNames.length} distinct label(s); nothing to classify`);
    const s = await split(all);
    const originalIds = Int32Array.from({length: full.numVertices}, (_, i) => i);
    return {name, graph: full, labels: all, numClasses: classNames.length, classNames, originalIds, features, split: s};
  }
  const {vertices, graph} = full.largestComponent();
  // Train, validation and test each need vertices, and accuracy needs two classes.
  let labelled = 0;
  for (const v of vertices) if (all[v] >= 0) ++labelled;
  if (graph.numVertices < MIN_VERTICES || graph.numEdges === 0 || labelled < MIN_VERTICES) {
    throw new Error(
      `${where}: the largest connected component has ${graph.numVertices} vertices (${labelled} labelled) and ${graph.numEdges} edges; ` +
        `node classification needs at least ${MIN_VERTICES} connected, labelled vertices to split into train, validation and test`,
    );
  }
  const labels = Int32Array.from(vertices, (v) => all[v]);
  const inComponent = new Set(labels);
  inComponent.delete(-1);
  if (inComponent.size < 2)
    throw new Error(`${where}: every labelled vertex of the largest component has the same label; nothing to classify`);
  let f = features;
  if (f) {
    const values = new Float32Array(vertices.length * f.dim);
    vertices.forEach((v, i) => values.set(f!.values.subarray(v * f!.dim, (v + 1) * f!.dim), i * f!.dim));
    f = {...f, values};
  }
  return {
    name,
    graph,
    labels,
    numClasses: classNames.length,
    classNames,
    originalIds: vertices,
    features: f,
    component: {kept: vertices.length, of: full.numVertices},
  };
}

async function loadTsvFolder(folder: string): Promise<NodeClassificationData> {
  const edgesPath = path.join(folder, 'edges.tsv');
  const labelsPath = path.join(folder, 'vertex_value.tsv');
  for (const p of [edgesPath, labelsPath]) {
    if (!fs.existsSync(p)) throw new Error(`${folder}: ${path.basename(p)} is missing (need edges.tsv and vertex_value.tsv)`);
  }
  const edges = readEdgeList(edgesPath);
  if (edges.src.length === 0)
    throw new Error(`${edgesPath}: no edges; node classification needs at least ${MIN_VERTICES} connected vertices`);
  const n = edges.numVertices;
  const raw = await readLabels(labelsPath, n);
  const npy = path.join(folder, 'vertex_features.npy'),
    tsv = path.join(folder, 'vertex_features.tsv');
  const features = fs.existsSync(npy) ? readFeatureNpy(npy, n) : fs.existsSync(tsv) ? await readFeatureTsv(tsv, n) : undefined;
  const splitDir = path.join(folder, 'split');
  const split = fs.existsSync(splitDir)
    ? (labels: Int32Array) => readSplit(splitDir, ['train.txt', 'valid.txt', 'test.txt'], n, labels)
    : undefined;
  return assemble(path.basename(path.resolve(folder)), edges, raw, features, split, folder);
}

// ---- OGB (ogbn-*) ----

async function readSingleNumber(file: string): Promise<number> {
  for await (const {line, lineNo} of readLines(file)) {
    const t = line.trim();
    if (t === '') continue;
    const v = Number(t.split(',')[0]);
    if (!Number.isSafeInteger(v) || v < 0) throw new Error(`${file}:${lineNo}: "${t}" is not a count`);
    return v;
  }
  throw new Error(`${file}: empty`);
}

/** a copied into an array twice as long (at most `cap`). */
function grow(a: Int32Array<ArrayBuffer>, cap: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(Math.min(cap, 2 * a.length));
  b.set(a);
  return b;
}

async function loadOgb(folder: string): Promise<NodeClassificationData> {
  const raw = path.join(folder, 'raw');
  const n = await readSingleNumber(path.join(raw, 'num-node-list.csv.gz'));
  const m = await readSingleNumber(path.join(raw, 'num-edge-list.csv.gz'));
  if (n > 2 ** 31 - 1) throw new Error(`${raw}/num-node-list.csv.gz: ${n} vertices is past int32 ids`);
  // The counts are the files' word: arrays grow with the edges actually read,
  // so a wrong count costs an error, not its allocation.
  if (m > 2 ** 32 - 1) throw new Error(`${raw}/num-edge-list.csv.gz: ${m} edges is past the 2^32 - 1 this loader holds`);
  if (n > vertexBound(m))
    throw new Error(`${raw}/num-node-list.csv.gz: ${n} vertices for ${m} edges is past the ${vertexBound(m)} allowed`);
  let src = new Int32Array(Math.min(m, 1 << 20)),
    dst = new Int32Array(src.length);
  let e = 0;
  const edgeFile = path.join(raw, 'edge.csv.gz');
  for await (const {line, lineNo} of readLines(edgeFile)) {
    if (line.trim() === '') continue;
    const comma = line.indexOf(',');
    const a = parseVertexId(line.slice(0, comma).trim()),
      b = parseVertexId(line.slice(comma + 1).trim());
    if (comma < 0 || !(a < n) || !(b < n)) {
      throw new Error(`${edgeFile}:${lineNo}: expected two vertex ids in [0, ${n}), got "${line}"`);
    }
    if (e >= m) throw new Error(`${edgeFile}:${lineNo}: more edges than num-edge-list.csv.gz's ${m}`);
    if (e === src.length) [src, dst] = [grow(src, m), grow(dst, m)];
    src[e] = a;
    dst[e++] = b;
  }
  if (e !== m) throw new Error(`${edgeFile}: ${e} edges, num-edge-list.csv.gz says ${m}`);
  const labelFile = path.join(raw, 'node-label.csv.gz');
  const labels: RawLabels = {vertices: [], values: []};
  let rows = 0;
  for await (const {line, lineNo} of readLines(labelFile)) {
    if (rows >= n) throw new Error(`${labelFile}:${lineNo}: more rows than the ${n} vertices`);
    const t = line.trim();
    // papers100M leaves most vertices unlabelled: "nan" (or an empty row).
    if (t !== '' && t.toLowerCase() !== 'nan') {
      if (!Number.isFinite(Number(t))) throw new Error(`${labelFile}:${lineNo}: label "${t}" is not a number`);
      labels.vertices.push(rows);
      labels.values.push(t);
    }
    ++rows;
  }
  if (rows !== n) throw new Error(`${labelFile}: ${rows} rows for ${n} vertices`);
  const featFile = path.join(raw, 'node-feat.csv.gz');
  let features: VertexFeatures | undefined;
  if (fs.existsSync(featFile)) {
    let dim = -1,
      r = 0;
    let values = new Float32Array(0);
    for await (const {line, lineNo} of readLines(featFile)) {
      const f = line.split(',');
      if (dim < 0) {
        dim = f.length;
        values = new Float32Array(n * dim); // one allocation: the rows go straight into the table
      }
      if (f.length !== dim) throw new Error(`${featFile}:${lineNo}: ${f.length} values where the first row had ${dim}`);
      if (r >= n) throw new Error(`${featFile}:${lineNo}: more rows than the ${n} vertices`);
      storeRow(f, 0, dim, values, r, `${featFile}:${lineNo}`);
      ++r;
    }
    if (r !== n) throw new Error(`${featFile}: ${r} rows of features for ${n} vertices`);
    features = {values, dim, source: featFile, stored: 'float32'};
  }
  const splitRoot = path.join(folder, 'split');
  const names = fs.existsSync(splitRoot) ? fs.readdirSync(splitRoot).filter((d) => fs.statSync(path.join(splitRoot, d)).isDirectory()) : [];
  if (names.length !== 1) throw new Error(`${splitRoot}: expected one split folder (time, sales_history, …), found ${names.length}`);
  const splitDir = path.join(splitRoot, names[0]);
  const edges: EdgeList = {numVertices: n, src, dst, directed: true};
  return assemble(
    path.basename(path.resolve(folder)),
    edges,
    labels,
    features,
    (l) => readSplit(splitDir, ['train.csv.gz', 'valid.csv.gz', 'test.csv.gz'], n, l),
    folder,
  );
}

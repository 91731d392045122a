// Node-classification datasets from a folder: the ../shared/datasets layout
// (edges.tsv or a NumPy edges.npy, vertex_value.tsv with class numbers or
// names, optional vertex_features.npy / .tsv and split/{train,valid,test}.txt),
// or the layout the ogb Python package leaves on disk for ogbn-* (raw/*.csv.gz
// and split/<name>/*.csv.gz). Edge lists, ids and numbers are parsed by native
// code as the files are read and inflated (src/data/text_table.ts), the graph
// is built natively, and what was loaded is kept in a binary cache that the
// next load maps instead (dataset_cache.ts). The result is handed over as
// JavaScript arrays, or with graph and features left native (any size).
// Every error names the file and line (or byte).
import * as fs from 'fs';
import * as path from 'path';

import {readLines} from '../data/lines';
import {isHeaderLine, readIdList, readTextTable} from './text_table';
import type {NativeGraph} from '../native/addon';
import {graphNative} from '../native/domains';
import {CsrGraph} from './csr';
import {readCache, throughCache, writeCache} from './dataset_cache';
import {parseVertexId, vertexBound} from './edge_list';
import {edgeFileGraph, edgeMatrixGraph, NativeCsr} from './native_csr';
import {NativeFeatures} from './native_features';
import type {LoadedParts, NativeNodeClassificationData, NodeClassificationData} from './node_data';
import {Split} from './split';

export type {NativeNodeClassificationData, NodeClassificationData, VertexFeatures} from './node_data';

export interface LoadDatasetOptions {
  /**
   * The binary cache: true keeps it in `<folder>/.wmcache/` when the dataset folder is yours (or root's)
   * and no one else may write in it, else in `$XDG_CACHE_HOME` or `~/.cache`, under
   * tfjs-backend-wholememory/datasets/; a string names the folder; false reads the sources every time.
   * A cache is used only where no other user can write (docs/robustness.md); a place that fails is
   * passed over with a warning. The default caches folders whose source files hold 64 MiB or more.
   */
  cache?: boolean | string;
  /** What the loader is doing: each file read, the graph built, the cache used, rebuilt (and why) or written. */
  onProgress?: (message: string) => void;
  /**
   * The form of the result (both come from the same loading and the same cache):
   * - 'arrays' (default): `graph` a CsrGraph (int32 offsets: below 2^31 CSR entries), `features.values` one Float32Array;
   * - 'native': `graph` a NativeCsr (int64 offsets) and `features` a NativeFeatures read a window of rows at a time
   *   from the mapped .npy file or cache, for a dataset of any size (ogbn-papers100M's 3.2 billion entries and
   *   111M x 128 features): nothing graph- or table-sized crosses into JavaScript. wm.nn.featureTable(data.features)
   *   puts the features in a table of any memory type.
   */
  into?: 'arrays' | 'native';
}

const MIN_VERTICES = 10;

/** Loads a dataset folder (see the file comment); `folder` names it in errors. */
export function loadDataset(folder: string, options?: LoadDatasetOptions & {into?: 'arrays'}): Promise<NodeClassificationData>;
export function loadDataset(folder: string, options: LoadDatasetOptions & {into: 'native'}): Promise<NativeNodeClassificationData>;
export async function loadDataset(
  folder: string,
  options: LoadDatasetOptions = {},
): Promise<NodeClassificationData | NativeNodeClassificationData> {
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new Error(`${folder}: not a dataset folder`);
  const into = options.into ?? 'arrays';
  if (into !== 'arrays' && into !== 'native') throw new RangeError(`loadDataset: into must be 'arrays' or 'native', got ${String(into)}`);
  const ogb = fs.existsSync(path.join(folder, 'raw', 'edge.csv.gz'));
  const say = options.onProgress ?? (() => {});
  const parts = await throughCache({
    what: 'loadDataset',
    folder,
    files: ogb ? ogbFiles(folder) : TSV_FILES,
    cache: options.cache,
    say,
    read: (dir, sources) => {
      const hit = readCache(dir, sources, folder);
      return 'parts' in hit ? {value: hit.parts} : hit;
    },
    parse: () => (ogb ? loadOgb(folder, say) : loadTsvFolder(folder, say)),
    write: (dir, sources, p) => writeCache(dir, sources, p, folder),
  });
  return handOver(parts, into, folder);
}

/** The dataset in the form asked for; the parts' graph is adopted or viewed and freed (the view keeps its pages). */
function handOver(parts: LoadedParts, into: 'arrays' | 'native', where: string): NodeClassificationData | NativeNodeClassificationData {
  if (into === 'native') return {...parts.vertices, graph: NativeCsr.adopt(parts.graph), features: parts.features};
  try {
    const graph = CsrGraph.viewNative(parts.graph, `${where} (load it with {into: 'native'})`);
    const f = parts.features;
    return {...parts.vertices, graph, features: f && {values: f.toArray(), dim: f.dim, source: f.source, stored: f.stored}};
  } finally {
    parts.graph.free();
  }
}

/** Files a TSV folder's load reads or would read (missing ones recorded too: adding one changes the data). */
const TSV_FILES = [
  'edges.tsv',
  'edges.npy',
  'vertex_value.tsv',
  'vertex_features.npy',
  'vertex_features.tsv',
  ...['train.txt', 'valid.txt', 'test.txt'].map((f) => path.join('split', f)),
];

function ogbFiles(folder: string): string[] {
  const raw = ['num-node-list.csv.gz', 'num-edge-list.csv.gz', 'edge.csv.gz', 'edge-feat.csv.gz', 'node-label.csv.gz', 'node-feat.csv.gz'];
  const splitRoot = path.join(folder, 'split');
  const names = fs.existsSync(splitRoot) ? fs.readdirSync(splitRoot).sort() : [];
  const split = names.flatMap((d) => ['train.csv.gz', 'valid.csv.gz', 'test.csv.gz'].map((f) => path.join('split', d, f)));
  return [...raw.map((f) => path.join('raw', f)), ...split];
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
  if (given.every((s) => s.trim() !== '' && Number.isFinite(Number(s)))) {
    // Numbers are named as numbers ("1.0" and "1" are class "1").
    const values = new Float64Array(numVertices).fill(NaN);
    raw.vertices.forEach((v, i) => (values[v] = Number(raw.values[i])));
    return numberNumericClasses(values);
  }
  const names = given.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const id = new Map(names.map((n, i) => [n, i]));
  const labels = new Int32Array(numVertices).fill(-1);
  raw.vertices.forEach((v, i) => (labels[v] = id.get(raw.values[i])!));
  return {labels, classNames: names};
}

/** Class ids from one number per vertex (NaN: unlabelled), classes in numeric order and named as numbers. */
function numberNumericClasses(values: Float64Array): {labels: Int32Array; classNames: string[]} {
  const distinct = [...new Set(values)].filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  const id = new Map(distinct.map((x, i) => [x, i]));
  const labels = new Int32Array(values.length);
  for (let v = 0; v < values.length; ++v) labels[v] = Number.isNaN(values[v]) ? -1 : id.get(values[v])!;
  return {labels, classNames: distinct.map(String)};
}

async function readLabels(file: string, numVertices: number): Promise<RawLabels> {
  const out: RawLabels = {vertices: [], values: []};
  const firstLine = new Int32Array(numVertices); // 0: no line yet
  for await (const {line, lineNo} of readLines(file)) {
    const t = line.trim();
    if (t.length === 0 || t.startsWith('#')) continue;
    if (lineNo === 1 && isHeaderLine(t)) continue; // `node<TAB>label`: the columns' names
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

/** The line of `file` holding its k-th row (rows: lines that are not blank, comments or a header), for messages. */
async function lineOfRow(file: string, k: number): Promise<number> {
  let row = -1;
  for await (const {line, lineNo} of readLines(file)) {
    const t = line.trim();
    if (t.length === 0 || t.startsWith('#') || t.startsWith('%') || (lineNo === 1 && isHeaderLine(t))) continue;
    if (++row === k) return lineNo;
  }
  return 0;
}

// ---- features ----

/**
 * A dataset folder's node features for its `numVertices` vertices: vertex_features.npy (float32, float16 or float64
 * rows in vertex order) or vertex_features.tsv (`vertex<TAB>values…`, a row per vertex); undefined where it has neither.
 */
export async function readVertexFeatures(folder: string, numVertices: number): Promise<NativeFeatures | undefined> {
  const npy = path.join(folder, 'vertex_features.npy'),
    tsv = path.join(folder, 'vertex_features.tsv');
  if (fs.existsSync(npy) && fs.existsSync(tsv)) throw new Error(`${folder}: both vertex_features.npy and vertex_features.tsv; keep one`);
  if (fs.existsSync(npy)) return NativeFeatures.fromNpy(npy, numVertices);
  return fs.existsSync(tsv) ? readFeatureTsv(tsv, numVertices) : undefined;
}

async function readFeatureTsv(file: string, numVertices: number): Promise<NativeFeatures> {
  const t = await readTextTable(file, {ids: 1, values: -1, idBound: numVertices, comments: true});
  const {rows, width: dim} = t.summary;
  const ids = t.ids(0).view() as Int32Array;
  const rowsRead = rows ? (t.values().view() as Float32Array) : new Float32Array(0);
  const values = new Float32Array(numVertices * dim);
  const seen = new Uint8Array(numVertices);
  for (let r = 0; r < rows; ++r) {
    const v = ids[r];
    if (seen[v]) throw new Error(`${file}:${await lineOfRow(file, r)}: vertex ${v} has a second row`);
    seen[v] = 1;
    values.set(rowsRead.subarray(r * dim, (r + 1) * dim), v * dim);
  }
  if (rows !== numVertices) throw new Error(`${file}: ${rows} rows of features for ${numVertices} vertices`);
  return NativeFeatures.fromArray(values, numVertices, dim, file, 'float32');
}

/** One row of numbers per vertex, in vertex order (OGB's node-feat.csv.gz), left in native memory. */
async function readFeatureRows(file: string, numVertices: number): Promise<NativeFeatures> {
  const t = await readTextTable(file, {values: -1});
  const {rows, width} = t.summary;
  if (rows !== numVertices) throw new Error(`${file}: ${rows} rows of features for ${numVertices} vertices`);
  return NativeFeatures.fromHostArray(t.values(), rows, width, file);
}

// ---- splits ----

async function readIds(file: string, numVertices: number, labels: Int32Array): Promise<Int32Array> {
  const ids = await readIdList(file, numVertices);
  for (let k = 0; k < ids.length; ++k)
    if (labels[ids[k]] < 0) throw new Error(`${file}:${await lineOfRow(file, k)}: vertex ${ids[k]} has no label`);
  return ids;
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

// ---- edges ----

/**
 * An edge file (text, or a NumPy edge matrix read in place) made into an undirected CSR in native memory;
 * n: the vertices, or from the file.
 */
async function readGraph(
  file: string,
  n: number | undefined,
  say: (m: string) => void,
  weights?: 'column' | Float32Array,
): Promise<{graph: NativeGraph; edges: number; weights?: Float32Array}> {
  const t0 = Date.now();
  const opts = {symmetric: true, numVertices: n, weights};
  const built: {graph: NativeGraph; edges: number; weights?: Float32Array} = file.endsWith('.npy')
    ? edgeMatrixGraph(file, opts)
    : await edgeFileGraph(file, opts);
  const {graph} = built;
  say(
    `read ${file} and built the graph: ${graph.numVertices} vertices, ${graph.numEdges} CSR entries ` +
      `(${((Date.now() - t0) / 1000).toFixed(1)} s)${built.weights ? ', weighted' : ''}`,
  );
  return built;
}

/** Whether the first edge line of a text edge list holds a number in a third field (its weight; other fields are warned of and skipped). */
async function hasWeightColumn(file: string): Promise<boolean> {
  for await (const {line} of readLines(file)) {
    const t = line.trim();
    if (t === '' || t.startsWith('#') || t.startsWith('%')) continue;
    const fields = t.split(/[\s,]+/);
    return fields.length >= 3 && fields[2] !== '' && Number.isFinite(Number(fields[2]));
  }
  return false;
}

// ---- assembly ----

async function assemble(
  name: string,
  native: NativeGraph,
  labelled: {labels: Int32Array; classNames: string[]},
  features: NativeFeatures | undefined,
  split: ((labels: Int32Array) => Promise<Split>) | undefined,
  where: string,
  edgeWeights?: Float32Array,
): Promise<LoadedParts> {
  const {labels: all, classNames} = labelled;
  const n = native.numVertices;
  if (split) {
    if (classNames.length < 2) throw new Error(`${where}: ${classNames.length} distinct label(s); nothing to classify`);
    const s = await split(all);
    const originalIds = Int32Array.from({length: n}, (_, i) => i);
    return {
      vertices: {name, labels: all, numClasses: classNames.length, classNames, originalIds, split: s, edgeWeights},
      graph: native,
      features,
    };
  }
  // The component is found over int32 offsets; a dataset past them comes with its split (as OGB's do).
  if (native.numEdges > 2 ** 31 - 1)
    throw new RangeError(
      `${where}: ${native.numEdges} CSR entries and no split/: without a split the loader keeps the largest connected ` +
        `component, which it finds over int32 offsets (at most 2^31 - 1 entries); give the dataset a split`,
    );
  const full = CsrGraph.viewNative(native, where);
  const {vertices, graph} = full.largestComponent();
  // Train, validation and test each need vertices, and accuracy needs two classes.
  let labelledCount = 0;
  for (const v of vertices) if (all[v] >= 0) ++labelledCount;
  if (graph.numVertices < MIN_VERTICES || graph.numEdges === 0 || labelledCount < MIN_VERTICES) {
    throw new Error(
      `${where}: the largest connected component has ${graph.numVertices} vertices (${labelledCount} labelled) and ${graph.numEdges} edges; ` +
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
    const every = f.toArray(),
      dim = f.dim;
    const values = new Float32Array(vertices.length * dim);
    vertices.forEach((v, i) => values.set(every.subarray(v * dim, (v + 1) * dim), i * dim));
    f = NativeFeatures.fromArray(values, vertices.length, dim, f.source, f.stored);
  }
  // A component's rows are whole rows of the full graph, in order: their weights are too.
  let weights: Float32Array | undefined;
  if (edgeWeights) {
    weights = new Float32Array(graph.numEdges);
    let at = 0;
    for (const v of vertices) {
      const row = edgeWeights.subarray(full.rowPtr[v], full.rowPtr[v + 1]);
      weights.set(row, at);
      at += row.length;
    }
  }
  const component = graphNative().graphFromCsr(graph.rowPtr, graph.colIdx);
  native.free();
  return {
    vertices: {
      name,
      labels,
      numClasses: classNames.length,
      classNames,
      originalIds: vertices,
      component: {kept: vertices.length, of: n},
      edgeWeights: weights,
    },
    graph: component,
    features: f,
  };
}

async function loadTsvFolder(folder: string, say: (m: string) => void): Promise<LoadedParts> {
  const [tsv, npy] = ['edges.tsv', 'edges.npy'].map((f) => path.join(folder, f));
  if (fs.existsSync(tsv) && fs.existsSync(npy)) throw new Error(`${folder}: both edges.tsv and edges.npy; keep one`);
  const edgesPath = fs.existsSync(npy) ? npy : tsv;
  const labelsPath = path.join(folder, 'vertex_value.tsv');
  for (const p of [edgesPath, labelsPath]) {
    if (!fs.existsSync(p)) throw new Error(`${folder}: ${path.basename(p)} is missing (need edges.tsv or edges.npy, and vertex_value.tsv)`);
  }
  const weighted = edgesPath === tsv && (await hasWeightColumn(tsv));
  const {graph, edges, weights} = await readGraph(edgesPath, undefined, say, weighted ? 'column' : undefined);
  try {
    if (edges === 0) throw new Error(`${edgesPath}: no edges; node classification needs at least ${MIN_VERTICES} connected vertices`);
    const n = graph.numVertices;
    const raw = await readLabels(labelsPath, n);
    const features = await readVertexFeatures(folder, n);
    const splitDir = path.join(folder, 'split');
    const split = fs.existsSync(splitDir)
      ? (labels: Int32Array) => readSplit(splitDir, ['train.txt', 'valid.txt', 'test.txt'], n, labels)
      : undefined;
    return await assemble(path.basename(path.resolve(folder)), graph, numberClasses(raw, n), features, split, folder, weights);
  } catch (e) {
    graph.free();
    throw e;
  }
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

async function loadOgb(folder: string, say: (m: string) => void): Promise<LoadedParts> {
  const raw = path.join(folder, 'raw');
  const n = await readSingleNumber(path.join(raw, 'num-node-list.csv.gz'));
  const m = await readSingleNumber(path.join(raw, 'num-edge-list.csv.gz'));
  if (n > 2 ** 31 - 1) throw new Error(`${raw}/num-node-list.csv.gz: ${n} vertices is past int32 ids`);
  if (n > vertexBound(m))
    throw new Error(`${raw}/num-node-list.csv.gz: ${n} vertices for ${m} edges is past the ${vertexBound(m)} allowed`);
  const splitRoot = path.join(folder, 'split');
  const names = fs.existsSync(splitRoot) ? fs.readdirSync(splitRoot).filter((d) => fs.statSync(path.join(splitRoot, d)).isDirectory()) : [];
  if (names.length !== 1) throw new Error(`${splitRoot}: expected one split folder (time, sales_history, …), found ${names.length}`);
  const splitDir = path.join(splitRoot, names[0]);
  const edgeFile = path.join(raw, 'edge.csv.gz'),
    labelFile = path.join(raw, 'node-label.csv.gz'),
    featFile = path.join(raw, 'node-feat.csv.gz'),
    edgeFeatFile = path.join(raw, 'edge-feat.csv.gz');
  // One number per edge is its weight; wider edge features are not read, and that is said.
  let edgeWeights: Float32Array | undefined;
  if (fs.existsSync(edgeFeatFile)) {
    const t = await readTextTable(edgeFeatFile, {values: -1});
    if (t.summary.rows !== m) throw new Error(`${edgeFeatFile}: ${t.summary.rows} rows for ${m} edges`);
    if (t.summary.width === 1) edgeWeights = t.values().view() as Float32Array;
    else
      process.emitWarning(`${edgeFeatFile}: ${t.summary.width} features per edge are not read (one per edge is read as its weight)`, {
        code: 'WM_EDGE_FIELDS_IGNORED',
      });
  }
  // The labels are read while the edges are; the features after the graph is built, so the edge
  // columns are freed before the feature table is made (the peak stays near what is kept).
  const [{graph, edges, weights}, labelValues] = await Promise.all([
    readGraph(edgeFile, n, say, edgeWeights),
    readTextTable(labelFile, {values: 1, doubles: true, nanValues: true, blankRows: true}),
  ]);
  try {
    if (edges !== m) throw new Error(`${edgeFile}: ${edges} edges, num-edge-list.csv.gz says ${m}`);
    if (labelValues.summary.rows !== n) throw new Error(`${labelFile}: ${labelValues.summary.rows} rows for ${n} vertices`);
    const labelled = numberNumericClasses(labelValues.values().view() as Float64Array);
    let features: NativeFeatures | undefined;
    if (fs.existsSync(featFile)) {
      const t = Date.now();
      features = await readFeatureRows(featFile, n);
      say(`read ${n} rows of ${features.dim} features from ${featFile} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    }
    return await assemble(
      path.basename(path.resolve(folder)),
      graph,
      labelled,
      features,
      (l) => readSplit(splitDir, ['train.csv.gz', 'valid.csv.gz', 'test.csv.gz'], n, l),
      folder,
      weights,
    );
  } catch (e) {
    graph.free();
    throw e;
  }
}

// OGB's graph property layout (ogbg-molhiv, ogbg-ppa, ...), parsed natively:
//   raw/num-node-list.csv.gz   one vertex count per graph
//   raw/num-edge-list.csv.gz   one edge count per graph
//   raw/edge.csv.gz            one `u,v` a line, ids local to their graph, graph after graph
//   raw/node-feat.csv.gz       optional: rows of numbers, one per vertex, graph after graph
//   raw/edge-feat.csv.gz       optional: rows of numbers, one per edge (what gineConv reads)
//   raw/graph-label.csv.gz     one class id per graph (a single task), or one value (a regression: ogbg-molesol's,
//                              read so where a label is not a class id, or when asked)
//   split/<name>/{train,valid,test}.csv.gz   graph indices
// Bad input is refused naming the file, the line and the rule. The graphs are kept in the binary cache (graph_cache.ts).
import * as fs from 'fs';
import * as path from 'path';

import {GraphDataset, graphsFromColumns} from './graph_batch';
import {throughGraphCache} from './graph_cache';
import type {Split} from './split';
import {readIdList, readTextTable} from './text_table';

async function counts(file: string, what: string): Promise<Int32Array> {
  if (!fs.existsSync(file)) throw new Error(`${file}: missing`);
  const t = await readTextTable(file, {values: 1, doubles: true});
  const v = t.values().view() as Float64Array;
  return Int32Array.from(v, (x, i) => {
    if (!Number.isInteger(x) || x < 0 || x > 2 ** 31 - 1) throw new Error(`${file}:${i + 1}: ${what} ${x} is not a non-negative integer`);
    return x;
  });
}

// An optional file of feature rows, one per vertex (or edge) the counts give: none where the file is absent.
async function featureRows(file: string, rows: number, of: string): Promise<{values?: Float32Array; dim: number}> {
  if (!fs.existsSync(file)) return {dim: 0};
  const f = await readTextTable(file, {values: -1});
  if (f.summary.rows !== rows) throw new Error(`${file}: ${f.summary.rows} rows of features for the ${rows} ${of} counts`);
  return {values: Float32Array.from(f.values().view() as Float32Array), dim: f.summary.width};
}

/** The graphs of a folder in OGB's graph property layout (see the file comment). */
export async function readOgbGraphs(
  folder: string,
  name = path.basename(path.resolve(folder)),
  o: {regression?: boolean; cache?: boolean | string; onProgress?: (line: string) => void} = {},
): Promise<GraphDataset> {
  const inFolder = (dir: string) =>
    fs.existsSync(path.join(folder, dir)) ? fs.readdirSync(path.join(folder, dir)).map((f) => path.join(dir, f)) : [];
  const splits = inFolder('split').flatMap((d) => (fs.statSync(path.join(folder, d)).isDirectory() ? inFolder(d) : []));
  return throughGraphCache({
    what: 'readOgbGraphs',
    folder,
    files: [...inFolder('raw'), ...splits].filter((f) => fs.statSync(path.join(folder, f)).isFile()).sort(),
    source: path.resolve(folder),
    options: {reader: 'ogbg', name, regression: o.regression === true},
    cache: o.cache,
    onProgress: o.onProgress,
    parse: () => parseOgbGraphs(folder, name, o),
  });
}

async function parseOgbGraphs(folder: string, name: string, o: {regression?: boolean}): Promise<GraphDataset> {
  const raw = path.join(folder, 'raw');
  const nodeFile = path.join(raw, 'num-node-list.csv.gz'),
    edgeCountFile = path.join(raw, 'num-edge-list.csv.gz');
  const [nodes, edgeCounts] = [await counts(nodeFile, 'a vertex count'), await counts(edgeCountFile, 'an edge count')];
  if (nodes.length !== edgeCounts.length)
    throw new Error(`${edgeCountFile}: ${edgeCounts.length} edge counts for the ${nodes.length} graphs of num-node-list.csv.gz`);
  const maxNodes = nodes.reduce((a, n) => Math.max(a, n), 0);
  const edgeFile = path.join(raw, 'edge.csv.gz');
  if (!fs.existsSync(edgeFile)) throw new Error(`${edgeFile}: missing`);
  const e = await readTextTable(edgeFile, {ids: 2, idBound: Math.max(1, maxNodes)});
  const src = e.ids(0).view() as Int32Array,
    dst = e.ids(1).view() as Int32Array;
  const totalEdges = edgeCounts.reduce((a, m) => a + m, 0);
  if (src.length !== totalEdges) throw new Error(`${edgeFile}: ${src.length} edges, num-edge-list.csv.gz sums to ${totalEdges}`);
  const totalNodes = nodes.reduce((a, n) => a + n, 0);
  const {values: features, dim} = await featureRows(path.join(raw, 'node-feat.csv.gz'), totalNodes, 'vertices num-node-list.csv.gz');
  const {values: edgeFeatures, dim: edgeDim} = await featureRows(
    path.join(raw, 'edge-feat.csv.gz'),
    totalEdges,
    'edges num-edge-list.csv.gz',
  );
  const labelFile = path.join(raw, 'graph-label.csv.gz');
  if (!fs.existsSync(labelFile)) throw new Error(`${labelFile}: missing`);
  const l = await readTextTable(labelFile, {values: -1, doubles: true});
  if (l.summary.width !== 1)
    throw new Error(`${labelFile}: ${l.summary.width} labels a graph; one task (a class id or a value per graph) is read`);
  if (l.summary.rows !== nodes.length) throw new Error(`${labelFile}: ${l.summary.rows} labels for ${nodes.length} graphs`);
  const labelValues = l.values().view() as Float64Array;
  // Values, not class ids, when asked or when a label is not a non-negative integer.
  const regression = o.regression === true || labelValues.some((y) => !(Number.isInteger(y) && y >= 0));
  let numClasses = 0;
  labelValues.forEach((y, g) => {
    if (!regression) numClasses = Math.max(numClasses, y + 1);
    else if (!Number.isFinite(y)) throw new Error(`${labelFile}:${g + 1}: label ${y} is not a finite number`);
  });
  const graphs = graphsFromColumns(
    {vertices: nodes, edges: edgeCounts, src, dst, features, dim, edgeFeatures, edgeDim, labels: labelValues},
    (g, k, n) => `${edgeFile}:${k + 1}: edge ${src[k]},${dst[k]} of graph ${g} names a vertex past its ${n} (ids are local to each graph)`,
  );
  const splitRoot = path.join(folder, 'split');
  let split: Split | undefined;
  if (fs.existsSync(splitRoot)) {
    const names = fs.readdirSync(splitRoot).filter((d) => fs.statSync(path.join(splitRoot, d)).isDirectory());
    if (names.length !== 1) throw new Error(`${splitRoot}: expected one split folder (scaffold, random, …), found ${names.length}`);
    const dir = path.join(splitRoot, names[0]);
    const [train, val, test] = await Promise.all(
      ['train.csv.gz', 'valid.csv.gz', 'test.csv.gz'].map((f) =>
        readIdList(path.join(dir, f), nodes.length).then((a) => Int32Array.from(a)),
      ),
    );
    split = {train, val, test};
  }
  return {name, graphs, numClasses: regression ? 1 : Math.max(numClasses, 2), dim, edgeDim, split, regression};
}

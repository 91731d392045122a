// Graph classification data in the TU format (TUDataset: MUTAG, PROTEINS, NCI1, ...): a folder of
// `<NAME>_A.txt` (one edge `i, j` a line over every graph's vertices, ids from 1), `<NAME>_graph_indicator.txt`
// (vertex i's graph, from 1, graphs in order), `<NAME>_graph_labels.txt` (a label per graph), and optionally
// `<NAME>_node_labels.txt` (a label per vertex, one-hot as features) and `<NAME>_node_attributes.txt` (numbers
// per vertex, before the one-hot labels as PyG's use_node_attr puts them). Each file may be gzipped. A line
// that breaks the format is refused naming the file, the line and the rule. The graphs are kept in the binary
// cache (graph_cache.ts).
import * as fs from 'fs';
import * as path from 'path';

import {readLines} from '../data/lines';
import type {GraphDataset, SmallGraph} from './graph_batch';
import {throughGraphCache} from './graph_cache';

/** A TU folder's graphs: `classLabels` holds the file's label of each class id; `dim` is the node attributes, then one column per node label. */
export type TuDataset = GraphDataset & {classLabels: number[]};

async function numberLines(file: string, perLine: number | 'any', what: string): Promise<number[][]> {
  const rows: number[][] = [];
  for await (const {line, lineNo} of readLines(file)) {
    if (line.trim() === '') continue;
    const fields = line.split(',').map((f) => f.trim());
    const values = fields.map(Number);
    if (fields.some((f) => f === '') || values.some((v) => !Number.isFinite(v)))
      throw new RangeError(`${file}:${lineNo}: ${what} must be numbers separated by commas, got "${line.slice(0, 200)}"`);
    if (perLine !== 'any' && values.length !== perLine)
      throw new RangeError(`${file}:${lineNo}: ${what} takes ${perLine} number(s) a line, got ${values.length}`);
    rows.push(values);
  }
  return rows;
}

/**
 * The TU dataset in `folder` (its name: the folder's, or `name`), through the binary cache (`cache`, `onProgress` as
 * loadDataset's: by default for sources of 64 MiB or more).
 */
export async function readTuDataset(
  folder: string,
  name = path.basename(path.resolve(folder)),
  o: {cache?: boolean | string; onProgress?: (line: string) => void} = {},
): Promise<TuDataset> {
  const files = fs
    .readdirSync(folder)
    .filter((f) => f.startsWith(`${name}_`) && /\.txt(\.gz)?$/.test(f))
    .sort();
  const d = await throughGraphCache({
    what: 'readTuDataset',
    folder,
    files,
    source: `${path.resolve(folder)}-${name}`,
    options: {reader: 'tu', name},
    cache: o.cache,
    onProgress: o.onProgress,
    parse: () => parseTuDataset(folder, name),
  });
  if (!d.classLabels) throw new Error(`readTuDataset: ${folder}'s cache holds no class labels`);
  return {...d, classLabels: d.classLabels};
}

async function parseTuDataset(folder: string, name: string): Promise<TuDataset> {
  const find = (part: string, required: boolean) => {
    const f = [path.join(folder, `${name}_${part}.txt`), path.join(folder, `${name}_${part}.txt.gz`)].find((p) => fs.existsSync(p));
    if (!f && required) throw new Error(`readTuDataset: ${folder} has no ${name}_${part}.txt`);
    return f;
  };
  const indicatorFile = find('graph_indicator', true)!;
  const indicator = (await numberLines(indicatorFile, 1, "a vertex's graph")).map((r) => r[0]);
  const n = indicator.length;
  let numGraphs = 0;
  for (let v = 0; v < n; ++v) {
    const g = indicator[v];
    if (!Number.isInteger(g) || g < 1) throw new RangeError(`${indicatorFile}:${v + 1}: graph ids are integers from 1, got ${g}`);
    if (g < numGraphs || g > numGraphs + 1)
      throw new RangeError(
        `${indicatorFile}:${v + 1}: graphs must come in order, each after the one before (graph ${g} after ${numGraphs})`,
      );
    numGraphs = g;
  }
  const labelsFile = find('graph_labels', true)!;
  const labels = (await numberLines(labelsFile, 1, "a graph's label")).map((r) => r[0]);
  if (labels.length !== numGraphs)
    throw new RangeError(`${labelsFile}: ${labels.length} labels for the ${numGraphs} graphs ${path.basename(indicatorFile)} names`);
  // Graph k's vertices (0-based, over all graphs) are [start[k], start[k + 1]): the graphs come in order, none empty.
  const start = new Int32Array(numGraphs + 1);
  start[numGraphs] = n;
  for (let v = n - 1; v >= 0; --v) start[indicator[v] - 1] = v;
  const edgesFile = find('A', true)!;
  const src: number[][] = Array.from({length: numGraphs}, () => []),
    dst: number[][] = Array.from({length: numGraphs}, () => []);
  let lineNo = 0;
  for (const [i, j] of await numberLines(edgesFile, 2, 'an edge')) {
    ++lineNo;
    for (const v of [i, j])
      if (!Number.isInteger(v) || v < 1 || v > n)
        throw new RangeError(`${edgesFile}: edge ${lineNo}: vertex ${v} is not one of the ${n} vertices (ids from 1)`);
    const g = indicator[i - 1];
    if (indicator[j - 1] !== g)
      throw new RangeError(`${edgesFile}: edge ${lineNo} (${i}, ${j}) joins graph ${g} to graph ${indicator[j - 1]}`);
    src[g - 1].push(i - 1 - start[g - 1]);
    dst[g - 1].push(j - 1 - start[g - 1]);
  }
  const attrFile = find('node_attributes', false);
  const attrs = attrFile ? await numberLines(attrFile, 'any', "a vertex's attributes") : undefined;
  if (attrs && attrs.length !== n) throw new RangeError(`${attrFile}: ${attrs.length} lines for ${n} vertices`);
  const attrDim = attrs ? (attrs[0]?.length ?? 0) : 0;
  attrs?.forEach((r, v) => {
    if (r.length !== attrDim) throw new RangeError(`${attrFile}:${v + 1}: ${r.length} attributes, the first vertex has ${attrDim}`);
  });
  const nodeLabelFile = find('node_labels', false);
  const nodeLabels = nodeLabelFile ? (await numberLines(nodeLabelFile, 1, "a vertex's label")).map((r) => r[0]) : undefined;
  if (nodeLabels && nodeLabels.length !== n) throw new RangeError(`${nodeLabelFile}: ${nodeLabels.length} lines for ${n} vertices`);
  const nodeClasses = nodeLabels ? [...new Set(nodeLabels)].sort((a, b) => a - b) : [];
  const nodeClass = new Map(nodeClasses.map((l, k) => [l, k]));
  const dim = attrDim + nodeClasses.length;
  const classLabels = [...new Set(labels)].sort((a, b) => a - b);
  const classOf = new Map(classLabels.map((l, k) => [l, k]));
  const graphs: SmallGraph[] = labels.map((label, g) => {
    const base = start[g],
      count = start[g + 1] - base;
    const features = new Float32Array(count * dim);
    for (let k = 0; k < count; ++k) {
      if (attrs) features.set(attrs[base + k], k * dim);
      if (nodeLabels) features[k * dim + attrDim + nodeClass.get(nodeLabels[base + k])!] = 1;
    }
    return {
      numVertices: count,
      src: Int32Array.from(src[g]),
      dst: Int32Array.from(dst[g]),
      ...(dim ? {features} : {}),
      label: classOf.get(label)!,
    };
  });
  return {name, graphs, numClasses: classLabels.length, classLabels, dim, edgeDim: 0, regression: false};
}

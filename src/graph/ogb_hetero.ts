// OGB's heterogeneous layout as ogbn-mag ships it, parsed natively (text columns read a chunk at a time):
//   raw/num-node-dict.csv.gz          a line of type names, a line of their counts
//   raw/triplet-type-list.csv.gz      one `source,relation,destination` a line
//   raw/relations/<s>___<r>___<d>/edge.csv.gz and num-edge-list.csv.gz
//   raw/node-feat/<type>/node-feat.csv.gz      rows of numbers, one per vertex of the type
//   raw/node-label/<type>/node-label.csv.gz    one class per vertex of the labelled type
//   split/<name>/<type>/{train,valid,test}.csv.gz
// Bad input is refused naming the file, the line and the rule. What was read is kept in the binary cache
// (hetero_cache.ts) and mapped back by the next read while the sources are unchanged.
import * as fs from 'fs';
import * as path from 'path';

import {readLines} from '../data/lines';
import {throughCache} from './dataset_cache';
import {heteroSourceFiles, readHeteroCache, writeHeteroCache} from './hetero_cache';
import {EdgeType, edgeTypeKey, HeteroFeatures, HeteroGraph, HeteroLabels, TypedEdges} from './hetero_graph';
import type {Split} from './split';
import {readIdList, readTextTable} from './text_table';

async function csvLines(file: string): Promise<{fields: string[]; lineNo: number}[]> {
  if (!fs.existsSync(file)) throw new Error(`${file}: missing`);
  const out: {fields: string[]; lineNo: number}[] = [];
  for await (const {line, lineNo} of readLines(file))
    if (line.trim() !== '') out.push({fields: line.split(',').map((f) => f.trim()), lineNo});
  return out;
}

async function readCounts(file: string): Promise<Record<string, number>> {
  const lines = await csvLines(file);
  if (lines.length !== 2) throw new Error(`${file}: a line of type names and a line of counts, got ${lines.length} lines`);
  const [names, counts] = lines;
  if (names.fields.length !== counts.fields.length)
    throw new Error(`${file}:${counts.lineNo}: ${counts.fields.length} counts for ${names.fields.length} type names`);
  const out: Record<string, number> = {};
  names.fields.forEach((name, i) => {
    const n = Number(counts.fields[i]);
    if (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1)
      throw new Error(`${file}:${counts.lineNo}: the count of '${name}' is "${counts.fields[i]}", not an integer in [0, 2^31)`);
    out[name] = n;
  });
  return out;
}

async function readCount(file: string): Promise<number> {
  const lines = await csvLines(file);
  const n = Number(lines[0]?.fields[0]);
  if (lines.length !== 1 || !Number.isSafeInteger(n) || n < 0) throw new Error(`${file}: one count expected`);
  return n;
}

async function readRelation(raw: string, type: EdgeType, numNodes: Record<string, number>): Promise<TypedEdges> {
  const dir = path.join(raw, 'relations', edgeTypeKey(type));
  const file = path.join(dir, 'edge.csv.gz');
  if (!fs.existsSync(file)) throw new Error(`${file}: missing (triplet-type-list.csv.gz lists ${edgeTypeKey(type)})`);
  const [ns, nd] = [numNodes[type[0]], numNodes[type[2]]];
  const t = await readTextTable(file, {ids: 2, idBound: Math.max(ns, nd, 1)});
  const src = t.ids(0).view() as Int32Array,
    dst = t.ids(1).view() as Int32Array;
  for (const [ids, bound, end] of [
    [src, ns, type[0]],
    [dst, nd, type[2]],
  ] as const) {
    for (let i = 0; i < ids.length; ++i)
      if (ids[i] >= bound) throw new Error(`${file}:${i + 1}: ${end} id ${ids[i]} is past the ${bound} vertices of type '${end}'`);
  }
  const countFile = path.join(dir, 'num-edge-list.csv.gz');
  if (fs.existsSync(countFile)) {
    const m = await readCount(countFile);
    if (m !== src.length) throw new Error(`${file}: ${src.length} edges, num-edge-list.csv.gz says ${m}`);
  }
  return {src, dst};
}

async function readFeatures(raw: string, numNodes: Record<string, number>): Promise<Record<string, HeteroFeatures>> {
  const root = path.join(raw, 'node-feat');
  const out: Record<string, HeteroFeatures> = {};
  if (!fs.existsSync(root)) return out;
  for (const type of fs.readdirSync(root)) {
    const file = path.join(root, type, 'node-feat.csv.gz');
    if (!fs.existsSync(file)) continue;
    if (!(type in numNodes)) throw new Error(`${file}: vertex type '${type}' is not in num-node-dict.csv.gz`);
    const t = await readTextTable(file, {values: -1});
    if (t.summary.rows !== numNodes[type])
      throw new Error(`${file}: ${t.summary.rows} rows of features for ${numNodes[type]} vertices of '${type}'`);
    out[type] = {values: Float32Array.from(t.values().view() as Float32Array), dim: t.summary.width};
  }
  return out;
}

async function readLabels(raw: string, numNodes: Record<string, number>): Promise<HeteroLabels | undefined> {
  const root = path.join(raw, 'node-label');
  if (!fs.existsSync(root)) return undefined;
  const types = fs.readdirSync(root).filter((t) => fs.existsSync(path.join(root, t, 'node-label.csv.gz')));
  if (types.length === 0) return undefined;
  if (types.length > 1) throw new Error(`${root}: labels on ${types.length} types (${types.join(', ')}); one labelled type is read`);
  const type = types[0];
  const file = path.join(root, type, 'node-label.csv.gz');
  if (!(type in numNodes)) throw new Error(`${file}: vertex type '${type}' is not in num-node-dict.csv.gz`);
  const t = await readTextTable(file, {values: 1, doubles: true, nanValues: true, blankRows: true});
  if (t.summary.rows !== numNodes[type]) throw new Error(`${file}: ${t.summary.rows} labels for ${numNodes[type]} vertices of '${type}'`);
  const values = t.values().view() as Float64Array;
  const labels = new Int32Array(values.length);
  let numClasses = 0;
  for (let v = 0; v < values.length; ++v) {
    const x = values[v];
    if (Number.isNaN(x)) labels[v] = -1;
    else if (!Number.isInteger(x) || x < 0 || x > 2 ** 31 - 2)
      throw new Error(`${file}:${v + 1}: label ${x} is not a class id (a non-negative integer)`);
    else numClasses = Math.max(numClasses, (labels[v] = x) + 1);
  }
  return {type, labels, numClasses};
}

async function readSplit(folder: string, labels: HeteroLabels | undefined, numNodes: Record<string, number>): Promise<Split | undefined> {
  const root = path.join(folder, 'split');
  if (!labels || !fs.existsSync(root)) return undefined;
  const names = fs.readdirSync(root).filter((d) => fs.statSync(path.join(root, d)).isDirectory());
  if (names.length !== 1) throw new Error(`${root}: expected one split folder (time, random, …), found ${names.length}`);
  const dir = path.join(root, names[0], labels.type);
  if (!fs.existsSync(dir)) throw new Error(`${dir}: missing (the split of the labelled type '${labels.type}')`);
  const [train, val, test] = await Promise.all(
    ['train.csv.gz', 'valid.csv.gz', 'test.csv.gz'].map((f) =>
      readIdList(path.join(dir, f), numNodes[labels.type]).then((a) => Int32Array.from(a)),
    ),
  );
  return {train, val, test};
}

export interface ReadOgbHeteroOptions {
  /**
   * The binary cache, as loadDataset's: true keeps it in `<folder>/.wmcache/` when the folder is yours (or
   * root's) and no one else may write in it, else in the user's cache; a string names the place; false
   * never caches. Default: folders whose source files hold 64 MiB or more.
   */
  cache?: boolean | string;
  /** What the reader is doing: the cache read, or not used (and why), or written. */
  onProgress?: (line: string) => void;
}

/**
 * A typed graph from a folder in OGB's heterogeneous layout (ogbn-mag's): every relation the triplet list
 * names, the features of each type that has them, the labels and split of the labelled type.
 */
export async function readOgbHetero(folder: string, options: ReadOgbHeteroOptions = {}): Promise<HeteroGraph> {
  return throughCache({
    what: 'readOgbHetero',
    folder,
    files: heteroSourceFiles(folder),
    cache: options.cache,
    say: options.onProgress ?? (() => {}),
    read: readHeteroCache,
    parse: () => parseOgbHetero(folder),
    write: writeHeteroCache,
  });
}

async function parseOgbHetero(folder: string): Promise<HeteroGraph> {
  const raw = path.join(folder, 'raw');
  const numNodes = await readCounts(path.join(raw, 'num-node-dict.csv.gz'));
  const tripletFile = path.join(raw, 'triplet-type-list.csv.gz');
  const types: EdgeType[] = (await csvLines(tripletFile)).map(({fields, lineNo}) => {
    if (fields.length !== 3)
      throw new Error(`${tripletFile}:${lineNo}: a line must be 'source,relation,destination', got ${fields.length} fields`);
    for (const end of [fields[0], fields[2]])
      if (!(end in numNodes)) throw new Error(`${tripletFile}:${lineNo}: vertex type '${end}' is not in num-node-dict.csv.gz`);
    return [fields[0], fields[1], fields[2]] as const;
  });
  const relationsDir = path.join(raw, 'relations');
  if (fs.existsSync(relationsDir)) {
    const listed = new Set(types.map(edgeTypeKey));
    for (const d of fs.readdirSync(relationsDir))
      if (!listed.has(d)) throw new Error(`${path.join(relationsDir, d)}: a relation folder triplet-type-list.csv.gz does not list`);
  }
  const edges: {type: EdgeType; edges: TypedEdges}[] = [];
  for (const type of types) edges.push({type, edges: await readRelation(raw, type, numNodes)});
  const features = await readFeatures(raw, numNodes);
  const labels = await readLabels(raw, numNodes);
  const split = await readSplit(folder, labels, numNodes);
  return HeteroGraph.fromEdges(numNodes, edges, {features, labels: labels && {...labels, split}});
}

// The binary cache of a dataset of many small graphs (readOgbGraphs, readTuDataset, readSdf): every graph's
// counts, edges, features and target as raw arrays with their digests, and a manifest naming them with the
// source files' stamps and the reader's options (a cache read with other options is not used). It lives in
// the dataset cache's place (cacheDirFor: only where no other user can write), under a folder per source.
// Any disagreement and the source is parsed again and the cache rewritten; what it holds is checked again
// as the readers check a parsed dataset (every edge within its graph, every width whole).
import * as path from 'path';

import {concatArrays, int32Of} from '../util/arrays';
import {
  ArrayFile,
  CacheManifest,
  readArrayFile,
  readInt32File,
  readManifest,
  replaceCacheFolder,
  writeArrayFile,
  writeManifest,
} from './cache_files';
import {SourceStamp, throughCache} from './dataset_cache';
import {GraphDataset, graphsFromColumns} from './graph_batch';
import type {Split} from './split';

const FORMAT = 1;

interface Manifest extends CacheManifest {
  options: string;
  name: string;
  numClasses: number;
  dim: number;
  edgeDim: number;
  regression: boolean;
  classLabels?: number[];
  vertices: ArrayFile;
  edges: ArrayFile;
  src: ArrayFile;
  dst: ArrayFile;
  /** The targets as float64, stored as pairs of int32 words. */
  labels?: ArrayFile;
  features?: ArrayFile;
  edgeFeatures?: ArrayFile;
  split?: {train: ArrayFile; val: ArrayFile; test: ArrayFile};
}

// The cache's folder name for a source (letters, digits, '.', '_' and '-' kept).
function graphCacheFolder(source: string): string {
  return `graphs-${path.basename(source).replace(/[^A-Za-z0-9._-]/g, '_')}`;
}

/**
 * A many-graph dataset read through the binary cache (throughCache's steps): `source` names the cache's folder
 * (its base name), `options` are the reader's options a cache must have been written with to be used.
 */
export function throughGraphCache(o: {
  what: string;
  folder: string;
  files: string[];
  source: string;
  options: object;
  cache?: boolean | string;
  onProgress?: (line: string) => void;
  parse(): Promise<GraphDataset>;
}): Promise<GraphDataset> {
  const sub = graphCacheFolder(o.source),
    options = JSON.stringify(o.options);
  return throughCache({
    what: o.what,
    folder: o.folder,
    files: o.files,
    cache: o.cache,
    say: o.onProgress ?? (() => {}),
    read: readGraphCache(sub, options),
    parse: o.parse,
    write: writeGraphCache(sub, options),
  });
}

// Writes `d` as the cache of `sub` for these sources and reader options.
function writeGraphCache(sub: string, options: string): (dir: string, sources: SourceStamp[], d: GraphDataset) => void {
  return (dir, sources, d) =>
    replaceCacheFolder(dir, sub, (tmp) => {
      const g = d.graphs;
      const has = (k: 'features' | 'edgeFeatures') => g.some((x) => x[k] !== undefined);
      const labels = g.every((x) => x.label !== undefined) ? Float64Array.from(g, (x) => x.label!) : undefined;
      // Every graph's part of a column, one after another.
      const ints = (k: 'src' | 'dst') =>
        concatArrays(
          g.map((x) => x[k]),
          (n) => new Int32Array(n),
        );
      const floats = (k: 'features' | 'edgeFeatures') =>
        concatArrays(
          g.map((x) => x[k]!),
          (n) => new Float32Array(n),
        );
      const manifest: Manifest = {
        format: FORMAT,
        sources,
        options,
        name: d.name,
        numClasses: d.numClasses,
        dim: d.dim,
        edgeDim: d.edgeDim,
        regression: d.regression,
        ...(d.classLabels ? {classLabels: d.classLabels} : {}),
        vertices: writeArrayFile(
          tmp,
          'vertices.i32',
          int32Of(g.length, (i) => g[i].numVertices),
        ),
        edges: writeArrayFile(
          tmp,
          'edges.i32',
          int32Of(g.length, (i) => g[i].src.length),
        ),
        src: writeArrayFile(tmp, 'src.i32', ints('src')),
        dst: writeArrayFile(tmp, 'dst.i32', ints('dst')),
        ...(labels ? {labels: writeArrayFile(tmp, 'labels.f64', new Int32Array(labels.buffer))} : {}),
        ...(has('features') ? {features: writeArrayFile(tmp, 'features.f32', floats('features'))} : {}),
        ...(has('edgeFeatures') ? {edgeFeatures: writeArrayFile(tmp, 'edge-features.f32', floats('edgeFeatures'))} : {}),
        ...(d.split
          ? {
              split: {
                train: writeArrayFile(tmp, 'train.i32', d.split.train),
                val: writeArrayFile(tmp, 'val.i32', d.split.val),
                test: writeArrayFile(tmp, 'test.i32', d.split.test),
              },
            }
          : {}),
      };
      writeManifest(tmp, manifest);
    });
}

// The dataset the cache `sub` holds for these sources and reader options, or why it is not used.
function readGraphCache(sub: string, options: string): (dir: string, sources: SourceStamp[]) => {value: GraphDataset} | {why: string} {
  return (dir, sources) => {
    const root = path.join(dir, sub);
    try {
      const read = readManifest<Manifest>(root, FORMAT, sources);
      if ('why' in read) return read;
      const m = read.manifest;
      if (m.options !== options) return {why: `${root} was written for other reader options (${m.options}; now ${options})`};
      const vertices = readInt32File(root, m.vertices),
        edges = readInt32File(root, m.edges);
      const src = readInt32File(root, m.src),
        dst = readInt32File(root, m.dst);
      const labels = m.labels && new Float64Array(readInt32File(root, m.labels).buffer);
      const features = m.features && readArrayFile(root, m.features, (n) => new Float32Array(n));
      const edgeFeatures = m.edgeFeatures && readArrayFile(root, m.edgeFeatures, (n) => new Float32Array(n));
      if (edges.length !== vertices.length || (labels && labels.length !== vertices.length))
        throw new Error('the counts of graphs disagree');
      const graphs = graphsFromColumns(
        {vertices, edges, src, dst, features, dim: m.dim, edgeFeatures, edgeDim: m.edgeDim, labels},
        (g, k, n) => `graph ${g}: edge ${k} names a vertex past its ${n}`,
      );
      const v = vertices.reduce((a, n) => a + n, 0);
      if (
        src.length !== edges.reduce((a, k) => a + k, 0) ||
        (features && features.length !== v * m.dim) ||
        (edgeFeatures && edgeFeatures.length !== src.length * m.edgeDim)
      )
        throw new Error('the arrays hold more than the counts say');
      const split: Split | undefined = m.split && {
        train: readInt32File(root, m.split.train),
        val: readInt32File(root, m.split.val),
        test: readInt32File(root, m.split.test),
      };
      const value: GraphDataset = {
        name: m.name,
        graphs,
        numClasses: m.numClasses,
        dim: m.dim,
        edgeDim: m.edgeDim,
        regression: m.regression,
        ...(m.classLabels ? {classLabels: m.classLabels} : {}),
        ...(split ? {split} : {}),
      };
      return {value};
    } catch (err) {
      return {why: `${root} is not a readable cache (${(err as Error).message})`};
    }
  };
}

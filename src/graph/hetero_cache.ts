// The binary cache of a typed graph read from OGB's heterogeneous layout: each relation's graph as a graph
// file (checksummed, mapped back), the features, labels and split as raw arrays with their digests, and a
// manifest naming them with the source files' stamps (dataset_cache.ts' stamps: size, times, inode, a hash
// of the first and last MiB). It lives in the dataset cache's place (cacheDirFor: only where no other user
// can write), under `hetero/`. Any disagreement (a source changed, a file missing, truncated, of another
// owner, or failing its digest) and the folder is parsed again and the cache rewritten, never trusted.
import * as fs from 'fs';
import * as path from 'path';

import {
  ArrayFile,
  CacheManifest,
  cachedFile,
  readArrayFile,
  readInt32File,
  readManifest,
  replaceCacheFolder,
  writeArrayFile,
  writeManifest,
} from './cache_files';
import {SourceStamp} from './dataset_cache';
import {EdgeType, featureValues, HeteroFeatures, HeteroGraph, HeteroLabels, HeteroRelation} from './hetero_graph';
import {NativeCsr} from './native_csr';
import type {Split} from './split';

const FORMAT = 1;
const SUBDIR = 'hetero';

interface Manifest extends CacheManifest {
  numNodes: Record<string, number>;
  relations: {type: EdgeType; file: string; numEdges: number}[];
  features: Record<string, ArrayFile & {dim: number}>;
  labels?: {type: string; numClasses: number; values: ArrayFile; split?: Record<keyof Split, ArrayFile>};
}

/** The files of an OGB heterogeneous folder the reader may read (relative names), for their stamps. */
export function heteroSourceFiles(folder: string): string[] {
  const sub = (dir: string) => (fs.existsSync(path.join(folder, dir)) ? fs.readdirSync(path.join(folder, dir)).sort() : []);
  const files = [path.join('raw', 'num-node-dict.csv.gz'), path.join('raw', 'triplet-type-list.csv.gz')];
  for (const r of sub(path.join('raw', 'relations')))
    for (const f of ['edge.csv.gz', 'num-edge-list.csv.gz']) files.push(path.join('raw', 'relations', r, f));
  for (const t of sub(path.join('raw', 'node-feat'))) files.push(path.join('raw', 'node-feat', t, 'node-feat.csv.gz'));
  for (const t of sub(path.join('raw', 'node-label'))) files.push(path.join('raw', 'node-label', t, 'node-label.csv.gz'));
  for (const s of sub('split'))
    for (const t of sub(path.join('split', s)))
      for (const f of ['train.csv.gz', 'valid.csv.gz', 'test.csv.gz']) files.push(path.join('split', s, t, f));
  return files;
}

/** Writes `g` as the cache of its sources in `dir` (a trusted cache folder): built beside, then renamed in place. */
export function writeHeteroCache(dir: string, sources: SourceStamp[], g: HeteroGraph): void {
  replaceCacheFolder(dir, SUBDIR, (tmp) => {
    const relations = [...g.relations.values()].map((r, i) => {
      const file = `relation-${i}.wmcsr`;
      r.graph.save(path.join(tmp, file));
      return {type: r.type, file, numEdges: r.numEdges};
    });
    const features: Manifest['features'] = {};
    Object.entries(g.features).forEach(
      ([t, f], i) => (features[t] = {...writeArrayFile(tmp, `features-${i}.f32`, featureValues(f)), dim: f.dim}),
    );
    const l = g.labels;
    const manifest: Manifest = {
      format: FORMAT,
      sources,
      numNodes: {...g.numNodes},
      relations,
      features,
      ...(l
        ? {
            labels: {
              type: l.type,
              numClasses: l.numClasses,
              values: writeArrayFile(tmp, 'labels.i32', l.labels),
              ...(l.split
                ? {
                    split: {
                      train: writeArrayFile(tmp, 'train.i32', l.split.train),
                      val: writeArrayFile(tmp, 'val.i32', l.split.val),
                      test: writeArrayFile(tmp, 'test.i32', l.split.test),
                    },
                  }
                : {}),
            },
          }
        : {}),
    };
    writeManifest(tmp, manifest);
  });
}

/** The typed graph the cache in `dir` holds for these sources, or why it is not used. */
export function readHeteroCache(dir: string, sources: SourceStamp[]): {value: HeteroGraph} | {why: string} {
  const root = path.join(dir, SUBDIR);
  const opened: NativeCsr[] = [];
  try {
    const read = readManifest<Manifest>(root, FORMAT, sources);
    if ('why' in read) return read;
    const m = read.manifest;
    const relations: HeteroRelation[] = m.relations.map((r) => {
      const graph = NativeCsr.load(cachedFile(root, r.file)); // checks its own checksum and structure
      opened.push(graph);
      return {type: r.type, graph, numEdges: r.numEdges};
    });
    const features: Record<string, HeteroFeatures> = {};
    for (const [t, f] of Object.entries(m.features)) features[t] = {values: readArrayFile(root, f, (n) => new Float32Array(n)), dim: f.dim};
    let labels: HeteroLabels | undefined;
    if (m.labels) {
      const s = m.labels.split;
      const ids = (a: ArrayFile) => readInt32File(root, a);
      labels = {
        type: m.labels.type,
        numClasses: m.labels.numClasses,
        labels: ids(m.labels.values),
        ...(s ? {split: {train: ids(s.train), val: ids(s.val), test: ids(s.test)}} : {}),
      };
    }
    // Every count, id and size checked again against the manifest's vertex counts.
    const graph = HeteroGraph.fromRelations(m.numNodes, relations, {features, labels});
    opened.length = 0; // the graph owns them
    return {value: graph};
  } catch (e) {
    return {why: `${root}: ${(e as Error).message}`};
  } finally {
    for (const g of opened) g.free();
  }
}

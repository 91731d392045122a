// The binary cache of a typed graph read from OGB's heterogeneous layout: each relation's graph as a graph
// file (checksummed, mapped back), the features, labels and split as raw arrays with their digests, and a
// manifest naming them with the source files' stamps (dataset_cache.ts' stamps: size, times, inode, a hash
// of the first and last MiB). It lives in the dataset cache's place (cacheDirFor: only where no other user
// can write), under `hetero/`. Any disagreement (a source changed, a file missing, truncated, of another
// owner, or failing its digest) and the folder is parsed again and the cache rewritten, never trusted.
import {randomBytes} from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import {dataNative} from '../native/domains';
import {untrustedFileReason} from '../util/trusted_files';
import {SourceStamp} from './dataset_cache';
import {EdgeType, HeteroFeatures, HeteroGraph, HeteroLabels, HeteroRelation} from './hetero_graph';
import {NativeCsr} from './native_csr';
import type {Split} from './split';

const FORMAT = 1;
const SUBDIR = 'hetero';
const MANIFEST = 'manifest.json';
const DIGEST_SEED = 11;

interface ArrayFile {
  file: string;
  length: number;
  digest: string;
}

interface Manifest {
  format: number;
  sources: SourceStamp[];
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

function digest(a: Int32Array | Float32Array): string {
  return dataNative().digest(a, DIGEST_SEED) as string;
}

function writeArray(dir: string, file: string, a: Int32Array | Float32Array): ArrayFile {
  fs.writeFileSync(path.join(dir, file), new Uint8Array(a.buffer, a.byteOffset, a.byteLength), {mode: 0o600});
  return {file, length: a.length, digest: digest(a)};
}

/** Writes `g` as the cache of its sources in `dir` (a trusted cache folder): built beside, then renamed in place. */
export function writeHeteroCache(dir: string, sources: SourceStamp[], g: HeteroGraph): void {
  const tmp = path.join(dir, `${SUBDIR}.tmp-${randomBytes(6).toString('hex')}`);
  fs.mkdirSync(tmp, {mode: 0o700});
  try {
    const relations = [...g.relations.values()].map((r, i) => {
      const file = `relation-${i}.wmcsr`;
      r.graph.save(path.join(tmp, file));
      return {type: r.type, file, numEdges: r.numEdges};
    });
    const features: Manifest['features'] = {};
    Object.entries(g.features).forEach(([t, f], i) => (features[t] = {...writeArray(tmp, `features-${i}.f32`, f.values), dim: f.dim}));
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
              values: writeArray(tmp, 'labels.i32', l.labels),
              ...(l.split
                ? {
                    split: {
                      train: writeArray(tmp, 'train.i32', l.split.train),
                      val: writeArray(tmp, 'val.i32', l.split.val),
                      test: writeArray(tmp, 'test.i32', l.split.test),
                    },
                  }
                : {}),
            },
          }
        : {}),
    };
    fs.writeFileSync(path.join(tmp, MANIFEST), JSON.stringify(manifest), {mode: 0o600});
    const final = path.join(dir, SUBDIR);
    fs.rmSync(final, {recursive: true, force: true});
    fs.renameSync(tmp, final);
  } catch (e) {
    fs.rmSync(tmp, {recursive: true, force: true});
    throw e;
  }
}

// A file of the cache, by its base name only (a manifest names no other place), if no one else could have written it.
function cachedFile(dir: string, name: string): string {
  const file = path.join(dir, path.basename(String(name)));
  const why = untrustedFileReason(file);
  if (why !== undefined) throw new Error(why);
  return file;
}

// An array file read straight into its typed array (one copy), its size and digest checked.
function readArray<T extends Int32Array | Float32Array>(dir: string, a: ArrayFile, make: (n: number) => T): T {
  const file = cachedFile(dir, a.file);
  const out = make(a.length);
  const bytes = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    const size = fs.fstatSync(fd).size;
    if (size !== bytes.length) throw new Error(`${file}: ${size} bytes, the manifest says ${bytes.length}`);
    for (let at = 0; at < bytes.length;) {
      const n = fs.readSync(fd, bytes, at, Math.min(bytes.length - at, 1 << 30), at);
      if (n <= 0) throw new Error(`${file}: truncated while read`);
      at += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  if (digest(out) !== a.digest) throw new Error(`${file}: fails its digest (damaged)`);
  return out;
}

/** The typed graph the cache in `dir` holds for these sources, or why it is not used. */
export function readHeteroCache(dir: string, sources: SourceStamp[]): {graph: HeteroGraph} | {why: string} {
  const root = path.join(dir, SUBDIR);
  const manifestFile = path.join(root, MANIFEST);
  if (!fs.existsSync(manifestFile)) return {why: `no cache in ${root} yet`};
  const opened: NativeCsr[] = [];
  try {
    const m = JSON.parse(fs.readFileSync(cachedFile(root, MANIFEST), 'utf8')) as Manifest;
    if (m.format !== FORMAT) return {why: `${manifestFile} was written by another cache format (${m.format}, this one reads ${FORMAT})`};
    if (JSON.stringify(m.sources) !== JSON.stringify(sources)) {
      const changed = sources.find((s, i) => JSON.stringify(s) !== JSON.stringify(m.sources?.[i]));
      return {why: `${changed ? changed.file : 'the list of source files'} changed since the cache was written`};
    }
    const relations: HeteroRelation[] = m.relations.map((r) => {
      const graph = NativeCsr.load(cachedFile(root, r.file)); // checks its own checksum and structure
      opened.push(graph);
      return {type: r.type, graph, numEdges: r.numEdges};
    });
    const features: Record<string, HeteroFeatures> = {};
    for (const [t, f] of Object.entries(m.features)) features[t] = {values: readArray(root, f, (n) => new Float32Array(n)), dim: f.dim};
    let labels: HeteroLabels | undefined;
    if (m.labels) {
      const s = m.labels.split;
      const ids = (a: ArrayFile) => readArray(root, a, (n) => new Int32Array(n));
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
    return {graph};
  } catch (e) {
    return {why: `${root}: ${(e as Error).message}`};
  } finally {
    for (const g of opened) g.free();
  }
}

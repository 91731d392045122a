// The binary cache of a loaded dataset: the graph as a graph file (NativeGraph,
// 64-bit offsets) and the vertex arrays (labels, ids, features, split) in one
// file of aligned sections, both mapped on the next load instead of parsing
// text again. Features that come from a .npy file are not copied: the file is
// a source like the others, and is mapped again. Sections are written and
// digested a window at a time, so they may be larger than a typed array. The
// cache records each source file's size, modification and change times, inode and a hash
// of its first and last MiB (the whole of a small file), the loader's format,
// and a digest of every section; any disagreement, a missing or truncated
// file, or arrays out of range, and it is rebuilt, never trusted.
import {randomBytes} from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import type {NativeGraph} from '../native/addon';
import {dataNative, graphNative} from '../native/domains';
import {ensureDir, sha256Hex} from '../util/files';
import {trustedFolder, untrustedFileReason, untrustedFolderReason} from '../util/trusted_files';
import {NativeFeatures} from './native_features';
import type {LoadedParts} from './node_data';
import type {Split} from './split';

/** Source files of this many bytes or more are cached by default: smaller ones load in well under a second. */
export const CACHE_FROM_BYTES = 64 << 20;

/** The loader's format: a cache written under another is rebuilt. */
const FORMAT = 3;
const MAGIC = 'WMDATA1\n';
const PREFIX_BYTES = 80; // magic, JSON length (u32), reserved (u32), SHA-256 of the JSON (64 hex)
const ALIGN = 64;
const SAMPLE_BYTES = 1 << 20;
const GRAPH_FILE = 'graph.wmcsr';
const ARRAYS_FILE = 'arrays.wmdata';

/**
 * Where a dataset's cache goes (see LoadOptions.cache), or undefined for nowhere. A place is used only
 * when it is trusted (util/trusted_files.ts: this user's or root's, written by no one else, up to /),
 * made 0700; `<folder>/.wmcache` only when the dataset folder is trusted too. A place that fails is
 * passed over with a one-line warning (`warn`) for the next: the folder named, else the user's cache.
 */
export function cacheDirFor(folder: string, cache: boolean | string, warn: (line: string) => void): string | undefined {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const userCache = path.join(base, 'tfjs-backend-wholememory', 'datasets', sha256Hex(Buffer.from(fs.realpathSync(folder))).slice(0, 24));
  const beside = path.join(folder, '.wmcache');
  const places: string[] = [];
  if (typeof cache === 'string') places.push(path.resolve(cache));
  else {
    const why = untrustedFolderReason(folder) ?? (writable(folder) ? undefined : `${folder} is read-only`);
    if (why === undefined) places.push(beside);
    else if (fs.existsSync(beside)) warn(`dataset cache ${beside} not used: ${why}`);
  }
  places.push(userCache);
  for (const dir of places) {
    try {
      ensureDir(dir, 'loadDataset cache', 0o700);
      const real = trustedFolder(dir, 'loadDataset cache');
      const st = fs.statSync(real);
      if (st.uid === process.getuid?.() && (st.mode & 0o077) !== 0) fs.chmodSync(real, 0o700); // a cache is private
      return real;
    } catch (e) {
      warn(`dataset cache ${dir} not used: ${(e as Error).message.replace(/^loadDataset cache: /, '')}`);
    }
  }
  return undefined;
}

/**
 * A reader through its binary cache: the sources stamped before anything is read (a file changed while
 * reading makes the cache stale), the cache read where it stands, else the folder parsed and the cache
 * written. `cache` as LoadOptions.cache (default: sources of CACHE_FROM_BYTES or more); `say` hears each step.
 */
export async function throughCache<T>(o: {
  what: string;
  folder: string;
  files: string[];
  cache?: boolean | string;
  say: (line: string) => void;
  read(dir: string, sources: SourceStamp[]): {value: T} | {why: string};
  parse(): Promise<T>;
  write(dir: string, sources: SourceStamp[], value: T): void;
}): Promise<T> {
  const sources = stampSources(o.folder, o.files);
  const cache = o.cache ?? sourceBytes(sources) >= CACHE_FROM_BYTES;
  const warn = (line: string) => process.emitWarning(`${o.what}: ${line}`, {code: 'WM_CACHE_NOT_USED'});
  const dir = cache === false ? undefined : cacheDirFor(o.folder, cache, warn);
  const seconds = (t: number) => ((Date.now() - t) / 1000).toFixed(2);
  if (dir) {
    const t = Date.now();
    const hit = o.read(dir, sources);
    if ('value' in hit) {
      o.say(`read the cache in ${dir} (${seconds(t)} s)`);
      return hit.value;
    }
    o.say(`cache not used: ${hit.why}`);
  }
  const value = await o.parse();
  if (dir) {
    const t = Date.now();
    try {
      o.write(dir, sources, value);
      o.say(`wrote the cache in ${dir} (${seconds(t)} s)`);
    } catch (e) {
      o.say(`cache not written: ${(e as Error).message}`);
    }
  }
  return value;
}

function writable(folder: string): boolean {
  try {
    fs.accessSync(folder, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

export type SourceStamp =
  {file: string; missing: true} | {file: string; size: number; mtimeNs: string; ctimeNs: string; ino: string; sample: string};

/**
 * What identifies each source file now (relative names; absent files recorded as missing): its size,
 * inode, modification time, change time (which no one can set back: any write to the file moves it,
 * even one that restores the modification time) and a hash of its first and last MiB.
 */
export function stampSources(folder: string, files: string[]): SourceStamp[] {
  return files.map((file) => {
    const full = path.join(folder, file);
    let st: fs.BigIntStats;
    try {
      st = fs.statSync(full, {bigint: true});
    } catch {
      return {file, missing: true};
    }
    if (!st.isFile()) return {file, missing: true}; // the loader names what is there instead
    const size = Number(st.size);
    const fd = fs.openSync(full, 'r');
    try {
      const head = Buffer.alloc(Math.min(size, SAMPLE_BYTES));
      fs.readSync(fd, head, 0, head.length, 0);
      const tail = Buffer.alloc(Math.min(Math.max(0, size - head.length), SAMPLE_BYTES));
      fs.readSync(fd, tail, 0, tail.length, size - tail.length);
      const sample = sha256Hex(Buffer.concat([head, tail]));
      return {file, size, mtimeNs: st.mtimeNs.toString(), ctimeNs: st.ctimeNs.toString(), ino: st.ino.toString(), sample};
    } finally {
      fs.closeSync(fd);
    }
  });
}

/** Bytes of the source files that exist. */
export function sourceBytes(stamps: SourceStamp[]): number {
  return stamps.reduce((a, s) => a + ('size' in s ? s.size : 0), 0);
}

interface Section {
  offset: number;
  length: number;
  dtype: 'int32' | 'float32';
  digest: string;
}

interface Header {
  format: number;
  buildId: string;
  sources: SourceStamp[];
  name: string;
  numClasses: number;
  classNames: string[];
  component?: {kept: number; of: number};
  /** inSource: the features are the rows of this .npy file of the folder (no section). */
  features?: {dim: number; source: string; stored: 'float32' | 'float16' | 'float64'; inSource?: string};
  split: boolean;
  sections: Record<string, Section>;
}

const DIGEST_SEED = 11;

function writeAll(fd: number, view: ArrayBufferView, at: number): void {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  for (let done = 0; done < bytes.length;) {
    const n = fs.writeSync(fd, bytes, done, Math.min(bytes.length - done, 1 << 30), at + done);
    if (n <= 0) throw new Error(`cannot write the dataset cache (wrote ${n} bytes)`);
    done += n;
  }
}

/** A section's contents as windows of typed arrays, written and digested one window at a time. */
interface SectionData {
  length: number;
  dtype: Section['dtype'];
  windows(): Iterable<Int32Array | Float32Array>;
}

function arraySection(a: Int32Array | Float32Array): SectionData {
  return {length: a.length, dtype: a instanceof Float32Array ? 'float32' : 'int32', windows: () => [a]};
}

function featureSection(f: NativeFeatures): SectionData {
  return {
    length: f.rows * f.dim,
    dtype: 'float32',
    windows: () => f.float32Windows(),
  };
}

/** One window's digest as it is; several windows' digests digested together. */
function digestOf(windows: Iterable<ArrayBufferView>): string {
  const parts: string[] = [];
  for (const w of windows) parts.push(dataNative().digest(w, DIGEST_SEED));
  return parts.length === 1 ? parts[0] : dataNative().digest(Buffer.from(parts.join('')), DIGEST_SEED);
}

/** Writes the cache (each file atomically: a temporary beside it, renamed); `folder` holds the sources. */
export function writeCache(dir: string, sources: SourceStamp[], parts: LoadedParts, folder: string): void {
  ensureDir(dir, 'loadDataset cache');
  const {vertices: data, features} = parts;
  const arrays: [string, SectionData][] = [
    ['labels', arraySection(data.labels)],
    ['originalIds', arraySection(data.originalIds)],
  ];
  // Rows of a .npy source stay in it (mapped on the next load); features made by the loader are copied.
  const inSource = features && path.resolve(features.source) === path.resolve(folder, 'vertex_features.npy') && !data.component;
  if (features && !inSource) arrays.push(['features', featureSection(features)]);
  if (data.edgeWeights) arrays.push(['edgeWeights', arraySection(data.edgeWeights)]);
  if (data.split)
    arrays.push(['train', arraySection(data.split.train)], ['val', arraySection(data.split.val)], ['test', arraySection(data.split.test)]);
  const header: Header = {
    format: FORMAT,
    buildId: randomBytes(12).toString('hex'),
    sources,
    name: data.name,
    numClasses: data.numClasses,
    classNames: data.classNames,
    component: data.component,
    features: features && {
      dim: features.dim,
      source: features.source,
      stored: features.stored,
      ...(inSource ? {inSource: 'vertex_features.npy'} : {}),
    },
    split: !!data.split,
    sections: {},
  };
  const digests = arrays.map(([, a]) => digestOf(a.windows()));
  // Offsets depend on the header's length, which depends on the offsets' digits: lay out with room to spare.
  let json = '';
  for (let room = 4096; ; room *= 2) {
    let at = Math.ceil((PREFIX_BYTES + room) / ALIGN) * ALIGN;
    for (const [k, [name, a]] of arrays.entries()) {
      header.sections[name] = {offset: at, length: a.length, dtype: a.dtype, digest: digests[k]};
      at = Math.ceil((at + a.length * 4) / ALIGN) * ALIGN;
    }
    json = JSON.stringify(header);
    if (Buffer.byteLength(json) <= room) break;
  }
  const prefix = Buffer.alloc(PREFIX_BYTES);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(Buffer.byteLength(json), 8);
  prefix.write(sha256Hex(Buffer.from(json)), 16, 'latin1');
  const file = path.join(dir, ARRAYS_FILE);
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    writeAll(fd, prefix, 0);
    writeAll(fd, Buffer.from(json), PREFIX_BYTES);
    // No fsync: a cache cut short by a crash fails its size or digest checks and is rebuilt.
    for (const [name, a] of arrays) {
      let at = header.sections[name].offset;
      for (const w of a.windows()) {
        writeAll(fd, w, at);
        at += w.byteLength;
      }
    }
  } catch (e) {
    fs.closeSync(fd);
    fs.rmSync(tmp, {force: true});
    throw e;
  }
  fs.closeSync(fd);
  fs.renameSync(tmp, file);
  parts.graph.save(path.join(dir, GRAPH_FILE), JSON.stringify({buildId: header.buildId}), false);
  fs.chmodSync(path.join(dir, GRAPH_FILE), 0o600);
}

/** The cached dataset, or why it cannot be used (then the caller loads the sources and writes it again). */
export function readCache(dir: string, sources: SourceStamp[], folder: string): {parts: LoadedParts} | {why: string} {
  const file = path.join(dir, ARRAYS_FILE),
    graphFile = path.join(dir, GRAPH_FILE);
  if (!fs.existsSync(file) && !fs.existsSync(graphFile)) return {why: `no cache in ${dir} yet`};
  const untrusted = untrustedFileReason(file) ?? untrustedFileReason(graphFile);
  if (untrusted !== undefined) return {why: untrusted};
  let graph: NativeGraph | undefined;
  try {
    const header = readHeader(file);
    if (header.format !== FORMAT) return {why: `${file} was written by another loader format (${header.format}, this one reads ${FORMAT})`};
    const changed = sources.find((s, i) => JSON.stringify(s) !== JSON.stringify(header.sources[i]));
    if (changed || header.sources.length !== sources.length)
      return {why: `${changed ? changed.file : 'the list of source files'} changed since the cache was written`};
    graph = graphNative().graphLoad(graphFile);
    if (safeJson(graph.meta)?.buildId !== header.buildId) throw new Error(`${graphFile} belongs to another build of the cache`);
    const parts = assembleCached(file, header, graph, folder);
    graph = undefined; // the parts own it
    return {parts};
  } catch (e) {
    return {why: (e as Error).message};
  } finally {
    graph?.free();
  }
}

function safeJson(text: string): {buildId?: string} | undefined {
  try {
    return JSON.parse(text) as {buildId?: string};
  } catch {
    return undefined;
  }
}

/**
 * The header, checked, and every byte outside the sections checked too: the reserved word and the
 * padding are zeros, the file ends where its last section does (the sections carry their own digests).
 */
function readHeader(file: string): Header {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error(`${file}: not a regular file`);
    const prefix = Buffer.alloc(PREFIX_BYTES);
    if (fs.readSync(fd, prefix, 0, PREFIX_BYTES, 0) !== PREFIX_BYTES || prefix.toString('latin1', 0, 8) !== MAGIC)
      throw new Error(`${file}: not a dataset cache file`);
    const n = prefix.readUInt32LE(8);
    const json = Buffer.alloc(n);
    if (n > 1 << 26 || fs.readSync(fd, json, 0, n, PREFIX_BYTES) !== n) throw new Error(`${file}: truncated header`);
    if (sha256Hex(json) !== prefix.toString('latin1', 16, 80) || prefix.readUInt32LE(12) !== 0)
      throw new Error(`${file}: the header fails its checksum`);
    const header = JSON.parse(json.toString()) as Header;
    const spans = Object.values(header.sections ?? {})
      .map((x) => [x.offset, x.offset + x.length * 4])
      .sort((a, b) => a[0] - b[0]);
    let at = PREFIX_BYTES + n;
    for (const [from, to] of [...spans, [st.size, st.size]]) {
      if (!(Number.isSafeInteger(from) && Number.isSafeInteger(to) && from >= at && to <= st.size))
        throw new Error(`${file}: its sections overlap or pass the end of the file (truncated or damaged)`);
      const gap = Buffer.alloc(from - at);
      if (fs.readSync(fd, gap, 0, gap.length, at) !== gap.length || gap.some((b) => b !== 0))
        throw new Error(`${file}: the padding between sections is not zero (damaged or changed)`);
      at = to;
    }
    return header;
  } finally {
    fs.closeSync(fd);
  }
}

function section<T extends Int32Array | Float32Array>(file: string, h: Header, name: string, dtype: Section['dtype']): T {
  const s = h.sections[name];
  if (!s || s.dtype !== dtype) throw new Error(`${file}: no ${dtype} section '${name}'`);
  const view = dataNative().hostArrayMap(file, s.offset, s.length, dtype).view() as T;
  if (dataNative().digest(view, DIGEST_SEED) !== s.digest)
    throw new Error(`${file}: section '${name}' fails its digest (damaged or changed)`);
  return view;
}

// The arrays index other arrays (labels by vertex, splits by id): each is checked against the graph.
function assembleCached(file: string, h: Header, graph: NativeGraph, folder: string): LoadedParts {
  const n = graph.numVertices;
  const labels = section<Int32Array>(file, h, 'labels', 'int32');
  const originalIds = section<Int32Array>(file, h, 'originalIds', 'int32');
  if (labels.length !== n || originalIds.length !== n) throw new Error(`${file}: labels and ids must have one entry per vertex (${n})`);
  if (!Number.isInteger(h.numClasses) || h.classNames.length !== h.numClasses)
    throw new Error(`${file}: the class count disagrees with the names`);
  for (let v = 0; v < n; ++v) {
    if (!(labels[v] >= -1 && labels[v] < h.numClasses)) throw new Error(`${file}: the label of vertex ${v} is out of range`);
    if (originalIds[v] < 0) throw new Error(`${file}: the original id of vertex ${v} is negative`);
  }
  let split: Split | undefined;
  if (h.split) {
    const [train, val, test] = (['train', 'val', 'test'] as const).map((k) => section<Int32Array>(file, h, k, 'int32'));
    for (const part of [train, val, test])
      for (const v of part)
        if (!(v >= 0 && v < n && labels[v] >= 0)) throw new Error(`${file}: a split names vertex ${v}, not a labelled vertex`);
    split = {train, val, test};
  }
  let edgeWeights: Float32Array | undefined;
  if (h.sections.edgeWeights) {
    edgeWeights = section<Float32Array>(file, h, 'edgeWeights', 'float32');
    if (edgeWeights.length !== graph.numEdges) throw new Error(`${file}: ${edgeWeights.length} edge weights for ${graph.numEdges} entries`);
  }
  let features: NativeFeatures | undefined;
  if (h.features?.inSource !== undefined) {
    if (h.features.inSource !== 'vertex_features.npy') throw new Error(`${file}: features in an unknown source '${h.features.inSource}'`);
    features = NativeFeatures.fromNpy(path.join(folder, h.features.inSource), n);
    if (features.dim !== h.features.dim) throw new Error(`${file}: the features are not ${n} rows of ${h.features.dim}`);
  } else if (h.features) {
    const s = h.sections.features;
    if (!s || s.dtype !== 'float32') throw new Error(`${file}: no float32 section 'features'`);
    if (s.length !== n * h.features.dim) throw new Error(`${file}: the features are not ${n} rows of ${h.features.dim}`);
    features = NativeFeatures.fromFile(file, s.offset, n, h.features.dim, 'float32', 4, h.features.source);
    if (digestOf(featureSection(features).windows()) !== s.digest)
      throw new Error(`${file}: section 'features' fails its digest (damaged or changed)`);
  }
  return {
    vertices: {
      name: h.name,
      labels,
      numClasses: h.numClasses,
      classNames: h.classNames,
      originalIds,
      split,
      component: h.component,
      edgeWeights,
    },
    graph,
    features,
  };
}

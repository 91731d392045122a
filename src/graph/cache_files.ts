// The files of a binary cache in a trusted folder (dataset_cache.ts' cacheDirFor): raw typed arrays with their
// length and digest, read straight back into their typed arrays and checked; a manifest naming them with the
// cache's format and its sources' stamps; a folder of them built beside its final place and renamed into it; a
// file a manifest names taken by its base name only, and only where no other user could have written it.
import {randomBytes} from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import {dataNative} from '../native/domains';
import {writeBytes} from '../util/files';
import {untrustedFileReason} from '../util/trusted_files';
import type {SourceStamp} from './dataset_cache';

const DIGEST_SEED = 11;
const MANIFEST = 'manifest.json';

export interface ArrayFile {
  file: string;
  length: number;
  digest: string;
}

export function cacheDigest(bytes: ArrayBufferView): string {
  return dataNative().digest(bytes, DIGEST_SEED) as string;
}

export function writeArrayFile(dir: string, file: string, a: Int32Array | Float32Array): ArrayFile {
  writeBytes(path.join(dir, file), new Uint8Array(a.buffer, a.byteOffset, a.byteLength), 0o600);
  return {file, length: a.length, digest: cacheDigest(a)};
}

/** A file of the cache, by its base name only (a manifest names no other place), if no one else could have written it. */
export function cachedFile(dir: string, name: string): string {
  const file = path.join(dir, path.basename(String(name)));
  const why = untrustedFileReason(file);
  if (why !== undefined) throw new Error(why);
  return file;
}

/** `bytes.length` bytes of a cached file into `bytes` (one copy), its size checked first. */
export function readCachedBytes(file: string, bytes: Uint8Array): void {
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
}

/** `bytes.length` bytes of a cached file into `bytes`, its size and digest checked. */
export function readDigestedBytes(file: string, bytes: Uint8Array, digest: string): void {
  readCachedBytes(file, bytes);
  if (cacheDigest(bytes) !== digest) throw new Error(`${file}: fails its digest (damaged)`);
}

/** An array file read straight into its typed array (one copy), its size and digest checked. */
export function readArrayFile<T extends Int32Array | Float32Array>(dir: string, a: ArrayFile, make: (n: number) => T): T {
  const out = make(a.length);
  readDigestedBytes(cachedFile(dir, a.file), new Uint8Array(out.buffer, out.byteOffset, out.byteLength), a.digest);
  return out;
}

export function readInt32File(dir: string, a: ArrayFile): Int32Array {
  return readArrayFile(dir, a, (n) => new Int32Array(n));
}

/** What every cache manifest records: the cache's format and its sources' stamps. */
export interface CacheManifest {
  format: number;
  sources: SourceStamp[];
}

export function writeManifest(dir: string, manifest: CacheManifest): void {
  fs.writeFileSync(path.join(dir, MANIFEST), JSON.stringify(manifest), {mode: 0o600});
}

/**
 * The manifest in `root` if it was written by this `format` for these `sources`, or why not. A manifest that
 * cannot be read throws (the caller says why with the rest of its reading).
 */
export function readManifest<M extends CacheManifest>(root: string, format: number, sources: SourceStamp[]): {manifest: M} | {why: string} {
  const file = path.join(root, MANIFEST);
  if (!fs.existsSync(file)) return {why: `no cache in ${root} yet`};
  const m = JSON.parse(fs.readFileSync(cachedFile(root, MANIFEST), 'utf8')) as M;
  if (m.format !== format) return {why: `${file} was written by another cache format (${m.format}, this one reads ${format})`};
  if (JSON.stringify(m.sources) !== JSON.stringify(sources)) {
    const changed = sources.find((s, i) => JSON.stringify(s) !== JSON.stringify(m.sources?.[i]));
    return {why: `${changed ? changed.file : 'the list of source files'} changed since the cache was written`};
  }
  return {manifest: m};
}

/** Builds `dir/sub` in a folder beside it (`build` writes there), then puts it in place of any older one. */
export function replaceCacheFolder(dir: string, sub: string, build: (tmp: string) => void): void {
  const tmp = path.join(dir, `${sub}.tmp-${randomBytes(6).toString('hex')}`);
  fs.mkdirSync(tmp, {mode: 0o700});
  try {
    build(tmp);
    const final = path.join(dir, sub);
    fs.rmSync(final, {recursive: true, force: true});
    fs.renameSync(tmp, final);
  } catch (e) {
    fs.rmSync(tmp, {recursive: true, force: true});
    throw e;
  }
}

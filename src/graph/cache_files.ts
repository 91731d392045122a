// The files of a binary cache in a trusted folder (dataset_cache.ts' cacheDirFor): raw typed arrays with their
// length and digest, read straight back into their typed arrays and checked; a folder of them built beside its
// final place and renamed into it; a file a manifest names taken by its base name only, and only where no other
// user could have written it.
import {randomBytes} from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import {dataNative} from '../native/domains';
import {untrustedFileReason} from '../util/trusted_files';

const DIGEST_SEED = 11;

export interface ArrayFile {
  file: string;
  length: number;
  digest: string;
}

export function cacheDigest(bytes: ArrayBufferView): string {
  return dataNative().digest(bytes, DIGEST_SEED) as string;
}

export function writeArrayFile(dir: string, file: string, a: Int32Array | Float32Array): ArrayFile {
  fs.writeFileSync(path.join(dir, file), new Uint8Array(a.buffer, a.byteOffset, a.byteLength), {mode: 0o600});
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

/** An array file read straight into its typed array (one copy), its size and digest checked. */
export function readArrayFile<T extends Int32Array | Float32Array>(dir: string, a: ArrayFile, make: (n: number) => T): T {
  const file = cachedFile(dir, a.file);
  const out = make(a.length);
  readCachedBytes(file, new Uint8Array(out.buffer, out.byteOffset, out.byteLength));
  if (cacheDigest(out) !== a.digest) throw new Error(`${file}: fails its digest (damaged)`);
  return out;
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

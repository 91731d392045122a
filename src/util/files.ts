// Files: durable writes (data reaches the disk before a rename makes it visible),
// folders made without hanging on virtual file systems, reads that name the file.
import {createHash} from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// The most bytes one write call takes here: Node refuses a write of 2 GiB or more ("length" out of range).
const WRITE_PIECE = 1 << 30;

/** All of `bytes` to `fd`, `piece` bytes a call at most, however large the whole (and however little a call writes). */
export function writeAll(fd: number, bytes: Uint8Array, piece = WRITE_PIECE): void {
  for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at, Math.min(piece, bytes.length - at));
}

/**
 * A file holding `bytes` (or the pieces in order; made with `mode`, or replaced), whatever their size; on the disk
 * before it returns when `synced`.
 */
export function writeBytes(file: string, bytes: Uint8Array | Uint8Array[], mode = 0o666, synced = false): void {
  const fd = fs.openSync(file, 'w', mode);
  try {
    for (const piece of Array.isArray(bytes) ? bytes : [bytes]) writeAll(fd, piece);
    if (synced) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export function writeFileSynced(file: string, bytes: Uint8Array): void {
  writeBytes(file, bytes, 0o666, true);
}

/** Writes under a temporary name, then renames: readers see the old file or the whole new one. */
export function writeFileAtomically(file: string, bytes: Uint8Array): void {
  writeFileInPieces(file, (put) => put(bytes));
}

/**
 * writeFileAtomically for output written a piece at a time (too large for one buffer): `write` gets `put`,
 * which appends bytes or text; the file is synced under a temporary name and renamed when `write` returns,
 * and removed if it throws.
 */
export function writeFileInPieces(file: string, write: (put: (piece: Uint8Array | string) => void) => void, mode = 0o666): void {
  for (const stale of deadTemps(file, 'tmp')) fs.rmSync(stale, {force: true});
  const tmp = tempName(file, 'tmp');
  const fd = fs.openSync(tmp, 'w', mode);
  try {
    write((piece) => {
      writeAll(fd, typeof piece === 'string' ? Buffer.from(piece) : piece);
    });
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(tmp, file);
  } catch (e) {
    try {
      fs.closeSync(fd);
    } catch {
      // closed already
    }
    fs.rmSync(tmp, {force: true});
    throw e;
  }
}

/** SHA-256 of bytes, as hex (the integrity record of checkpoints and saved models). */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Creates `dir` and its missing parents, one level at a time, and fails at
 * once naming the path when a place cannot hold it: an ancestor that is a
 * file, a read-only or virtual file system (Node's recursive mkdirSync spins
 * forever on /proc), no permission. `what` names the caller in the error;
 * the folders made get `mode` (less the umask).
 */
export function ensureDir(dir: string, what: string, mode = 0o777): void {
  const full = path.resolve(dir);
  const missing: string[] = [];
  let at = full;
  for (;;) {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(at);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // ENOTDIR: a file further up; the walk reaches it and names it.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new Error(`${what}: cannot use ${at} (${(e as Error).message})`);
    }
    if (st) {
      if (!st.isDirectory()) throw new Error(`${what}: cannot create ${full}: ${at} is not a folder`);
      break;
    }
    missing.push(at);
    const up = path.dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const d of missing.reverse()) {
    try {
      fs.mkdirSync(d, {mode});
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && fs.statSync(d).isDirectory()) continue; // made by a concurrent saver
      throw new Error(`${what}: cannot create the folder ${d}${d === full ? '' : ` (for ${full})`}: ${code ?? (e as Error).message}`);
    }
  }
}

/** Throws unless `file` is a regular file, naming it (prefixed by `what`) when it is missing, a folder or unreadable. */
export function checkFile(file: string, what?: string): void {
  const named = what ? `${what}: ${file}` : file;
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(`${named} ${code === 'ENOENT' ? 'is missing' : `cannot be read (${code ?? (e as Error).message})`}`);
  }
  if (!st.isFile()) throw new Error(`${named} is ${st.isDirectory() ? 'a folder' : 'not a regular file'}, expected a file`);
}

/** Reads a whole file, naming it when it is missing, a folder or unreadable. */
export function readFileNamed(file: string, what: string): Buffer {
  checkFile(file, what);
  try {
    return fs.readFileSync(file);
  } catch (e) {
    throw new Error(`${what}: ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

/** Size and SHA-256 of a file, as a manifest records them. */
export interface FileDigest {
  bytes: number;
  sha256: string;
}

/**
 * Reads a file a manifest (`manifest`, named in errors) records, refusing it when its size or SHA-256
 * differs from the record. Without a record the file is only read.
 */
export function readRecorded(file: string, record: FileDigest | undefined, manifest: string, what: string): Buffer {
  const data = readFileNamed(file, what);
  if (record && data.byteLength !== record.bytes)
    throw new Error(`${what}: ${file} holds ${data.byteLength} bytes, ${manifest} says ${record.bytes} (truncated or replaced)`);
  if (record && sha256Hex(data) !== record.sha256)
    throw new Error(`${what}: ${file} does not match its SHA-256 in ${manifest} (corrupted)`);
  return data;
}

// Temporary names carry the host and process that made them, so a later
// writer can tell a dead writer's leftovers from a live one's (on this host;
// another host's are left alone).
const HOST = os.hostname().replace(/[^A-Za-z0-9.-]/g, '_');

/** `${base}.${kind}-<host>-<pid>`: this process's temporary name for base. */
export function tempName(base: string, kind: 'tmp' | 'old'): string {
  return `${base}.${kind}-${HOST}-${process.pid}`;
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // someone else's live process
  }
}

/** Whether `dir` holds a temporary (made by tempName) of a process on this host that is still running. */
export function holdsLiveTemp(dir: string): boolean {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return false;
  }
  const mark = `.tmp-${HOST}-`;
  return names.some((n) => {
    const at = n.lastIndexOf(mark);
    const pid = n.slice(at + mark.length);
    return at > 0 && /^\d+$/.test(pid) && Number(pid) !== process.pid && alive(Number(pid));
  });
}

/**
 * The temporary siblings of `base` (made by tempName) whose process on this
 * host is gone, or (`includeOwn`) that this process left from an earlier
 * call that failed half way: their full paths.
 */
export function deadTemps(base: string, kind: 'tmp' | 'old', includeOwn = false): string[] {
  const dir = path.dirname(base);
  const prefix = `${path.basename(base)}.${kind}-${HOST}-`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length)))
    .filter((n) => {
      const pid = Number(n.slice(prefix.length));
      return (includeOwn && pid === process.pid) || !alive(pid);
    })
    .map((n) => path.join(dir, n));
}

// What the library reads back that it wrote (dataset caches, graph files, checkpoints, WholeMemory saves,
// saved models) is trusted only where no other user can have put it: the rule ssh, Git and SQLite keep.
// A folder is trusted when it and every folder above it (its real path, links resolved once) belong to
// this user or root and no one else may write in them, except a sticky folder above it (such as /tmp),
// where others cannot move or replace what this user made. Inside a trusted folder only this user and
// root can change entries, so a file checked there (a regular file, not a link, this user's or root's,
// written by no one else) stays what was checked.
import * as fs from 'fs';
import * as path from 'path';

const STICKY = 0o1000;

function myUid(): number {
  return process.getuid ? process.getuid() : 0;
}

function ownerOk(st: fs.Stats): boolean {
  return st.uid === myUid() || st.uid === 0;
}

/** `dir`'s real path, and why others could change what it holds (undefined when only this user and root can). */
function inspectFolder(dir: string, holdsOwnFile: boolean): {real?: string; why?: string} {
  let real: string;
  try {
    real = fs.realpathSync(dir);
  } catch (e) {
    return {why: `${dir} cannot be resolved (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`};
  }
  for (let at = real, leaf = true; ; leaf = false) {
    const st = fs.lstatSync(at);
    if (!st.isDirectory()) return {real, why: `${at} is not a folder`};
    if (!ownerOk(st)) return {real, why: `${at} belongs to uid ${st.uid}, not to this user (uid ${myUid()}) or root`};
    if ((st.mode & 0o022) !== 0 && ((leaf && !holdsOwnFile) || (st.mode & STICKY) === 0))
      return {real, why: `${at} may be written by other users (mode ${(st.mode & 0o7777).toString(8)})`};
    const up = path.dirname(at);
    if (up === at) return {real};
    at = up;
  }
}

/**
 * Why others could change what `dir` holds, or undefined when only this user and root can. `dir` must
 * exist. `holdsOwnFile`: only a file of this user's in it is read, so `dir` itself may be sticky (others
 * can add entries there but not move or replace this user's).
 */
export function untrustedFolderReason(dir: string, holdsOwnFile = false): string | undefined {
  return inspectFolder(dir, holdsOwnFile).why;
}

/**
 * The real path of `dir` when only this user and root can change what it holds; else throws naming the
 * folder, the rule it broke and `what` (the caller).
 */
export function trustedFolder(dir: string, what: string, holdsOwnFile = false): string {
  const {real, why} = inspectFolder(dir, holdsOwnFile);
  if (why !== undefined) throw new Error(`${what}: ${dir} is not a folder only you can write (${why}); use a folder of your own`);
  return real!;
}

/** Why `file` (in a trusted folder) cannot be trusted, or undefined: a regular file, not a link, this user's or root's, written by no one else. */
export function untrustedFileReason(file: string): string | undefined {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `${file} is missing` : `${file} cannot be read (${code ?? (e as Error).message})`;
  }
  if (st.isSymbolicLink()) return `${file} is a link`;
  if (!st.isFile()) return `${file} is not a regular file`;
  if (!ownerOk(st)) return `${file} belongs to uid ${st.uid}, not to this user (uid ${myUid()}) or root`;
  if ((st.mode & 0o022) !== 0) return `${file} may be written by other users (mode ${(st.mode & 0o777).toString(8)})`;
  return undefined;
}

/**
 * Throws unless `file` and the folder holding it pass the rule above, naming `what` (the caller). For
 * files the library wrote and reads back.
 */
export function checkTrustedFile(file: string, what: string): void {
  trustedFolder(path.dirname(path.resolve(file)), what, true);
  const why = untrustedFileReason(file);
  if (why !== undefined) throw new Error(`${what}: refusing ${file}: ${why}; only files you wrote are read back`);
}

// Files and directories only this user may use: where secrets and sockets
// live on a host shared with other users.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/**
 * A directory only this user can enter: $XDG_RUNTIME_DIR/tfjs-wm, else
 * <tmpdir>/tfjs-wm-<uid>. Refused if someone else owns it, it is a link, or
 * others may enter it.
 */
export function privateDir(): string {
  const uid = process.getuid!();
  const runtime = process.env.XDG_RUNTIME_DIR;
  const dir = runtime && fs.existsSync(runtime) ? path.join(runtime, 'tfjs-wm') : path.join(os.tmpdir(), `tfjs-wm-${uid}`);
  try {
    fs.mkdirSync(dir, {mode: 0o700});
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  checkPrivate(dir, 'directory');
  return dir;
}

/** Throws unless p is this user's own, not a link, and closed to group and others. */
export function checkPrivate(p: string, kind: 'directory' | 'file' | 'socket'): fs.Stats {
  const st = fs.lstatSync(p);
  const uid = process.getuid!();
  const isKind = kind === 'directory' ? st.isDirectory() : kind === 'file' ? st.isFile() : st.isSocket();
  if (!isKind) throw new Error(`${p} is not a ${kind} (a link or something else is in its place); refusing to use it`);
  if (st.uid !== uid) throw new Error(`${p} belongs to uid ${st.uid}, not to this user (uid ${uid}); refusing to use it`);
  if ((st.mode & 0o077) !== 0) {
    throw new Error(`${p} is open to other users (mode ${(st.mode & 0o777).toString(8)}); refusing to use it`);
  }
  return st;
}

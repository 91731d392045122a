// Preloaded into every rank by tfjs-wm-run (node --require): the rank ends
// when its launcher does, however the launcher ended (SIGKILL included), so
// no rank is left running under init holding the group's sockets and memory.
// The launcher gives each rank one end of a socket pair (WM_LAUNCHER_FD);
// only the launcher holds the other end, so it closes exactly when the
// launcher is gone. A worker thread waits on it, apart from the rank's own
// event loop, so a rank busy in a long synchronous call still ends: SIGTERM
// first (Node's default ends the process; the rank's own handler may save
// and exit), SIGKILL after WM_LAUNCHER_GRACE_MS if it is still there.
import {Worker} from 'worker_threads';

const WATCH = `
const {workerData} = require('worker_threads');
const net = require('net');
const link = new net.Socket({fd: workerData.fd, readable: true, writable: false});
link.resume();
let ended = false;
const end = () => {
  if (ended) return;
  ended = true;
  process.kill(process.pid, 'SIGTERM');
  setTimeout(() => process.kill(process.pid, 'SIGKILL'), workerData.graceMs);
};
link.on('end', end);
link.on('error', end);
link.on('close', end);
`;

/** Starts the watch when this process is a rank of tfjs-wm-run; returns whether it did. */
export function watchLauncher(env: NodeJS.ProcessEnv = process.env): boolean {
  const fd = Number(env.WM_LAUNCHER_FD);
  if (!Number.isInteger(fd) || fd < 3) return false;
  const grace = Number(env.WM_LAUNCHER_GRACE_MS);
  // The rank's own child processes are not linked to this launcher.
  delete env.WM_LAUNCHER_FD;
  const worker = new Worker(WATCH, {eval: true, workerData: {fd, graceMs: Number.isFinite(grace) && grace >= 0 ? grace : 5000}});
  worker.unref();
  return true;
}

watchLauncher();

// The secret a launched group authenticates with. tfjs-wm-run hands every
// rank WM_RUN_SECRET in its environment (readable only by the same user).
// Launchers that know nothing of it (torchrun, mpirun) get a secret file:
// rank 0 writes random bytes to a 0600 file in a 0700 directory of this user,
// the other ranks of the host read it, and rank 0 removes it once every rank
// has joined. Ranks on other hosts need one secret on every host: WM_RUN_SECRET,
// or WM_RUN_SECRET_FILE naming a file only this user can read (on a cluster,
// one in the home directory every node mounts, written once with
// `(umask 077; openssl rand -hex 32 > ~/.tfjs-wm-secret)`).
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import {checkPrivate, privateDir} from '../util/private_files';

const SECRET_HEX = /^[0-9a-fA-F]{32,256}$/;

export function checkSecret(secret: string, where: string): string {
  if (!SECRET_HEX.test(secret) || secret.length % 2) {
    throw new Error(`${where} must be 32 to 256 hex digits (e.g. the output of \`openssl rand -hex 32\`)`);
  }
  return secret;
}

export function newSecret(): string {
  return crypto.randomBytes(32).toString('hex');
}

function secretFile(runId: string, port: number): string {
  return path.join(privateDir(), `run-${runId.replace(/[^A-Za-z0-9_.-]/g, '_')}-${port}.key`);
}

export interface GroupSecret {
  secret: string;
  /** Rank 0: removes the secret file, if one was written. */
  done(): void;
}

/** Sleeps without spinning (rank > 0 waits for rank 0's file). */
function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function groupSecret(env: NodeJS.ProcessEnv, rank: number, runId: string, port: number, timeoutMs: number): GroupSecret {
  const fromEnv = env.WM_RUN_SECRET;
  if (fromEnv) return {secret: checkSecret(fromEnv, 'WM_RUN_SECRET'), done: () => undefined};
  const given = env.WM_RUN_SECRET_FILE;
  if (given) {
    if (!fs.existsSync(given)) throw new Error(`WM_RUN_SECRET_FILE: ${given} does not exist`);
    checkPrivate(given, 'file'); // a secret other users can read authenticates nobody
    return {secret: checkSecret(fs.readFileSync(given, 'utf8').trim(), `WM_RUN_SECRET_FILE (${given})`), done: () => undefined};
  }
  const file = secretFile(runId, port);
  if (rank === 0) {
    const secret = newSecret();
    const tmp = `${file}.${process.pid}`;
    fs.writeFileSync(tmp, secret, {mode: 0o600, flag: 'wx'});
    fs.renameSync(tmp, file);
    return {secret, done: () => fs.rmSync(file, {force: true})};
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (fs.existsSync(file)) {
      checkPrivate(file, 'file');
      return {secret: checkSecret(fs.readFileSync(file, 'utf8').trim(), file), done: () => undefined};
    }
    if (Date.now() > deadline) {
      throw new Error(
        `communicatorFromEnv: no group secret: WM_RUN_SECRET is not set and rank 0 wrote no ${file} within ` +
          `${timeoutMs} ms. Start the ranks with tfjs-wm-run, or set WM_RUN_SECRET to the same random hex ` +
          '(e.g. `openssl rand -hex 32`) for every rank, or WM_RUN_SECRET_FILE to a file of it only you can read; ' +
          'ranks on other hosts always need one of them.',
      );
    }
    sleep(20);
  }
}

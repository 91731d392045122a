// Saves that several ranks make together (checkpoints, WholeMemory tensors) as one commit. Each save
// is a set folder `set-<step>-<id>` in which every rank writes its shard (under a temporary name,
// renamed when whole); once every rank has written, each writes COMMIT.json (atomically), which names
// the new set and the previous one, with every shard's step and digest. A load reads COMMIT.json
// first and only the sets it names: a save that a rank did not finish is never committed, and a set
// that does not agree across ranks (a rank's COMMIT.json older than another's, a shard that fails its
// check) is passed over, with a warning naming the ranks and steps, for the previous whole set. Sets no
// commit names are removed after the next commit. The folder must be trusted (trusted_files.ts).
import {randomBytes} from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import {deadTemps, ensureDir, holdsLiveTemp, tempName, writeFileAtomically} from './files';
import {trustedFolder, untrustedFileReason} from './trusted_files';

/** The part of a communicator a save needs (a process alone is a group of one). */
export interface SaveGroup {
  readonly rank: number;
  readonly size: number;
  allgatherJson<T>(mine: T, what?: string): T[];
}

export const SOLO: SaveGroup = {rank: 0, size: 1, allgatherJson: <T>(mine: T) => [mine]};

/** What a rank's shard says of itself in the commit: its step and a digest of its own manifest. */
export interface ShardRecord {
  step: number;
  digest: string;
}

interface CommittedSet {
  name: string;
  step: number;
  ranks: number;
  shards: ShardRecord[];
}

interface Commit {
  format: 1;
  /** Newest first: the set just saved, then the one before it. */
  sets: CommittedSet[];
}

const COMMIT_FILE = 'COMMIT.json';

/** Whether `dir` holds a commit (a save to load; loadSet still checks it whole). */
export function hasCommit(dir: string): boolean {
  return fs.existsSync(path.join(dir, COMMIT_FILE));
}
const SET_NAME = /^set-\d+-[0-9a-f]{16}$/;

function shardFolder(set: string, rank: number): string {
  return path.join(set, `rank-${rank}`);
}

/**
 * The sets the COMMIT.json of `dir` (a trusted folder's real path) names, newest first; [] when there is
 * none; throws when it is damaged or not a file only this user wrote.
 */
function readCommit(dir: string, what: string): CommittedSet[] {
  const file = path.join(dir, COMMIT_FILE);
  if (!fs.existsSync(file)) return [];
  const untrusted = untrustedFileReason(file);
  if (untrusted !== undefined) throw new Error(`${what}: refusing ${file}: ${untrusted}`);
  let c: Commit;
  try {
    c = JSON.parse(fs.readFileSync(file, 'utf8')) as Commit;
  } catch (e) {
    throw new Error(`${what}: ${file} is not valid JSON (${(e as Error).message})`);
  }
  const ok =
    c?.format === 1 &&
    Array.isArray(c.sets) &&
    c.sets.every(
      (s) =>
        typeof s?.name === 'string' &&
        SET_NAME.test(s.name) &&
        Number.isSafeInteger(s.step) &&
        Number.isSafeInteger(s.ranks) &&
        Array.isArray(s.shards) &&
        s.shards.length === s.ranks &&
        s.shards.every((r) => Number.isSafeInteger(r?.step) && typeof r.digest === 'string'),
    );
  if (!ok) throw new Error(`${what}: ${file} is not a commit record (damaged)`);
  return c.sets;
}

/** A set being saved: this rank writes its files into `folder`, then commits. */
export interface PendingSet {
  /** This rank's shard folder, made and empty (write durably: writeFileSynced). */
  readonly folder: string;
  /** Collective: the shard is whole; once every rank's is, the set is committed. */
  commit(record: ShardRecord): void;
  /** The save failed on this rank: its partial shard goes (the set is never committed). */
  abandon(): void;
}

/**
 * Collective: starts saving one set of `step` (by default the newest committed step + 1: a save count)
 * into `dir` (made 0700 if missing; it must be trusted).
 */
export function beginSet(dir: string, group: SaveGroup, what: string, step?: number): PendingSet {
  ensureDir(dir, what, 0o700);
  const real = trustedFolder(dir, what);
  const before = readCommit(real, what);
  const start = {id: randomBytes(8).toString('hex'), step: step ?? (before[0]?.step ?? 0) + 1};
  const {id, step: at} = group.allgatherJson(start, `${what} (start)`)[0];
  const set = path.join(real, `set-${at}-${id}`);
  try {
    fs.mkdirSync(set, {mode: 0o700});
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const final = shardFolder(set, group.rank);
  for (const t of deadTemps(final, 'tmp', true)) fs.rmSync(t, {recursive: true, force: true});
  const tmp = tempName(final, 'tmp');
  fs.mkdirSync(tmp, {mode: 0o700});
  return {
    folder: tmp,
    abandon: () => fs.rmSync(tmp, {recursive: true, force: true}),
    commit(mine: ShardRecord): void {
      fs.renameSync(tmp, final);
      // Every rank's shard is whole before any rank commits.
      const shards = group.allgatherJson(mine, `${what} (shards written)`);
      const sets = [{name: path.basename(set), step: at, ranks: group.size, shards}, ...before.slice(0, 1)];
      const commit: Commit = {format: 1, sets};
      writeFileAtomically(path.join(real, COMMIT_FILE), new TextEncoder().encode(JSON.stringify(commit, null, 1)));
      group.allgatherJson(0, `${what} (committed)`);
      const keep = new Set(sets.map((s) => s.name));
      // Sets no commit names: saves that never finished (a live saver's own, still being written, stay).
      for (const name of fs.readdirSync(real))
        if (SET_NAME.test(name) && !keep.has(name) && !holdsLiveTemp(path.join(real, name)))
          fs.rmSync(path.join(real, name), {recursive: true, force: true});
    },
  };
}

/**
 * Collective: loads the newest set every rank committed whose shards every rank reads back.
 * `readShard(folder, record)` reads and checks this rank's shard, changing nothing (it throws naming
 * the rule a file broke); the caller applies what it returns. Throws when no set passes, naming why.
 */
export function loadSet<T>(
  dir: string,
  group: SaveGroup,
  what: string,
  readShard: (folder: string, record: ShardRecord, set: CommittedSet) => T,
): {step: number; value: T} {
  let mine: CommittedSet[] = [];
  let error = '';
  try {
    if (!fs.existsSync(dir)) throw new Error(`${what}: ${dir} does not exist`);
    const real = trustedFolder(dir, what);
    mine = readCommit(real, what);
    if (!mine.length) throw new Error(`${what}: ${dir} holds no committed save (no ${COMMIT_FILE})`);
    dir = real;
  } catch (e) {
    error = (e as Error).message;
  }
  const views = group.allgatherJson({error, sets: mine.map((s) => ({name: s.name, step: s.step}))}, `${what} (commits)`);
  const blocked = views.findIndex((v) => v.error);
  if (blocked >= 0) throw new Error(blocked === group.rank ? error : `${what}: rank ${blocked}: ${views[blocked].error}`);
  const newest = views.map((v) => v.sets[0]);
  if (newest.some((s) => s.name !== newest[0].name))
    warn(
      what,
      `the ranks' newest saves disagree (${newest.map((s, r) => `rank ${r} step ${s.step}`).join(', ')}); using the newest all of them hold`,
    );
  const common = mine.filter((s) => views.every((v) => v.sets.some((o) => o.name === s.name)));
  const why: string[] = [];
  for (const set of common) {
    let value: T | undefined;
    let failure = '';
    try {
      if (set.ranks !== group.size) throw new Error(`${what}: ${dir}: saved by ${set.ranks} rank(s), loading with ${group.size}`);
      value = readShard(shardFolder(path.join(dir, set.name), group.rank), set.shards[group.rank], set);
    } catch (e) {
      failure = (e as Error).message;
    }
    const failures = group.allgatherJson(failure, `${what} (read step ${set.step})`);
    const bad = failures.findIndex((f) => f !== '');
    if (bad < 0) return {step: set.step, value: value as T};
    // A save refused for its shape (ranks) is the caller's error, not a damaged set.
    if (set.ranks !== group.size) throw new Error(failures[bad]);
    why.push(`step ${set.step}: rank ${bad}: ${failures[bad]}`);
    if (set !== common[common.length - 1])
      warn(what, `the save of step ${set.step} is not whole (rank ${bad}: ${failures[bad]}); using the one before`);
  }
  throw new Error(
    `${what}: no save in ${dir} is whole on every rank (${why.length ? why.join('; ') : `newest: ${newest.map((s, r) => `rank ${r} step ${s.step}`).join(', ')}; none held by all`})`,
  );
}

function warn(what: string, line: string): void {
  process.emitWarning(`${what}: ${line}`, {code: 'WM_SAVE_NOT_WHOLE'});
}

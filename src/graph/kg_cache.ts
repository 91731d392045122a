// The binary cache of a knowledge graph read from the benchmarks' text files: each split's three id columns
// as raw int32 arrays with their digests, the entity and relation names as newline-separated text with its
// digest, and a manifest naming them with the source files' stamps (dataset_cache.ts). It lives in the
// dataset cache's place (cacheDirFor: only where no other user can write), under `kg/`. Any disagreement (a
// source changed, a file missing, truncated, of another owner, or failing its digest) and the folder is
// parsed again and the cache rewritten; what it holds is checked again as a parsed graph is.
import * as path from 'path';

import {
  ArrayFile,
  CacheManifest,
  cachedFile,
  cacheDigest,
  readDigestedBytes,
  readInt32File,
  readManifest,
  replaceCacheFolder,
  writeArrayFile,
  writeManifest,
} from './cache_files';
import {writeBytes} from '../util/files';
import {SourceStamp} from './dataset_cache';
import {NameTable} from './name_table';

// A knowledge graph as triples.ts has it (said here again, structurally: triples.ts reads through this module).
interface Columns {
  heads: Int32Array;
  relations: Int32Array;
  tails: Int32Array;
}
export interface CachedKg {
  numEntities: number;
  numRelations: number;
  train: Columns;
  valid: Columns;
  test: Columns;
  entityNames?: NameTable;
  relationNames?: NameTable;
}

// 2: names as read with the whitespace around each field trimmed (a cache of format 1 holds them untrimmed).
const FORMAT = 2;
const SUBDIR = 'kg';
const SPLITS = ['train', 'valid', 'test'] as const;

interface NamesFile {
  file: string;
  count: number;
  bytes: number;
  digest: string;
}

interface Manifest extends CacheManifest {
  numEntities: number;
  numRelations: number;
  splits: Record<(typeof SPLITS)[number], {heads: ArrayFile; relations: ArrayFile; tails: ArrayFile}>;
  names?: {entities: NamesFile; relations: NamesFile};
}

// Names a line each, as the table holds them (a name read from a line holds no newline), digested and written.
function writeNames(dir: string, file: string, names: NameTable): NamesFile {
  writeBytes(path.join(dir, file), names.bytes, 0o600);
  return {file, count: names.length, bytes: names.bytes.length, digest: cacheDigest(names.bytes)};
}

function readNames(dir: string, n: NamesFile): NameTable {
  const file = cachedFile(dir, n.file);
  const bytes = Buffer.allocUnsafe(n.bytes);
  readDigestedBytes(file, bytes, n.digest);
  return NameTable.fromLines(bytes, n.count, file);
}

/** Writes `kg` as the cache of its sources in `dir` (a trusted cache folder): built beside, then renamed in place. */
export function writeKgCache(dir: string, sources: SourceStamp[], kg: CachedKg): void {
  replaceCacheFolder(dir, SUBDIR, (tmp) => {
    const splits = {} as Manifest['splits'];
    for (const s of SPLITS) {
      const t = kg[s];
      splits[s] = {
        heads: writeArrayFile(tmp, `${s}-heads.i32`, t.heads),
        relations: writeArrayFile(tmp, `${s}-relations.i32`, t.relations),
        tails: writeArrayFile(tmp, `${s}-tails.i32`, t.tails),
      };
    }
    const manifest: Manifest = {
      format: FORMAT,
      sources,
      numEntities: kg.numEntities,
      numRelations: kg.numRelations,
      splits,
      ...(kg.entityNames && kg.relationNames
        ? {
            names: {
              entities: writeNames(tmp, 'entities.txt', kg.entityNames),
              relations: writeNames(tmp, 'relations.txt', kg.relationNames),
            },
          }
        : {}),
    };
    writeManifest(tmp, manifest);
  });
}

/**
 * The knowledge graph the cache in `dir` holds for these sources, or why it is not used; `check` judges it
 * as a parsed graph is judged (it throws on a count or an id out of range).
 */
export function readKgCache(dir: string, sources: SourceStamp[], check: (kg: CachedKg) => void): {value: CachedKg} | {why: string} {
  const root = path.join(dir, SUBDIR);
  try {
    const read = readManifest<Manifest>(root, FORMAT, sources);
    if ('why' in read) return read;
    const m = read.manifest;
    const ids = (a: ArrayFile) => readInt32File(root, a);
    const split = (s: (typeof SPLITS)[number]): Columns => ({
      heads: ids(m.splits[s].heads),
      relations: ids(m.splits[s].relations),
      tails: ids(m.splits[s].tails),
    });
    const kg: CachedKg = {
      numEntities: m.numEntities,
      numRelations: m.numRelations,
      train: split('train'),
      valid: split('valid'),
      test: split('test'),
      ...(m.names ? {entityNames: readNames(root, m.names.entities), relationNames: readNames(root, m.names.relations)} : {}),
    };
    // Every count and id checked again, as a parsed graph's are.
    check(kg);
    if (kg.entityNames && (kg.entityNames.length !== kg.numEntities || kg.relationNames!.length !== kg.numRelations))
      throw new Error(`the names do not match the counts (${kg.numEntities} entities, ${kg.numRelations} relations)`);
    return {value: kg};
  } catch (e) {
    return {why: `${root}: ${(e as Error).message}`};
  }
}

// Knowledge graphs as (head, relation, tail) triples: the benchmarks' text format (`train.txt`,
// `valid.txt`, `test.txt`, one `head<TAB>relation<TAB>tail` a line, names mapped to ids in the order
// they are first seen, or by `entities.dict` / `relations.dict` (`id<TAB>name`) where the folder has
// them), read natively (wm/kg_text.h: names interned in native memory, columns never in the JavaScript heap)
// through the binary cache, the name maps written beside a model and read back, and the checks
// every consumer relies on.
import * as fs from 'fs';
import * as path from 'path';

import {readChunks} from '../data/lines';
import type {NativeKgText} from '../native/addon';
import {dataNative} from '../native/domains';
import {writeFileInPieces} from '../util/files';
import {throughCache} from './dataset_cache';
import {readKgCache, writeKgCache} from './kg_cache';
import {NameTable} from './name_table';

/** Triples as three aligned int32 columns. */
export interface Triples {
  heads: Int32Array;
  relations: Int32Array;
  tails: Int32Array;
}

export interface KnowledgeGraph {
  numEntities: number;
  numRelations: number;
  train: Triples;
  valid: Triples;
  test: Triples;
  /** Names by id, where the graph came from named text. */
  entityNames?: NameTable;
  relationNames?: NameTable;
}

export const SPLIT_FILES = ['train.txt', 'valid.txt', 'test.txt'] as const;

export function tripleCount(t: Triples): number {
  return t.heads.length;
}

export function emptyTriples(): Triples {
  return {heads: new Int32Array(0), relations: new Int32Array(0), tails: new Int32Array(0)};
}

/** Triples from three equally long columns of ids, checked against the counts (`what` names the caller). */
export function checkTriples(t: Triples, numEntities: number, numRelations: number, what: string): void {
  const n = t.heads?.length;
  for (const k of ['heads', 'relations', 'tails'] as const) {
    if (!(t[k] instanceof Int32Array)) throw new TypeError(`${what}: ${k} must be an Int32Array`);
    if (t[k].length !== n)
      throw new RangeError(`${what}: heads, relations and tails must be equally long, got ${n}, ${t.relations.length}, ${t.tails.length}`);
  }
  for (const [k, limit, noun] of [
    ['heads', numEntities, 'entity'],
    ['tails', numEntities, 'entity'],
    ['relations', numRelations, 'relation'],
  ] as const) {
    const a = t[k];
    for (let i = 0; i < a.length; ++i) {
      if (a[i] < 0 || a[i] >= limit) throw new RangeError(`${what}: ${k}[${i}] = ${a[i]} is not an ${noun} id in [0, ${limit})`);
    }
  }
}

/** The knowledge graph's counts and every split checked against them. */
export function checkKnowledgeGraph(kg: KnowledgeGraph, what: string): void {
  for (const k of ['numEntities', 'numRelations'] as const) {
    if (!Number.isInteger(kg[k]) || kg[k] < 1 || kg[k] > 2 ** 31 - 1)
      throw new RangeError(`${what}: ${k} must be an integer in [1, 2^31), got ${kg[k]}`);
  }
  for (const s of ['train', 'valid', 'test'] as const) checkTriples(kg[s], kg.numEntities, kg.numRelations, `${what} (${s})`);
  if (tripleCount(kg.train) === 0) throw new RangeError(`${what}: the training split holds no triples`);
}

/**
 * The fields of one line: tab-separated, or separated by runs of spaces where the line has no tab; the whitespace
 * around each field is not part of it (a trailing space or tab would otherwise make another entity, or a fourth field).
 * The native reader (wm/kg_text.h) splits the files' lines so; this splits a line typed by hand (a query).
 */
export function tripleFields(line: string): string[] {
  const t = line.trim();
  return t.includes('\t') ? t.split('\t').map((f) => f.trim()) : t.split(/\s+/);
}

/** Feeds `file` (inflated when it ends in .gz) to the reader as `kind`; the rows of a triple file. */
async function readInto(reader: NativeKgText, file: string, kind: 'triples' | 'entities' | 'relations'): Promise<number> {
  reader.begin(file, kind);
  for await (const chunk of readChunks(file)) reader.push(chunk);
  return reader.finish();
}

/** The names the reader holds, by id. */
function namesOf(reader: NativeKgText, which: 'entities' | 'relations'): NameTable {
  const n = reader.names(which);
  return new NameTable(n.bytes, n.starts);
}

/** A triple file's three columns, read through the reader's names (which grow unless a dictionary fixed them). */
async function readTripleFile(reader: NativeKgText, file: string): Promise<Triples> {
  await readInto(reader, file, 'triples');
  const column = (k: number) => reader.column(k).view() as Int32Array;
  return {heads: column(0), relations: column(1), tails: column(2)};
}

export interface ReadKnowledgeGraphOptions {
  /**
   * Keep what was read in the binary cache, as loadDataset does (default: sources of 64 MiB or more), and
   * read it from there while the sources stand; a folder path puts the cache there (only a place no other
   * user can write is used).
   */
  cache?: boolean | string;
  /** What the reader is doing: the cache read, or not used (and why), or written. */
  onProgress?: (line: string) => void;
}

// Each split's file as the benchmarks name it, or with .tsv (DGL-KE's user-defined datasets).
const SPLIT_NAMES = SPLIT_FILES.map((f) => [f, f.replace(/\.txt$/, '.tsv')]);

/** The files a knowledge-graph folder may hold (relative names), for their stamps. */
const SOURCE_FILES = [...SPLIT_NAMES.flat(), 'entities.dict', 'relations.dict'].flatMap((f) => [f, `${f}.gz`]);

/**
 * A knowledge graph from a folder of the benchmarks' text files: `train.txt` (required), `valid.txt`
 * and `test.txt` (each optional; also as `.tsv`, either also as `.gz`; one file a split). Names become ids
 * in the order first seen (train first), unless the folder has `entities.dict` and `relations.dict`, which
 * then fix them. A line
 * that is not three fields, or a name not in a dictionary, is refused naming the file and line.
 * Through the binary cache (`options.cache`): the next read maps the ids and names back while every
 * source file stands.
 */
export async function readKnowledgeGraph(dir: string, options: ReadKnowledgeGraphOptions = {}): Promise<KnowledgeGraph> {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new Error(`readKnowledgeGraph: ${dir} is not a folder`);
  const what = `readKnowledgeGraph(${dir})`;
  return throughCache({
    what: 'readKnowledgeGraph',
    folder: dir,
    files: SOURCE_FILES,
    cache: options.cache,
    say: options.onProgress ?? (() => {}),
    read: (cacheDir, sources) => readKgCache(cacheDir, sources, (kg) => checkKnowledgeGraph(kg, what)),
    parse: () => parseKnowledgeGraph(dir, what),
    write: writeKgCache,
  });
}

async function parseKnowledgeGraph(dir: string, what: string): Promise<KnowledgeGraph> {
  // The files among `names` (each also gzip'd) the folder has.
  const present = (...names: string[]) =>
    names.flatMap((n) => [path.join(dir, n), path.join(dir, n + '.gz')]).filter((f) => fs.existsSync(f));
  const files = SPLIT_NAMES.map((names) => {
    const found = present(...names);
    if (found.length > 1)
      throw new Error(`readKnowledgeGraph: ${dir} has ${found.map((f) => path.basename(f)).join(' and ')}: one file a split`);
    return found[0];
  });
  if (!files[0]) throw new Error(`readKnowledgeGraph: ${dir} has no train.txt or train.tsv (one 'head<TAB>relation<TAB>tail' a line)`);
  const entDict = present('entities.dict')[0],
    relDict = present('relations.dict')[0];
  if ((entDict === undefined) !== (relDict === undefined))
    throw new Error(
      `readKnowledgeGraph: ${dir} has ${entDict ? 'entities.dict' : 'relations.dict'} without ${entDict ? 'relations.dict' : 'entities.dict'}; give both or neither`,
    );
  const reader = dataNative().kgText();
  if (entDict) await readInto(reader, entDict, 'entities');
  if (relDict) await readInto(reader, relDict, 'relations');
  const splits: Triples[] = [];
  for (const f of files) splits.push(f ? await readTripleFile(reader, f) : emptyTriples());
  if (tripleCount(splits[0]) === 0)
    throw new Error(`readKnowledgeGraph: ${files[0]} holds no triples (one 'head<TAB>relation<TAB>tail' a line)`);
  const entityNames = namesOf(reader, 'entities'),
    relationNames = namesOf(reader, 'relations');
  const kg: KnowledgeGraph = {
    numEntities: entityNames.length,
    numRelations: relationNames.length,
    train: splits[0],
    valid: splits[1],
    test: splits[2],
    entityNames,
    relationNames,
  };
  checkKnowledgeGraph(kg, what);
  return kg;
}

// Name-map lines built per slice of ids: one buffer of every line would pass Node's buffer limit on a large graph.
const NAMES_PER_SLICE = 1 << 20;

/** `id<TAB>name` lines for ids [first, first + count), ids standing for names where there are none. */
function nameLines(names: NameTable | undefined, n: number, first: number): Buffer {
  const count = Math.min(NAMES_PER_SLICE, n - first);
  if (names) return names.dictionaryLines(first, count);
  return Buffer.from(Array.from({length: count}, (_, i) => `${first + i}\t${first + i}\n`).join(''));
}

function writeNameFile(file: string, names: NameTable | undefined, n: number): void {
  writeFileInPieces(file, (put) => {
    for (let first = 0; first < n; first += NAMES_PER_SLICE) put(nameLines(names, n, first));
  });
}

/** Writes `entities.tsv` and `relations.tsv` (`id<TAB>name`) into `dir`; ids stand for names where a graph has none. */
export function writeNameMaps(
  dir: string,
  kg: Pick<KnowledgeGraph, 'numEntities' | 'numRelations' | 'entityNames' | 'relationNames'>,
): void {
  writeNameFile(path.join(dir, 'entities.tsv'), kg.entityNames, kg.numEntities);
  writeNameFile(path.join(dir, 'relations.tsv'), kg.relationNames, kg.numRelations);
}

/** The name maps writeNameMaps wrote: names by id. */
export async function readNameMaps(dir: string): Promise<{entityNames: NameTable; relationNames: NameTable}> {
  const reader = dataNative().kgText();
  await readInto(reader, path.join(dir, 'entities.tsv'), 'entities');
  await readInto(reader, path.join(dir, 'relations.tsv'), 'relations');
  return {entityNames: namesOf(reader, 'entities'), relationNames: namesOf(reader, 'relations')};
}

/** Each (entity, relation) pair's known partners over the given splits, for filtered ranking. */
export class KnownPartners {
  // key: fixed * numRelations + relation (< 2^53 for any int32 ids), value: partner ids
  private readonly tails = new Map<number, number[]>();
  private readonly heads = new Map<number, number[]>();

  /**
   * The partners in `splits`; with `only`, just those of the listed queries (keys from
   * KnownPartners.key): one pass over the splits that holds only what those queries need, whatever
   * the graph's size.
   */
  constructor(
    readonly numRelations: number,
    splits: Triples[],
    only?: {tail: Set<number>; head: Set<number>},
  ) {
    for (const s of splits) {
      for (let i = 0; i < s.heads.length; ++i) {
        const r = s.relations[i];
        const tk = KnownPartners.key(s.heads[i], r, numRelations),
          hk = KnownPartners.key(s.tails[i], r, numRelations);
        if (!only || only.tail.has(tk)) push(this.tails, tk, s.tails[i]);
        if (!only || only.head.has(hk)) push(this.heads, hk, s.heads[i]);
      }
    }
  }

  /** The key of the query (fixed, relation, ?) or (?, relation, fixed). */
  static key(fixed: number, relation: number, numRelations: number): number {
    return fixed * numRelations + relation;
  }

  /** Known tails of (head, relation, ?) when side is 'tail'; known heads of (?, relation, tail) when 'head'. */
  of(side: 'head' | 'tail', fixed: number, relation: number): readonly number[] {
    return (side === 'tail' ? this.tails : this.heads).get(KnownPartners.key(fixed, relation, this.numRelations)) ?? [];
  }
}

function push(m: Map<number, number[]>, key: number, v: number): void {
  const l = m.get(key);
  if (l) l.push(v);
  else m.set(key, [v]);
}

// Knowledge graphs as (head, relation, tail) triples: the benchmarks' text format (`train.txt`,
// `valid.txt`, `test.txt`, one `head<TAB>relation<TAB>tail` a line, names mapped to ids in the order
// they are first seen, or by `entities.dict` / `relations.dict` (`id<TAB>name`) where the folder has
// them) through the binary cache, the name maps written beside a model and read back, and the checks
// every consumer relies on.
import * as fs from 'fs';
import * as path from 'path';

import {readLines} from '../data/lines';
import {writeFileAtomically} from '../util/files';
import {throughCache} from './dataset_cache';
import {readKgCache, writeKgCache} from './kg_cache';

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
  entityNames?: string[];
  relationNames?: string[];
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

// A JavaScript Map holds at most 2^24 entries; a graph's names (86M entities in Freebase) are spread over
// this many by a hash of the name.
const NAME_SHARDS = 64;

function nameShard(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; ++i) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return (h >>> 0) % NAME_SHARDS;
}

/** Names to ids, in the order first seen, or fixed by a dictionary file. */
class NameMap {
  private readonly shards = Array.from({length: NAME_SHARDS}, () => new Map<string, number>());
  readonly names: string[] = [];
  constructor(
    readonly noun: string,
    readonly fixed: boolean,
  ) {}

  get(name: string): number | undefined {
    return this.shards[nameShard(name)].get(name);
  }

  set(name: string, id: number): void {
    this.shards[nameShard(name)].set(name, id);
  }

  id(name: string, file: string, lineNo: number): number {
    const found = this.get(name);
    if (found !== undefined) return found;
    if (this.fixed) throw new RangeError(`${file}:${lineNo}: ${this.noun} '${name}' is not in the ${this.noun} dictionary`);
    if (this.names.length === 2 ** 31 - 1) throw new RangeError(`${file}:${lineNo}: more than 2^31 - 1 ${this.noun} names`);
    this.set(name, this.names.length);
    this.names.push(name);
    return this.names.length - 1;
  }
}

/** An int32 column that grows by doubling (a number[] of hundreds of millions would take twice the memory and more). */
class IntColumn {
  private a = new Int32Array(1024);
  private n = 0;
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Int32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  take(): Int32Array {
    return this.a.slice(0, this.n);
  }
}

/**
 * The fields of one line: tab-separated, or separated by runs of spaces where the line has no tab; the whitespace
 * around each field is not part of it (a trailing space or tab would otherwise make another entity, or a fourth field).
 */
export function tripleFields(line: string): string[] {
  const t = line.trim();
  return t.includes('\t') ? t.split('\t').map((f) => f.trim()) : t.split(/\s+/);
}

/** `id<TAB>name` lines (RotatE's and DGL-KE's `entities.dict`): ids 0..n-1, each once, names distinct. */
async function readDictionary(file: string, noun: string): Promise<NameMap> {
  const m = new NameMap(noun, true);
  const byId: (string | undefined)[] = [];
  for await (const {line, lineNo} of readLines(file)) {
    if (line.trim() === '') continue;
    const f = tripleFields(line);
    if (f.length !== 2) throw new RangeError(`${file}:${lineNo}: a line must be 'id<TAB>name', got ${f.length} fields`);
    const id = Number(f[0]);
    if (!Number.isInteger(id) || id < 0 || id >= 2 ** 31 - 1)
      throw new RangeError(`${file}:${lineNo}: id '${f[0]}' is not a non-negative integer below 2^31 - 1`);
    if (byId[id] !== undefined) throw new RangeError(`${file}:${lineNo}: id ${id} is given twice`);
    if (m.get(f[1]) !== undefined) throw new RangeError(`${file}:${lineNo}: ${noun} '${f[1]}' is given twice`);
    byId[id] = f[1];
    m.set(f[1], id);
  }
  for (let i = 0; i < byId.length; ++i) {
    if (byId[i] === undefined) throw new RangeError(`${file}: ids must run from 0 without gaps; ${i} is missing`);
    m.names.push(byId[i]!);
  }
  if (m.names.length === 0) throw new RangeError(`${file}: no ${noun}s`);
  return m;
}

/** One split's triples, names mapped through the maps (which grow unless fixed). */
async function readTripleFile(file: string, entities: NameMap, relations: NameMap): Promise<Triples> {
  const h = new IntColumn(),
    r = new IntColumn(),
    t = new IntColumn();
  for await (const {line, lineNo} of readLines(file)) {
    if (line.trim() === '') continue;
    const f = tripleFields(line);
    if (f.length !== 3) throw new RangeError(`${file}:${lineNo}: a line must be 'head<TAB>relation<TAB>tail', got ${f.length} fields`);
    if (f.some((x) => x === '')) throw new RangeError(`${file}:${lineNo}: a field is empty`);
    h.push(entities.id(f[0], file, lineNo));
    r.push(relations.id(f[1], file, lineNo));
    t.push(entities.id(f[2], file, lineNo));
  }
  return {heads: h.take(), relations: r.take(), tails: t.take()};
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

/** The files a knowledge-graph folder may hold (relative names), for their stamps. */
const SOURCE_FILES = [...SPLIT_FILES, 'entities.dict', 'relations.dict'].flatMap((f) => [f, `${f}.gz`]);

/**
 * A knowledge graph from a folder of the benchmarks' text files: `train.txt` (required), `valid.txt`
 * and `test.txt` (each optional, also as `.gz`). Names become ids in the order first seen (train
 * first), unless the folder has `entities.dict` and `relations.dict`, which then fix them. A line
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
  const find = (name: string) => [path.join(dir, name), path.join(dir, name + '.gz')].find((f) => fs.existsSync(f));
  if (!find('train.txt')) throw new Error(`readKnowledgeGraph: ${dir} has no train.txt (one 'head<TAB>relation<TAB>tail' a line)`);
  const entDict = find('entities.dict'),
    relDict = find('relations.dict');
  if ((entDict === undefined) !== (relDict === undefined))
    throw new Error(
      `readKnowledgeGraph: ${dir} has ${entDict ? 'entities.dict' : 'relations.dict'} without ${entDict ? 'relations.dict' : 'entities.dict'}; give both or neither`,
    );
  const entities = entDict ? await readDictionary(entDict, 'entity') : new NameMap('entity', false);
  const relations = relDict ? await readDictionary(relDict, 'relation') : new NameMap('relation', false);
  const splits: Triples[] = [];
  for (const name of SPLIT_FILES) {
    const f = find(name);
    splits.push(f ? await readTripleFile(f, entities, relations) : emptyTriples());
  }
  const kg: KnowledgeGraph = {
    numEntities: entities.names.length,
    numRelations: relations.names.length,
    train: splits[0],
    valid: splits[1],
    test: splits[2],
    entityNames: entities.names,
    relationNames: relations.names,
  };
  checkKnowledgeGraph(kg, what);
  return kg;
}

/** Writes `entities.tsv` and `relations.tsv` (`id<TAB>name`) into `dir`; ids stand for names where a graph has none. */
export function writeNameMaps(
  dir: string,
  kg: Pick<KnowledgeGraph, 'numEntities' | 'numRelations' | 'entityNames' | 'relationNames'>,
): void {
  const text = (names: string[] | undefined, n: number) =>
    Buffer.from(Array.from({length: n}, (_, i) => `${i}\t${names ? names[i] : i}\n`).join(''));
  writeFileAtomically(path.join(dir, 'entities.tsv'), text(kg.entityNames, kg.numEntities));
  writeFileAtomically(path.join(dir, 'relations.tsv'), text(kg.relationNames, kg.numRelations));
}

/** The name maps writeNameMaps wrote: names by id. */
export async function readNameMaps(dir: string): Promise<{entityNames: string[]; relationNames: string[]}> {
  const e = await readDictionary(path.join(dir, 'entities.tsv'), 'entity');
  const r = await readDictionary(path.join(dir, 'relations.tsv'), 'relation');
  return {entityNames: e.names, relationNames: r.names};
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

// Generated knowledge graphs: Freebase-shaped ones at any size (freebaseShapedKg, drawn natively), and
// small ones with planted relation patterns (seeded), for tests and for the README's table of
// which model recovers which pattern. Each relation follows one pattern over random entity pairs; the
// held-out triples (valid, test) are ones the pattern implies from the training triples, so only a model
// that can express the pattern ranks them well:
//   symmetric      r(a, b) and r(b, a): one direction held out
//   inverse        r(a, b) iff r'(b, a): r' held out where r is in training
//   composition    r3 = r1 then r2 on a hidden grid: some r3 triples held out
//   antisymmetric  r(a, b) for a before b in a hidden order, never r(b, a): ranked like any relation
//   one-to-many    r(a, b_1..b_k): some of a's tails held out
import type {KnowledgeGraph, Triples} from './triples';
import {graphNative} from '../native/domains';
import {NameTable} from './name_table';
import {checkSeed, randInt, seededRng} from '../util/random';

export type RelationPattern = 'symmetric' | 'inverse' | 'composition' | 'antisymmetric' | 'oneToMany';
export const RELATION_PATTERNS: readonly RelationPattern[] = ['symmetric', 'inverse', 'composition', 'antisymmetric', 'oneToMany'];

export interface PatternedKgOptions {
  entities?: number;
  /** Pairs per pattern relation. */
  pairs?: number;
  /** The share of implied triples held out (half valid, half test). */
  heldOut?: number;
  patterns?: readonly RelationPattern[];
  seed?: number;
}

export interface PatternedKg extends KnowledgeGraph {
  /** Each relation's pattern, by relation id. */
  relationPatterns: RelationPattern[];
  /** The relation ids whose test triples each pattern implies. */
  testRelations: {[p in RelationPattern]?: number};
}

/** A seeded knowledge graph with one group of relations per pattern (see the file comment). */
export function patternedKg(o: PatternedKgOptions = {}): PatternedKg {
  const entities = o.entities ?? 300,
    pairs = o.pairs ?? 300,
    heldOut = o.heldOut ?? 0.2;
  if (!Number.isInteger(entities) || entities < 8) throw new RangeError(`patternedKg: entities must be an integer >= 8, got ${o.entities}`);
  if (!Number.isInteger(pairs) || pairs < 4 || pairs > entities)
    throw new RangeError(`patternedKg: pairs must be an integer in [4, entities], got ${o.pairs}`);
  if (!(heldOut > 0 && heldOut < 1)) throw new RangeError(`patternedKg: heldOut must be in (0, 1), got ${o.heldOut}`);
  const patterns = o.patterns ?? RELATION_PATTERNS;
  for (const p of patterns)
    if (!RELATION_PATTERNS.includes(p)) throw new RangeError(`patternedKg: unknown pattern '${p}'; known: ${RELATION_PATTERNS.join(', ')}`);
  const rng = seededRng((o.seed ?? 0) * 65537 + 29);
  const split = {train: [] as number[][], valid: [] as number[][], test: [] as number[][]};
  const relationPatterns: RelationPattern[] = [];
  const testRelations: PatternedKg['testRelations'] = {};
  const relation = (p: RelationPattern) => relationPatterns.push(p) - 1;
  const held = (t: number[]) => {
    const u = rng();
    (u < heldOut / 2 ? split.valid : u < heldOut ? split.test : split.train).push(t);
  };
  const randomPairs = () => {
    const seen = new Set<number>(),
      out: [number, number][] = [];
    while (out.length < pairs) {
      const a = randInt(rng, entities),
        b = randInt(rng, entities);
      if (a === b || seen.has(a * entities + b) || seen.has(b * entities + a)) continue;
      seen.add(a * entities + b);
      out.push([a, b]);
    }
    return out;
  };
  // A random function on the entities without fixed points (composition's and one-to-many's base).
  const permutation = () => {
    const p = Int32Array.from({length: entities}, (_, i) => i);
    for (let i = entities - 1; i > 0; --i) {
      const j = randInt(rng, i);
      [p[i], p[j]] = [p[j], p[i]];
    }
    return p;
  };
  for (const p of patterns) {
    if (p === 'symmetric') {
      const r = relation(p);
      testRelations[p] = r;
      for (const [a, b] of randomPairs()) {
        split.train.push([a, r, b]);
        held([b, r, a]);
      }
    } else if (p === 'inverse') {
      const r = relation(p),
        inv = relation(p);
      testRelations[p] = inv;
      for (const [a, b] of randomPairs()) {
        split.train.push([a, r, b]);
        held([b, inv, a]);
      }
    } else if (p === 'composition') {
      // Entities on a hidden m x m grid: r1 steps right, r2 steps up, r3 steps diagonally (a consistent
      // composition, which translations and rotations express).
      const r1 = relation(p),
        r2 = relation(p),
        r3 = relation(p);
      testRelations[p] = r3;
      const m = Math.min(Math.floor(Math.sqrt(entities)), Math.ceil(Math.sqrt(pairs)) + 1);
      const cell = permutation(); // grid cell (x, y) is entity cell[x * m + y]
      const at = (x: number, y: number) => cell[x * m + y];
      for (let x = 0; x < m; ++x) {
        for (let y = 0; y < m; ++y) {
          if (x + 1 < m) split.train.push([at(x, y), r1, at(x + 1, y)]);
          if (y + 1 < m) split.train.push([at(x, y), r2, at(x, y + 1)]);
          if (x + 1 < m && y + 1 < m) held([at(x, y), r3, at(x + 1, y + 1)]);
        }
      }
    } else if (p === 'antisymmetric') {
      const r = relation(p);
      testRelations[p] = r;
      const order = permutation(); // rank of each entity in the hidden order
      for (const [a, b] of randomPairs()) {
        const [x, y] = order[a] < order[b] ? [a, b] : [b, a];
        held([x, r, y]);
      }
    } else {
      const r = relation(p);
      testRelations[p] = r;
      const k = 4,
        heads = permutation().subarray(0, Math.max(1, Math.floor(pairs / k)));
      for (const a of heads) {
        const tails = new Set<number>();
        while (tails.size < k) {
          const b = randInt(rng, entities);
          if (b !== a) tails.add(b);
        }
        for (const b of tails) held([a, r, b]);
      }
    }
  }
  const triples = (l: number[][]): Triples => ({
    heads: Int32Array.from(l, (t) => t[0]),
    relations: Int32Array.from(l, (t) => t[1]),
    tails: Int32Array.from(l, (t) => t[2]),
  });
  return {
    numEntities: entities,
    numRelations: relationPatterns.length,
    train: triples(split.train),
    valid: triples(split.valid),
    test: triples(split.test),
    relationNames: NameTable.fromArray(relationPatterns.map((p, i) => `${p}_${i}`)),
    relationPatterns,
    testRelations,
  };
}

/** The triples of `t` whose relation is `relation`. */
export function triplesOf(t: Triples, relation: number): Triples {
  const keep = Array.from(t.relations.keys()).filter((i) => t.relations[i] === relation);
  return {
    heads: Int32Array.from(keep, (i) => t.heads[i]),
    relations: Int32Array.from(keep, (i) => t.relations[i]),
    tails: Int32Array.from(keep, (i) => t.tails[i]),
  };
}

export interface FreebaseShapedOptions {
  /** Freebase (DGL-KE's full set): 86,054,151 entities, 14,824 relations, 338,586,276 triples. */
  entities: number;
  relations: number;
  /** Training triples; validTriples and testTriples more are drawn after them. */
  triples: number;
  validTriples?: number;
  testTriples?: number;
  /** Entity skew: an entity's rank is floor(entities * u^skew); 1 is uniform (default 3: heavy-tailed degrees). */
  skew?: number;
  /** Zipf exponent of the relation frequencies (default 1.1). */
  exponent?: number;
  seed?: number;
}

/**
 * A knowledge graph shaped like Freebase at any size, drawn natively on every core from counter-based
 * hashes (native/src/graph/kg_triples.cc): Zipf relation frequencies, heavy-tailed entity degrees, the
 * tail never the head. The same options give the same triples on any machine.
 */
export function freebaseShapedKg(o: FreebaseShapedOptions): KnowledgeGraph {
  const valid = o.validTriples ?? 0,
    test = o.testTriples ?? 0;
  for (const [k, v] of [
    ['triples', o.triples],
    ['validTriples', valid],
    ['testTriples', test],
  ] as const) {
    if (!Number.isSafeInteger(v) || v < 0 || v > 2 ** 31 - 1)
      throw new RangeError(`freebaseShapedKg: ${k} must be an integer in [0, 2^31), got ${v}`);
  }
  if (o.triples < 1) throw new RangeError(`freebaseShapedKg: triples must be at least 1, got ${o.triples}`);
  const draw = (first: number, count: number): Triples => {
    const t = {heads: new Int32Array(count), relations: new Int32Array(count), tails: new Int32Array(count)};
    graphNative().kgTriples(
      o.entities,
      o.relations,
      first,
      count,
      checkSeed('freebaseShapedKg', o.seed ?? 0),
      o.skew ?? 3,
      o.exponent ?? 1.1,
      t.heads,
      t.relations,
      t.tails,
    );
    return t;
  };
  return {
    numEntities: o.entities,
    numRelations: o.relations,
    train: draw(0, o.triples),
    valid: draw(o.triples, valid),
    test: draw(o.triples + valid, test),
  };
}

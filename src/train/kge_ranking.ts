// Link prediction's ranking protocol for knowledge graphs: each triple (h, r, t) is turned into two
// queries, (h, r, ?) and (?, r, t), and the true entity is ranked against every entity. Filtered (the
// benchmarks' setting): other entities that complete a known triple (of the splits given as the filter)
// are left out. The rank counts the true entity and every other entity that scores at least as high
// (a tie counts against the model, so a model that scores everything alike ranks last). The queries'
// scores against all entities are made a block of entities at a time.
import * as tf from '@tensorflow/tfjs-core';

import {KnownPartners, Triples, checkTriples, tripleCount} from '../graph/triples';
import {deviceStatus} from '../native/device';
import {groupScores, groupScoresPairBytes} from '../nn/kge/group_scores';
import type {KgeModel, KgeSide} from '../nn/kge/kge_model';
import {seededRng, shuffle} from '../util/random';

export interface RankingOptions {
  /** Splits whose triples are filtered out of each ranking (default: none, the raw ranking). */
  filter?: Triples[];
  /** Rank a seeded sample of this many triples (still against all entities); default all. */
  maxTriples?: number;
  seed?: number;
  /** Which queries each triple makes (default both). */
  sides?: KgeSide[];
  /** Bytes of scores in flight per block (default 256 MiB on a GPU; 4 MiB on the CPU, where blocks that stay in cache rank 3x faster). */
  blockBytes?: number;
  /**
   * Bytes of candidate entity rows (float32) read from the table at a time and scored a block at a time (default 256
   * MiB on a GPU, 16 MiB on the CPU): few reads, since a read of a table shared by ranks is a collective.
   */
  readBytes?: number;
}

export interface RankingMetrics {
  /** Mean reciprocal rank. */
  mrr: number;
  meanRank: number;
  hits1: number;
  hits3: number;
  hits10: number;
  /** Queries ranked (triples x sides). */
  queries: number;
}

/** The metrics of a list of ranks (1 = first). */
export function rankMetrics(ranks: ArrayLike<number>): RankingMetrics {
  const n = ranks.length;
  let rr = 0,
    sum = 0,
    h1 = 0,
    h3 = 0,
    h10 = 0;
  for (let i = 0; i < n; ++i) {
    const r = ranks[i];
    rr += 1 / r;
    sum += r;
    if (r <= 1) ++h1;
    if (r <= 3) ++h3;
    if (r <= 10) ++h10;
  }
  const d = Math.max(n, 1);
  return {mrr: rr / d, meanRank: sum / d, hits1: h1 / d, hits3: h3 / d, hits10: h10 / d, queries: n};
}

/** The picked triples' positions: all, or a seeded sample of maxTriples. */
function picked(n: number, o: RankingOptions): Int32Array {
  const all = Int32Array.from({length: n}, (_, i) => i);
  if (o.maxTriples === undefined || o.maxTriples >= n) return all;
  if (!Number.isInteger(o.maxTriples) || o.maxTriples < 1)
    throw new RangeError(`rankTriples: maxTriples must be a positive integer, got ${o.maxTriples}`);
  return shuffle(all, seededRng(o.seed ?? 0))
    .slice(0, o.maxTriples)
    .sort();
}

/** Each triple's rank for each side (side by side: all tail queries, then all head queries). */
export function rankTriples(model: KgeModel, triples: Triples, o: RankingOptions = {}): Float64Array {
  const {numEntities: entities, numRelations} = model.config;
  checkTriples(triples, entities, numRelations, 'rankTriples');
  const sides = o.sides ?? ['tail', 'head'];
  for (const s of sides) if (s !== 'tail' && s !== 'head') throw new RangeError(`rankTriples: sides must be 'tail' or 'head', got ${s}`);
  const budget = o.blockBytes ?? (deviceStatus().gpu ? 256 << 20 : 4 << 20);
  if (!(budget >= 1 << 16)) throw new RangeError(`rankTriples: blockBytes must be at least 65536, got ${o.blockBytes}`);
  const readBytes = o.readBytes ?? (deviceStatus().gpu ? 256 << 20 : 16 << 20);
  if (!(readBytes >= 4 * model.entity.dim))
    throw new RangeError(`rankTriples: readBytes must hold at least one row (${4 * model.entity.dim} bytes), got ${o.readBytes}`);
  const which = picked(tripleCount(triples), o);
  // The filter holds the partners of the ranked queries only: one pass over the splits, memory for what is asked.
  const wanted = {tail: new Set<number>(), head: new Set<number>()};
  for (const i of which) {
    wanted.tail.add(KnownPartners.key(triples.heads[i], triples.relations[i], numRelations));
    wanted.head.add(KnownPartners.key(triples.tails[i], triples.relations[i], numRelations));
  }
  const known = new KnownPartners(numRelations, o.filter ?? [], wanted);
  const q = which.length;
  const out = new Float64Array(q * sides.length);
  if (q === 0) return out;
  const width = model.entity.dim;
  const pairBytes = 4 + groupScoresPairBytes(model);
  // Queries per batch and entities per block: a batch's scores against a block within the budget.
  const batch = Math.max(1, Math.min(q, Math.floor(Math.sqrt(budget / pairBytes))));
  const block = Math.max(1, Math.min(entities, Math.floor(budget / (pairBytes * batch))));
  const span = Math.min(entities, Math.floor(readBytes / (4 * width)));
  sides.forEach((side, si) => {
    const fixed = Int32Array.from(which, (i) => (side === 'tail' ? triples.heads[i] : triples.tails[i]));
    const own = Int32Array.from(which, (i) => (side === 'tail' ? triples.tails[i] : triples.heads[i]));
    const rel = Int32Array.from(which, (i) => triples.relations[i]);
    const queries = tf.tidy(() => model.query(model.entity.read(fixed) as tf.Tensor2D, model.relation.read(rel) as tf.Tensor2D, side));
    // Each batch's left-out (row, entity) pairs, sorted by entity: the true entity and the filter's.
    const excluded: {rows: Int32Array; ents: Int32Array}[] = [];
    for (let b0 = 0; b0 < q; b0 += batch) {
      const pairs: [number, number][] = [];
      for (let i = b0; i < Math.min(q, b0 + batch); ++i) {
        pairs.push([i - b0, own[i]]);
        for (const e of known.of(side, fixed[i], rel[i])) if (e !== own[i]) pairs.push([i - b0, e]);
      }
      pairs.sort((a, b) => a[1] - b[1]);
      excluded.push({rows: Int32Array.from(pairs, (p) => p[0]), ents: Int32Array.from(pairs, (p) => p[1])});
    }
    // The true entity's score is read from the same block of scores the others come from (one
    // computation, so rounding cannot move the truth against its own row): a first pass over the
    // blocks takes each truth, the second counts the entities at least as high.
    const truth = new Float32Array(q);
    const counts = new Float64Array(q);
    // One block's scores for every batch of queries: each truth's score, or the count at least as high.
    const scoreBlock = (pass: 'truth' | 'count', truths: tf.Tensor1D | undefined, cands: tf.Tensor2D, e0: number, m: number) =>
      excluded.forEach((ex, bi) => {
        const b0 = bi * batch,
          n = Math.min(batch, q - b0);
        const lo = lowerBound(ex.ents, e0),
          hi = lowerBound(ex.ents, e0 + m);
        const scores = () =>
          tf.reshape(
            groupScores(model, tf.reshape(tf.slice(queries, [b0, 0], [n, width]), [1, n, width]), tf.reshape(cands, [1, m, width])),
            [n, m],
          );
        if (pass === 'truth') {
          const mine = Array.from({length: n}, (_, i) => b0 + i).filter((i) => own[i] >= e0 && own[i] < e0 + m);
          if (mine.length === 0) return;
          const at = tf.tensor2d(Int32Array.from(mine.flatMap((i) => [i - b0, own[i] - e0])), [mine.length, 2], 'int32');
          const v = tf.tidy(() => tf.gatherND(scores(), at));
          v.dataSync().forEach((x, j) => (truth[mine[j]] = x));
          tf.dispose([at, v]);
          return;
        }
        const c = tf.tidy(() => {
          let atLeast = tf.greaterEqual(scores(), tf.reshape(tf.slice(truths!, [b0], [n]), [n, 1]));
          if (hi > lo) {
            const at = tf.tensor2d(
              Int32Array.from({length: 2 * (hi - lo)}, (_, k) => (k % 2 === 0 ? ex.rows[lo + (k >> 1)] : ex.ents[lo + (k >> 1)] - e0)),
              [hi - lo, 2],
              'int32',
            );
            atLeast = tf.logicalAnd(atLeast, tf.equal(tf.scatterND(at, tf.ones([hi - lo], 'int32'), [n, m]), 0));
          }
          return tf.sum(tf.cast(atLeast, 'int32'), 1);
        });
        const v = c.dataSync();
        c.dispose();
        for (let i = 0; i < n; ++i) counts[b0 + i] += v[i];
      });
    try {
      for (const pass of ['truth', 'count'] as const) {
        const truths = pass === 'count' ? tf.tensor1d(truth) : undefined;
        try {
          // Reads of `span` rows, each scored in blocks of up to `block`.
          for (let r0 = 0; r0 < entities; r0 += span) {
            const got = Math.min(span, entities - r0);
            const rows = model.entity.read(Int32Array.from({length: got}, (_, j) => r0 + j)) as tf.Tensor2D;
            try {
              for (let e0 = r0; e0 < r0 + got; e0 += block) {
                const m = Math.min(block, r0 + got - e0);
                const cands = m === got ? rows : (tf.slice(rows, [e0 - r0, 0], [m, width]) as tf.Tensor2D);
                try {
                  scoreBlock(pass, truths, cands, e0, m);
                } finally {
                  if (cands !== rows) cands.dispose();
                }
              }
            } finally {
              rows.dispose();
            }
          }
        } finally {
          truths?.dispose();
        }
      }
    } finally {
      queries.dispose();
    }
    for (let i = 0; i < q; ++i) out[si * q + i] = 1 + counts[i];
  });
  return out;
}

/** Filtered (or raw) ranking metrics of a model on triples: rankTriples' ranks summarised. */
export function evaluateKge(model: KgeModel, triples: Triples, o: RankingOptions = {}): RankingMetrics {
  return rankMetrics(rankTriples(model, triples, o));
}

function lowerBound(a: Int32Array, v: number): number {
  let lo = 0,
    hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// The row cache in front of an embedding table: a cached table gives exactly what the same table
// without a cache gives (reads, writes, every sparse optimizer step, exported state), whatever rows
// the cache holds and however often it changes; its counts equal the lookups' hits; its budget cuts
// the rows it keeps; what it refuses is refused by name. On a GPU the cache is GPU memory in front of
// pinned-host and managed tables; without one it is a host array, the same logic on the CPU core.
import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import type {NativeTable} from '../src/native/handles';
import {embeddingNative} from '../src/native/domains';
import {allBut} from '../src/nn/table/row_cache';
import {rng} from './helpers';

const DTYPES: wm.nn.EmbeddingDType[] = ['float32', 'float16', 'bfloat16'];
const memories = (): wm.nn.EmbeddingMemory[] => (wm.deviceInfo().gpu ? ['host', 'managed'] : ['host']);

function randomIds(n: number, rows: number, r: () => number): Int32Array {
  const ids = Int32Array.from({length: n}, () => Math.floor(r() * rows));
  if (n >= 3) {
    ids[0] = rows - 1;
    ids[1] = ids[2]; // a duplicate
  }
  return ids;
}

/** A random choice of k distinct rows, in random order. */
function someRows(rows: number, k: number, r: () => number): Int32Array {
  const all = Int32Array.from({length: rows}, (_, i) => i);
  for (let i = rows - 1; i > 0; --i) {
    const j = Math.floor(r() * (i + 1));
    [all[i], all[j]] = [all[j], all[i]];
  }
  return all.slice(0, k);
}

function readAll(t: wm.nn.Embedding): Float32Array {
  const x = t.read(Int32Array.from({length: t.rows}, (_, i) => i));
  const v = x.dataSync() as Float32Array;
  x.dispose();
  return v;
}

function expectSame(a: ArrayLike<number>, b: ArrayLike<number>, what: string): void {
  expect(a.length, `${what}: length`).to.equal(b.length);
  for (let i = 0; i < a.length; ++i) if (!Object.is(a[i], b[i])) expect.fail(`${what}: [${i}] = ${a[i]} with the cache, ${b[i]} without`);
}

describe('row cache', function () {
  this.timeout(120000);
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  it('knows a cache of every row but one run (a replica of the rows other ranks hold), and nothing else, as one', () => {
    const ids = (rows: number, keep: (r: number) => boolean) => Int32Array.from({length: rows}, (_, i) => i).filter(keep);
    expect(
      allBut(
        ids(10, (r) => r < 3 || r >= 7),
        10,
      ),
    ).to.deep.equal({exceptFirst: 3, exceptCount: 4});
    expect(
      allBut(
        ids(10, (r) => r >= 4),
        10,
      ),
    ).to.deep.equal({exceptFirst: 0, exceptCount: 4});
    expect(
      allBut(
        ids(10, (r) => r < 6),
        10,
      ),
    ).to.deep.equal({exceptFirst: 6, exceptCount: 4});
    expect(
      allBut(
        ids(10, () => true),
        10,
      ),
    ).to.deep.equal({exceptFirst: 10, exceptCount: 0});
    expect(allBut(new Int32Array(0), 10)).to.deep.equal({exceptFirst: 0, exceptCount: 10});
    expect(allBut(new Int32Array(0), 0)).to.deep.equal({exceptFirst: 0, exceptCount: 0});
    // Two gaps, or rows missing at both ends: a map.
    expect(
      allBut(
        ids(10, (r) => r !== 2 && r !== 5),
        10,
      ),
    ).to.deep.equal({});
    expect(
      allBut(
        ids(10, (r) => r > 0 && r < 9),
        10,
      ),
    ).to.deep.equal({});
    expect(
      allBut(
        ids(3001, (r) => r % 3 === 1),
        3001,
      ),
    ).to.deep.equal({});
  });

  it('ranks rows by count, hottest first, ties by id (counting sort against a plain sort)', () => {
    const r = rng(5);
    for (const [n, k, max] of [
      [0, 0, 10],
      [1, 1, 10],
      [1000, 100, 7],
      [1000, 1000, 50],
      [5000, 1234, 3_000_000], // counts past the counting sort's top bucket
      [300, 500, 2], // k past the rows
    ]) {
      const counts = Float64Array.from({length: n}, () => Math.floor(r() * r() * max));
      const want = Array.from({length: n}, (_, i) => i)
        .sort((a, b) => counts[b] - counts[a] || a - b)
        .slice(0, k);
      expect(Array.from(wm.nn.hottestRows(counts, k)), `n ${n}, k ${k}`).to.deep.equal(want);
      expect(Array.from(wm.nn.hottestRows(Int32Array.from(counts), k)), `n ${n}, k ${k}, Int32Array`).to.deep.equal(want);
    }
    // A run of rows left out (a rank's own rows of a shared table), at the start, the middle, past the end.
    const counts = Float64Array.from({length: 400}, () => Math.floor(r() * r() * 30));
    for (const [first, count, k] of [
      [0, 100, 50],
      [150, 100, 400],
      [350, 500, 20],
      [400, 10, 400],
      [0, 400, 5],
    ]) {
      const want = Array.from({length: 400}, (_, i) => i)
        .filter((i) => i < first || i >= first + count)
        .sort((a, b) => counts[b] - counts[a] || a - b)
        .slice(0, k);
      expect(Array.from(wm.nn.hottestRows(counts, k, {first, count})), `except ${first} + ${count}, k ${k}`).to.deep.equal(want);
    }
    expect(() => wm.nn.hottestRows([1, 2], 1, {first: -1, count: 1})).to.throw(/except must be \{first, count\} of non-negative integers/);
    expect(() => wm.nn.hottestRows([1, -1], 1)).to.throw(/counts\[1\] must be a finite non-negative number/);
    expect(() => wm.nn.hottestRows([1, 2], 1.5)).to.throw(/k must be a non-negative integer/);
  });

  it('the ops: a cached row is read, written and stepped in its slot, and goes back to the table when stored', () => {
    // Host bodies over typed arrays; the GPU runs the same through CachedTable (the GPU test below).
    const native = embeddingNative();
    const rows = 10,
      dim = 4;
    const array = Float32Array.from({length: rows * dim}, (_, i) => i);
    const table: NativeTable = {array, rows, dim, storage: 0};
    const hot = new Float32Array(2 * dim),
      slotOf = new Int32Array(rows).fill(-1);
    native.rowCacheLoad(table, Int32Array.of(7, 2), 2, hot, slotOf);
    expect(Array.from(hot)).to.deep.equal([28, 29, 30, 31, 8, 9, 10, 11]);
    expect(Array.from(slotOf)).to.deep.equal([-1, -1, 1, -1, -1, -1, -1, 0, -1, -1]);
    hot.fill(-5, 0, dim); // only the slot changes: reads must see it
    const cachedTable: NativeTable = {...table, cache: {hot, slotOf, slots: 2}};
    const out = new Float32Array(3 * dim);
    expect(native.embeddingGather(cachedTable, Int32Array.of(7, 3, 2), 0, 3, out, null)).to.equal(-1);
    expect(Array.from(out)).to.deep.equal([-5, -5, -5, -5, 12, 13, 14, 15, 8, 9, 10, 11]);
    native.embeddingWriteRows(cachedTable, Int32Array.of(2), 0, 1, Float32Array.of(1, 2, 3, 4), null);
    expect(Array.from(array.subarray(8, 12)), 'the table behind a cached row').to.deep.equal([8, 9, 10, 11]);
    expect(Array.from(hot.subarray(4, 8))).to.deep.equal([1, 2, 3, 4]);
    expect(native.rowCacheHits(slotOf, rows, Int32Array.of(7, 7, 0, 2, 9), 0, 5, null)).to.equal(3);
    native.rowCacheStore(table, Int32Array.of(7, 2), 2, hot);
    expect(Array.from(array.subarray(28, 32))).to.deep.equal([-5, -5, -5, -5]);
    expect(Array.from(array.subarray(8, 12))).to.deep.equal([1, 2, 3, 4]);
    // What the readers refuse.
    const g = (t: NativeTable) => native.embeddingGather(t, Int32Array.of(0), 0, 1, out, null);
    expect(() => g({...table, cache: {hot, slotOf: new Int32Array(3), slots: 2}})).to.throw(
      /argument 0 \(table\) \.cache\.slotOf must be an Int32Array of one entry per row/,
    );
    expect(() => g({...table, cache: {hot: new Float32Array(3), slotOf, slots: 2}})).to.throw(
      /\.cache\.hot holds fewer bytes than its slots need/,
    );
    expect(() => g({...table, cache: {hot: 1 << 20, slotOf: 1 << 21, slots: 2}})).to.throw(
      /\.cache must hold hot and slotOf where the table is/,
    );
    expect(() => native.rowCacheLoad(cachedTable, Int32Array.of(1), 1, hot, slotOf)).to.throw(
      /rowCacheLoad: argument 0 \(table\) must be the table behind the cache/,
    );
    expect(() => native.rowCacheLoad(table, Int32Array.of(10), 1, hot, slotOf)).to.throw(
      /row cache: id 10 at position 0 is outside the table's 10 rows/,
    );
    expect(() => native.rowCacheLoad(table, Int32Array.of(1), 1, new Uint16Array(8), slotOf)).to.throw(
      /argument 3 \(hot\) must be an array of 4-byte elements/,
    );
    expect(() => native.embeddingGather({array: new Float32Array(3), rows, dim, storage: 0}, Int32Array.of(0), 0, 1, out, null)).to.throw(
      /\.array holds fewer bytes than rows x dim elements/,
    );
  });

  for (const memory of memories()) {
    for (const dtype of DTYPES) {
      for (const dim of [3, 16]) {
        it(`${memory} ${dtype} dim ${dim}: reads, writes and Adam steps equal the uncached table's, bit for bit`, () => {
          const rows = 517;
          const r = rng(dim * 31 + DTYPES.indexOf(dtype));
          const make = () =>
            wm.nn.embedding({rows, dim, dtype, memory, optimizer: wm.nn.adam({lr: 0.05}), init: {type: 'normal', scale: 0.5, seed: 9}});
          const plain = make(),
            cached = make();
          try {
            let chosen = someRows(rows, 150, r);
            cached.cache({rows: chosen});
            const inCache = (set: Int32Array) => {
              const s = new Set(set);
              return (ids: Int32Array) => ids.reduce((h, id) => h + (s.has(id) ? 1 : 0), 0);
            };
            let hitsOf = inCache(chosen);
            let lookups = 0,
              hits = 0;
            expectSame(readAll(cached), readAll(plain), 'initial rows');
            lookups += rows;
            hits += 150;
            for (let step = 1; step <= 6; ++step) {
              const ids = randomIds(200, rows, r);
              const grads = tf.tensor2d(
                Float32Array.from({length: ids.length * dim}, () => r() * 2 - 1),
                [ids.length, dim],
              );
              plain.applyGradients(ids, grads);
              cached.applyGradients(ids, grads);
              grads.dispose();
              const wIds = randomIds(40, rows, r).filter((v, i, a) => a.indexOf(v) === i);
              const values = Float32Array.from({length: wIds.length * dim}, () => r() * 4 - 2);
              plain.write(wIds, values);
              cached.write(wIds, values);
              const some = randomIds(333, rows, r);
              const a = cached.read(some),
                b = plain.read(some);
              expectSame(a.dataSync(), b.dataSync(), `step ${step}: read`);
              tf.dispose([a, b]);
              lookups += some.length;
              hits += hitsOf(some);
              const st = cached.cacheStats()!;
              expect([st.lookups, st.hits, st.slots], `step ${step}: counts`).to.deep.equal([lookups, hits, 150]);
              if (step === 3) {
                // Other rows: the slots go back to the table first, then the new rows come in.
                chosen = someRows(rows, 150, r);
                cached.cache({rows: chosen});
                hitsOf = inCache(chosen);
                lookups = hits = 0;
              }
            }
            const x = cached.exportState(),
              y = plain.exportState();
            expectSame(x.rows, y.rows, 'exported rows');
            x.states.forEach((s, i) => expectSame(s, y.states[i], `exported state ${i}`));
            cached.cache(null);
            expect(cached.cacheStats()).to.equal(undefined);
            expectSame(readAll(cached), readAll(plain), 'after emptying the cache');
          } finally {
            plain.dispose();
            cached.dispose();
          }
        });
      }
    }

    it(`${memory}: large reads (hits from the slots, misses read in row order, sorted or not) equal the uncached table's; a bad index is named`, () => {
      const rows = 30_011,
        n = 20_000;
      for (const [dtype, dim] of [
        ['float16', 128],
        ['float32', 3],
        ['bfloat16', 16],
      ] as const) {
        const make = () => wm.nn.embedding({rows, dim, dtype, memory, init: {type: 'normal', seed: 5}});
        const plain = make(),
          cached = make();
        try {
          const r = rng(dim);
          // Made on the GPU where there is one (no host copy), so the kernel checks the ids.
          const idsOf = (ids: Int32Array) => tf.tidy(() => tf.add(tf.tensor1d(ids, 'int32'), tf.zerosLike(tf.tensor1d(ids, 'int32'))));
          // Most rows cached (misses below the sort's threshold), then few (thousands of misses, sorted).
          for (const share of [0.97, 0.2]) {
            cached.cache({rows: someRows(rows, Math.round(share * rows), r)});
            const ids = randomIds(n, rows, r);
            const idx = idsOf(ids);
            const a = cached.read(idx),
              b = plain.read(ids);
            expectSame(a.dataSync(), b.dataSync(), `${dtype} dim ${dim}, ${share} of rows cached`);
            tf.dispose([a, b, idx]);
            const bad = Int32Array.from(ids);
            bad[12_345] = rows + 7;
            const badIdx = idsOf(bad);
            expect(() => cached.read(badIdx)).to.throw(
              new RegExp(`index ${rows + 7} at position 12345 is outside the table's ${rows} rows`),
            );
            badIdx.dispose();
          }
        } finally {
          plain.dispose();
          cached.dispose();
        }
      }
    });

    it(`${memory}: reads come from the cache, not the table behind it, until the cache is emptied`, () => {
      const rows = 64,
        dim = 8;
      const t = wm.nn.embedding({rows, dim, memory, init: {type: 'normal', seed: 3}});
      try {
        const want = readAll(t);
        t.cache({rows: [5, 40]});
        // The table behind the cache (white box): overwrite row 5 there; the cache holds the row now.
        const inner = (t as unknown as {store: {table: NativeTable}}).store.table;
        const junk = new Float32Array(dim).fill(1234);
        if (inner.array) (inner.array as Float32Array).set(junk, 5 * dim);
        else embeddingNative().upload(inner.ptr! + 5 * dim * 4, junk);
        expectSame(readAll(t), want, 'rows read through the cache');
        t.cache(null); // the slots go back to the table
        expectSame(readAll(t), want, 'rows after the cache is emptied');
      } finally {
        t.dispose();
      }
    });

    it(`${memory}: a budget in bytes or as a share of the rows keeps the hottest rows first`, () => {
      const rows = 1000,
        dim = 8;
      const t = wm.nn.embedding({rows, dim, dtype: 'float16', memory, init: {seed: 4}});
      try {
        const ranking = Int32Array.from({length: rows}, (_, i) => rows - 1 - i);
        expect(t.cache({rows: ranking, fraction: 0.25})!.slots).to.equal(250);
        // 1000 rows x 4 bytes of map, then 16 + 4 bytes a slot
        const st = t.cache({rows: ranking, bytes: 4000 + 20 * 37 + 19})!;
        expect([st.slots, st.bytes]).to.deep.equal([37, 4000 + 20 * 37]);
        const got = t.read([rows - 1, rows - 37, rows - 38]);
        got.dispose();
        const s2 = t.cacheStats()!;
        expect([s2.lookups, s2.hits, s2.hitRate]).to.deep.equal([3, 2, 2 / 3]);
        t.resetCacheCounts();
        expect(t.cacheStats()!.lookups).to.equal(0);
      } finally {
        t.dispose();
      }
    });

    it(`${memory}: refusals name the rule, and the table is unchanged after them`, () => {
      const t = wm.nn.embedding({rows: 50, dim: 4, memory, init: {seed: 2}});
      try {
        const before = readAll(t);
        expect(() => t.cache({rows: [1, 2, 1]})).to.throw(/embedding.cache: row 1 is listed twice/);
        expect(() => t.cache({rows: [1, 50]})).to.throw(/embedding.cache: row 50 at position 1 is outside the table's 50 rows/);
        expect(() => t.cache({rows: [1], fraction: 1.5})).to.throw(/fraction must be in \[0, 1\]/);
        expect(() => t.cache({rows: [1], bytes: 100})).to.throw(/bytes must be a finite number of at least 200/);
        expect(() => t.cache({rows: [0.5]})).to.throw(/rows: indices\[0\] = 0.5 is not an integer id/);
        expect(t.cacheStats()).to.equal(undefined);
        expectSame(readAll(t), before, 'rows after the refusals');
      } finally {
        t.dispose();
      }
    });
  }

  it('training with a feature cache: the same losses and accuracies as without, and its hit rate per epoch', async () => {
    const data = wm.graph.csbm({vertices: 600, classes: 4, degree: 10, homophily: 0.8, features: 24, seed: 3});
    const memory: wm.nn.EmbeddingMemory = 'host';
    const opts = {
      inputs: 'features' as const,
      epochs: 3,
      seed: 1,
      embeddingMemory: memory,
      featureDtype: 'float16' as const,
      baselines: false,
    };
    const seen: wm.train.EpochMetrics[] = [];
    const plain = await wm.train.trainNodeClassification(data, opts);
    const cached = await wm.train.trainNodeClassification(data, {...opts, featureCache: 0.2}, (m) => seen.push(m));
    const pick = (r: typeof plain) => r.history.map((m) => [m.loss, m.trainAcc, m.valAcc, m.testAcc]);
    expect(pick(cached)).to.deep.equal(pick(plain));
    expect(seen.length).to.equal(3);
    for (const m of seen) {
      expect(m.cache!.lookups).to.be.greaterThan(0);
      expect(m.cache!.hitRate).to.equal(m.cache!.hits / m.cache!.lookups);
      expect(m.cache!.hitRate, 'a fifth of the rows cached: some reads hit, not all').to.be.within(0.05, 0.95);
    }
    expect(plain.history[0].cache).to.equal(undefined);
  });

  it('a cache given at creation; tables without one say why', () => {
    const t = wm.nn.embedding({rows: 20, dim: 2, memory: 'host', cache: {rows: [19, 3, 7]}, init: {seed: 1}});
    expect(t.cacheStats()!.slots).to.equal(3);
    t.dispose();
    const chunked = wm.nn.embedding({rows: 20, dim: 2, memory: 'chunked'});
    try {
      expect(() => chunked.cache({rows: [1]})).to.throw(
        /a cache goes in front of a 'host', 'managed', 'continuous' or 'hierarchical' table; this one is 'chunked'/,
      );
    } finally {
      chunked.dispose();
    }
    const distributed = wm.nn.embedding({rows: 20, dim: 2, memory: 'distributed'});
    try {
      expect(() => distributed.cache({rows: [1]})).to.throw(/this one is 'distributed' \(its rows move by collectives\)/);
    } finally {
      distributed.dispose();
    }
    // A continuous table's cache: the table is read-only while it holds rows, writable again once emptied.
    const shared = wm.nn.embedding({rows: 20, dim: 2, memory: 'continuous', cache: {rows: [4, 9]}, init: {seed: 2}});
    try {
      const before = readAll(shared);
      expect(shared.cacheStats()!.slots).to.equal(2);
      expect(() => shared.write([4], new Float32Array(2))).to.throw(/read-only here while it does; empty it first \(cache\(null\)\)/);
      shared.cache(null);
      expectSame(readAll(shared), before, 'rows after the cache is emptied');
      shared.write([4], new Float32Array([1, 2]));
      expect(Array.from(shared.read([4]).dataSync())).to.deep.equal([1, 2]);
    } finally {
      shared.dispose();
    }
    if (wm.deviceInfo().gpu) {
      const d = wm.nn.embedding({rows: 20, dim: 2, memory: 'device'});
      expect(() => d.cache({rows: [1]})).to.throw(/its rows are in GPU memory already/);
      d.dispose();
    }
  });
});

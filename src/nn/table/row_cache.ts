// A row cache in front of a contiguous table (wm::RowCache in wm/embedding.h): the hottest rows of a
// pinned-host or managed table kept in GPU memory. A cached row lives only in its slot (every gather,
// write and optimizer step reads and writes it there), so a trainable table stays exact with no
// write-through; emptying the cache copies the slots back. In front of continuous WholeMemory each rank's
// cache holds read-only copies (TableCache.shared). On a machine without a GPU the same logic runs on
// the CPU core over typed arrays, which is how the tests check it everywhere.
import type {WholeMemoryBackend} from '../../backend/backend_wholememory';
import type {NativeRowCache, NativeTable} from '../../native/handles';
import {checkCapacity} from '../../memory/capacity';
import {embeddingNative} from '../../native/domains';
import {deviceCounter, readCounter, resetCounter} from './device_counter';

/** The table's shape as the cache needs it (a CachedShape is one). */
export interface CachedShape {
  rows: number;
  dim: number;
  /** Bytes per stored element (4 or 2). */
  elementBytes: number;
}

/** What a cache holds and how it serves lookups. */
export interface CacheStats {
  /** Rows the cache holds. */
  slots: number;
  /** Bytes it takes: the rows, the row → slot map and the slots' row ids. */
  bytes: number;
  /** Rows looked up (gathers) since the cache was filled or its counts reset. */
  lookups: number;
  /** Of those, rows served from the cache. */
  hits: number;
  /** hits / lookups (0 before any lookup). */
  hitRate: number;
}

/** Bytes a cache of `slots` rows takes for a table of `rows` rows of `rowBytes`. */
export function cacheBytes(slots: number, rows: number, rowBytes: number): number {
  return slots * (rowBytes + 4) + rows * 4;
}

/**
 * The `k` rows with the highest counts (degrees, or how often a pre-sampling pass read each row),
 * hottest first, ties by row id: a counting sort, one pass over the counts for the histogram and
 * one to place (a 100M-row table ranks in about a second). `except`: a run of rows left out (a shared
 * table's `localRows()`: the rows a rank holds itself need no cache).
 */
export function hottestRows(
  counts: Int32Array | Uint32Array | Float64Array | ArrayLike<number>,
  k: number,
  except?: {first: number; count: number},
): Int32Array {
  const n = counts.length;
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`hottestRows: k must be a non-negative integer, got ${k}`);
  if (
    except !== undefined &&
    !(Number.isSafeInteger(except.first) && except.first >= 0 && Number.isSafeInteger(except.count) && except.count >= 0)
  )
    throw new RangeError(
      `hottestRows: except must be {first, count} of non-negative integers, got {first: ${except.first}, count: ${except.count}}`,
    );
  const lo = except ? Math.min(except.first, n) : 0,
    hi = except ? Math.min(except.first + except.count, n) : 0;
  k = Math.min(k, n - (hi - lo));
  // Counts at or above CAP share the top bucket and are ordered exactly among themselves afterwards.
  const CAP = 1 << 20;
  const hist = new Float64Array(CAP + 1);
  for (let i = 0; i < n; ++i) {
    const c = counts[i];
    if (!(c >= 0) || !Number.isFinite(c)) throw new RangeError(`hottestRows: counts[${i}] must be a finite non-negative number, got ${c}`);
    if (i < lo || i >= hi) ++hist[Math.min(Math.floor(c), CAP)];
  }
  // Start of each bucket in descending order, and the lowest bucket that still fits in k.
  const start = new Float64Array(CAP + 1);
  let at = 0,
    lowest = CAP;
  for (let b = CAP; b >= 0; --b) {
    start[b] = at;
    at += hist[b];
    lowest = b;
    if (at >= k) break;
  }
  const out = new Int32Array(Math.min(at, n));
  for (let i = 0; i < n; ++i) {
    if (i >= lo && i < hi) continue;
    const b = Math.min(Math.floor(counts[i]), CAP);
    if (b >= lowest) out[start[b]++] = i;
  }
  const top = hist[CAP];
  if (top > 1 && lowest <= CAP) {
    const head = Array.from(out.subarray(0, top)).sort((a, b) => counts[b] - counts[a] || a - b);
    out.set(head);
  }
  return out.subarray(0, k).slice();
}

/** Distinct row ids in [0, rows), checked (a duplicate would leave a stale slot behind). */
export function checkCacheIds(ids: Int32Array, rows: number, what: string): void {
  const seen = new Uint8Array(Math.ceil(rows / 8));
  for (let i = 0; i < ids.length; ++i) {
    const r = ids[i];
    if (!(r >= 0 && r < rows)) throw new RangeError(`${what}: row ${r} at position ${i} is outside the table's ${rows} rows`);
    if (seen[r >> 3] & (1 << (r & 7))) throw new RangeError(`${what}: row ${r} is listed twice (at position ${i} again)`);
    seen[r >> 3] |= 1 << (r & 7);
  }
}

/**
 * Where sorted distinct `ids` are every row of a table of `rows` rows but one run (none, or a rank's own rows):
 * that run as {exceptFirst, exceptCount}, else nothing.
 */
export function allBut(ids: Int32Array, rows: number): {exceptFirst: number; exceptCount: number} | Record<string, never> {
  const n = ids.length;
  let k = 0;
  while (k < n && ids[k] === k) ++k;
  const gap = rows - n;
  for (let i = k; i < n; ++i) if (ids[i] !== i + gap) return {};
  return {exceptFirst: k, exceptCount: gap};
}

/**
 * A table's place for a cache: empty, or one RowCache at a time. A shared table's cache (continuous
 * WholeMemory) is this process's copies of rows other processes may read too: the table is read-only
 * here while it holds them, and emptying it copies nothing back.
 */
export class TableCache {
  private current?: RowCache;

  constructor(
    private readonly table: NativeTable,
    private readonly r: CachedShape,
    private readonly b: WholeMemoryBackend | undefined,
    readonly shared: boolean,
  ) {}

  /** Keeps rows `ids` (distinct) in the cache, after emptying the one before; null only empties it. */
  set(ids: Int32Array | null, what: string): void {
    if (this.shared) this.current?.discard();
    else this.current?.detach();
    this.current = undefined;
    if (ids !== null) this.current = RowCache.attach(this.table, this.r, ids, this.b, what);
  }

  /** Whether writes are refused: a shared table's cache holds copies the other processes would not see change. */
  get readOnly(): boolean {
    return this.shared && this.current !== undefined;
  }

  stats(): CacheStats | undefined {
    return this.current?.stats();
  }

  resetCounts(): void {
    this.current?.resetCounts();
  }

  /** Adds a gather of `n` rows at `indices` (a device address, or host int32 ids). */
  count(indices: number | Int32Array, n: number): void {
    this.current?.count(indices, n);
  }

  /** Adds `n` lookups whose hits the kernel that read them counted (a neighbour mean resolving ids to slots). */
  lookedUp(n: number): void {
    this.current?.lookedUp(n);
  }

  /** Frees the cache with its table (nothing copied back). */
  release(): void {
    this.current?.discard();
    this.current = undefined;
  }
}

/**
 * The cache of one table: `attach` fills it and hangs it on the table object the kernels take, `count`
 * adds a gather's lookups, `detach` copies the slots back and frees everything.
 */
class RowCache {
  private lookups = 0;
  private hostHits = 0;

  private constructor(
    private readonly table: NativeTable,
    readonly bytes: number,
    private readonly ids: number | Int32Array,
    private readonly cache: NativeRowCache,
    private readonly hitCounter: number,
    private readonly free: () => void,
  ) {}

  /**
   * Keeps rows `ids` (distinct) of `table` in the cache: GPU memory when `b` is given (the table is
   * GPU-addressed), else typed arrays (the table is a host array). Refused before anything is
   * allocated when it cannot fit.
   */
  static attach(table: NativeTable, r: CachedShape, ids: Int32Array, b: WholeMemoryBackend | undefined, what: string): RowCache {
    if (table.cache) throw new Error(`${what}: the table already has a cache`);
    checkCacheIds(ids, r.rows, what);
    const slots = ids.length,
      rowBytes = r.dim * r.elementBytes;
    const bytes = cacheBytes(slots, r.rows, rowBytes);
    const sorted = ids.slice().sort(); // slots in row order: the fill reads the table front to back
    const native = embeddingNative();
    if (!b) {
      checkCapacity(`${what} (${slots} rows)`, bytes, 'host');
      const hot = r.elementBytes === 4 ? new Float32Array(slots * r.dim) : new Uint16Array(slots * r.dim);
      const slotOf = new Int32Array(r.rows).fill(-1);
      native.rowCacheLoad(table, sorted, slots, hot, slotOf);
      const cache = {hot, slotOf, slots};
      table.cache = cache;
      return new RowCache(table, bytes, sorted, cache, 0, () => {});
    }
    checkCapacity(`${what} (${slots} rows)`, bytes + 8, 'device');
    const hot = b.allocDevice(Math.max(slots * rowBytes, 1));
    const slotOf = b.allocDevice(Math.max(r.rows * 4, 1));
    const devIds = b.allocDevice(Math.max(slots * 4, 1));
    const hits = deviceCounter(b);
    const freeAll = () => [hot, slotOf, devIds, hits].forEach((p) => b.freeDevice(p));
    try {
      native.fill(1 /* int32 */, slotOf, r.rows, -1);
      native.upload(devIds, sorted);
      native.rowCacheLoad(table, devIds, slots, hot, slotOf);
      native.synchronize();
    } catch (e) {
      freeAll();
      throw e;
    }
    const cache = {hot, slotOf, slots, hits, ...allBut(sorted, r.rows)};
    table.cache = cache;
    return new RowCache(table, bytes, devIds, cache, hits, freeAll);
  }

  /** Adds `n` lookups whose hits a kernel counted into the hit counter. */
  lookedUp(n: number): void {
    this.lookups += n;
  }

  /** Adds a gather of `n` rows at `indices` (a device address, or host int32 ids) to the counts. */
  count(indices: number | Int32Array, n: number): void {
    this.lookups += n;
    const native = embeddingNative();
    if (typeof indices === 'number') {
      if (n > 0) native.rowCacheHits(this.cache.slotOf, this.table.rows, indices, 0, n, this.hitCounter);
    } else {
      this.hostHits += native.rowCacheHits(this.cache.slotOf, this.table.rows, indices, 0, n, null) as number;
    }
  }

  get slots(): number {
    return this.cache.slots;
  }

  stats(): CacheStats {
    const hits = this.hitCounter !== 0 ? readCounter(this.hitCounter) : this.hostHits;
    return {slots: this.slots, bytes: this.bytes, lookups: this.lookups, hits, hitRate: this.lookups > 0 ? hits / this.lookups : 0};
  }

  /** Starts the counts again (hits and lookups) without touching the cached rows. */
  resetCounts(): void {
    this.lookups = 0;
    this.hostHits = 0;
    if (this.hitCounter !== 0) resetCounter(this.hitCounter);
  }

  /** Frees the cache without copying back (the table goes with it, or its rows never changed in the slots). */
  discard(): void {
    delete this.table.cache;
    this.free();
  }

  /** Copies the slots back to their rows, takes the cache off the table and frees it. */
  detach(): void {
    const native = embeddingNative();
    delete this.table.cache; // the store addresses the rows themselves
    native.rowCacheStore(this.table, this.ids, this.slots, this.cache.hot);
    if (typeof this.ids === 'number') native.synchronize();
    this.free();
  }
}

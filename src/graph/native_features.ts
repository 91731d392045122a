// Vertex features that stay in native memory: a .npy file or a cache section mapped copy-on-write, or
// the rows a text parser left in native pages. They are read a window of rows at a time as float32
// (float32 windows are views of the pages, float16 and float64 are converted), so a table of any size
// (papers100M's 111M x 128) reaches a feature table without a table-sized JavaScript array.
import {float16ToFloat32, npyFloatKind, readNpyHeader} from '../data/npy';
import type {NativeHostArray} from '../native/addon';
import {dataNative} from '../native/domains';

export type StoredFloat = 'float32' | 'float16' | 'float64';

/** Typed arrays stop at 2^32 elements; whole-table arrays (the 'arrays' form) stop one short of it. */
const MAX_ARRAY_VALUES = 2 ** 32 - 1;

type Window = (firstValue: number, count: number) => Float32Array | Uint16Array | Float64Array;

export class NativeFeatures {
  /** @internal Values in one window: 2^26 (256 MiB of float32), far below what a typed array holds (tests make it small). */
  static windowValues = 2 ** 26;

  private constructor(
    /** Rows (vertices) and values per row. */
    readonly rows: number,
    readonly dim: number,
    /** The file they came from and its element type there. */
    readonly source: string,
    readonly stored: StoredFloat,
    private readonly window: Window,
  ) {}

  /** The [rows, dim] float matrix of a .npy file (float32, float16 or float64, C order), mapped as read. */
  static fromNpy(file: string, numVertices: number): NativeFeatures {
    const h = readNpyHeader(file);
    if (h.shape.length !== 2) throw new Error(`${file}: features must be [vertices, features], got shape (${h.shape.join(', ')})`);
    const {stored, width} = npyFloatKind(h, file);
    if (h.shape[0] !== numVertices) throw new Error(`${file}: ${h.shape[0]} rows of features for ${numVertices} vertices`);
    return NativeFeatures.fromFile(file, h.dataStart, numVertices, h.shape[1], stored, width, file);
  }

  /** `rows` rows of `dim` values of `stored` at byte `offset` of `file` (a cache section), mapped as read. */
  static fromFile(
    file: string,
    offset: number,
    rows: number,
    dim: number,
    stored: StoredFloat,
    width: number,
    source: string,
  ): NativeFeatures {
    const map = (first: number, count: number) => {
      const part = dataNative().hostArrayMap(file, offset + first * width, count, stored);
      try {
        return part.view() as Float32Array | Uint16Array | Float64Array;
      } finally {
        part.free();
      }
    };
    // Up to what one view holds, one mapping serves every window (each mapping's pages count once more in
    // the process's memory); past it, each window maps its own part.
    if (rows * dim * width > 2 ** 32) return new NativeFeatures(rows, dim, source, stored, map);
    let whole: Float32Array | Uint16Array | Float64Array | undefined;
    return new NativeFeatures(rows, dim, source, stored, (first, count) => {
      whole ??= map(0, rows * dim);
      return whole.subarray(first, first + count);
    });
  }

  /** Rows already in a Float32Array (features parsed in JavaScript, or a subset of rows). */
  static fromArray(values: Float32Array, rows: number, dim: number, source: string, stored: StoredFloat): NativeFeatures {
    if (values.length !== rows * dim) throw new Error(`${source}: expected ${rows} rows of ${dim} values, got ${values.length}`);
    return new NativeFeatures(rows, dim, source, stored, (first, count) => values.subarray(first, first + count));
  }

  /** Rows of float32 a text parser left in native pages (they stay until this object and its views go). */
  static fromHostArray(values: NativeHostArray, rows: number, dim: number, source: string): NativeFeatures {
    if (values.dtype !== 'float32' || values.length !== rows * dim)
      throw new Error(`${source}: expected ${rows} rows of ${dim} float32 values, got ${values.length} ${values.dtype}`);
    return new NativeFeatures(rows, dim, source, 'float32', (first, count) => values.view(first, count) as Float32Array);
  }

  /**
   * Rows made on request (a generator's): `fill(first, count, out)` writes rows [first, first + count) as
   * float32, the same rows whichever window asks (nothing is held between reads).
   */
  static generated(
    rows: number,
    dim: number,
    source: string,
    fill: (first: number, count: number, out: Float32Array) => void,
  ): NativeFeatures {
    return new NativeFeatures(rows, dim, source, 'float32', (firstValue, count) => {
      const out = new Float32Array(count);
      if (count > 0) fill(firstValue / dim, count / dim, out);
      return out;
    });
  }

  /** Rows read together by read(): at least one, about 256 MiB of float32. */
  get windowRows(): number {
    return Math.max(1, Math.floor(NativeFeatures.windowValues / Math.max(1, this.dim)));
  }

  /**
   * Rows [first, first + count) as float32, row-major (a view of the pages where they are float32).
   * A value that is not finite is refused, naming the source and the row.
   */
  read(first: number, count: number): Float32Array {
    if (!Number.isInteger(first) || !Number.isInteger(count) || first < 0 || count < 0 || first + count > this.rows)
      throw new RangeError(`NativeFeatures.read: rows [${first}, ${first + count}) are not within [0, ${this.rows})`);
    if (count * this.dim > MAX_ARRAY_VALUES)
      throw new RangeError(`NativeFeatures.read: ${count} rows of ${this.dim} are more values than a typed array holds; read fewer rows`);
    if (count === 0 || this.dim === 0) return new Float32Array(0);
    const raw = this.window(first * this.dim, count * this.dim);
    const values = raw instanceof Float32Array ? raw : new Float32Array(raw.length);
    // Converted and checked natively, on every core.
    const bad = dataNative().floatRows(raw, raw instanceof Float32Array ? 0 : raw instanceof Uint16Array ? 1 : 2, raw.length, values);
    if (bad >= 0) {
      const what = raw instanceof Uint16Array ? float16ToFloat32(raw.subarray(bad, bad + 1))[0] : raw[bad];
      throw new Error(`${this.source}: row ${first + Math.floor(bad / this.dim)} holds a value that is not finite (${what})`);
    }
    return values;
  }

  /**
   * @internal The rows as float32 a window of windowRows at a time, for copying and digesting: float32 pages
   * as they are (every source the loader keeps them from was checked when parsed or read), others through read().
   */
  *float32Windows(): Generator<Float32Array> {
    for (let r = 0; r < this.rows; r += this.windowRows) {
      const count = Math.min(this.windowRows, this.rows - r);
      const raw = this.dim === 0 ? new Float32Array(0) : this.window(r * this.dim, count * this.dim);
      yield raw instanceof Float32Array ? raw : this.read(r, count);
    }
  }

  /** Every row in one Float32Array (the 'arrays' form of a dataset); refused past what a typed array holds. */
  toArray(): Float32Array {
    const total = this.rows * this.dim;
    if (total > MAX_ARRAY_VALUES)
      throw new RangeError(
        `${this.source}: ${this.rows} rows of ${this.dim} features are ${total} values, past the ${MAX_ARRAY_VALUES} a typed array holds; ` +
          `load with {into: 'native'} and read them into a feature table (wm.nn.featureTable)`,
      );
    // float32 pages up to 4 GiB are handed over as one view, without a copy.
    if (this.stored === 'float32' && total * 4 <= 2 ** 32) return this.read(0, this.rows);
    const out = new Float32Array(total);
    for (let r = 0; r < this.rows; r += this.windowRows) {
      const n = Math.min(this.windowRows, this.rows - r);
      out.set(this.read(r, n), r * this.dim);
    }
    return out;
  }
}

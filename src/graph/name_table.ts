// Names by id as one block of UTF-8 bytes (each name then a newline) and where each starts: what the native
// knowledge-graph reader hands over, what the binary cache stores, and what a model's name maps hold. Tens of
// millions of names (Freebase's 86M entities) take about a byte per character here; as JavaScript strings
// they would take several times that and pass the heap's limit.

const NEWLINE = 0x0a;
const TAB = 0x09;

export class NameTable {
  // The bytes as a Buffer (no copy), for decoding and searching.
  private readonly text: Buffer;

  /** The bytes: every name then '\n', in id order; `starts` has length + 1 offsets into them. */
  constructor(
    readonly bytes: Uint8Array,
    readonly starts: Float64Array,
  ) {
    this.text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    if (starts.length < 1 || starts[0] !== 0 || starts[starts.length - 1] !== bytes.length)
      throw new RangeError(
        `NameTable: starts must run from 0 to the bytes' length (${bytes.length}), got ${starts[0]}..${starts[starts.length - 1]}`,
      );
  }

  /** The names of `names`; none may hold a newline or a tab (the name files' separators) or be empty. */
  static fromArray(names: readonly string[], what = 'names'): NameTable {
    const parts = names.map((n, i) => {
      if (typeof n !== 'string' || n === '' || /[\n\t]/.test(n))
        throw new RangeError(`${what}[${i}] must be a non-empty string without tabs or newlines, got ${JSON.stringify(n)}`);
      return Buffer.from(n + '\n');
    });
    const starts = new Float64Array(names.length + 1);
    parts.forEach((p, i) => (starts[i + 1] = starts[i] + p.length));
    return new NameTable(Buffer.concat(parts), starts);
  }

  /** Names a line each (every one ended by '\n'), `count` of them; `what` names the source in errors. */
  static fromLines(bytes: Uint8Array, count: number, what: string): NameTable {
    const starts = new Float64Array(count + 1);
    let n = 0;
    for (let i = 0; i < bytes.length; ++i) {
      if (bytes[i] !== NEWLINE) continue;
      if (n === count) throw new Error(`${what}: more than the ${count} names expected`);
      starts[++n] = i + 1;
    }
    if (n !== count || starts[count] !== bytes.length) throw new Error(`${what}: ${n} names ended by a newline, expected ${count}`);
    return new NameTable(bytes, starts);
  }

  get length(): number {
    return this.starts.length - 1;
  }

  name(id: number): string {
    if (!Number.isInteger(id) || id < 0 || id >= this.length)
      throw new RangeError(`NameTable.name: id ${id} is not in [0, ${this.length})`);
    return this.text.toString('utf8', this.starts[id], this.starts[id + 1] - 1);
  }

  /** The id of `name`, or -1: one scan of the bytes (for the few names a query asks for). */
  indexOf(name: string): number {
    if (name === '' || /[\n\t]/.test(name)) return -1;
    const needle = Buffer.from(name + '\n');
    if (this.text.subarray(0, needle.length).equals(needle)) return 0;
    const at = this.text.indexOf(Buffer.concat([Buffer.of(NEWLINE), needle]));
    return at < 0 ? -1 : this.idAt(at + 1);
  }

  /** The ids of those of `names` the table holds: one scan of the bytes a name for a few, one pass over every name for more. */
  idsOf(names: Iterable<string>): Map<string, number> {
    const want = new Set(names);
    const found = new Map<string, number>();
    if (want.size <= 8) {
      for (const n of want) {
        const id = this.indexOf(n);
        if (id >= 0) found.set(n, id);
      }
      return found;
    }
    for (let i = 0; i < this.length && found.size < want.size; ++i) {
      const name = this.name(i);
      if (want.has(name) && !found.has(name)) found.set(name, i);
    }
    return found;
  }

  /** Every name, for tables small enough to hold as strings. */
  toArray(): string[] {
    return Array.from({length: this.length}, (_, i) => this.name(i));
  }

  /**
   * `id<TAB>name` lines (the name files a model is saved with), for ids [first, first + count): built from the
   * bytes, no strings.
   */
  dictionaryLines(first: number, count: number): Buffer {
    const end = Math.min(this.length, first + count);
    let bytes = 0;
    for (let i = first; i < end; ++i) bytes += String(i).length + 1 + (this.starts[i + 1] - this.starts[i]);
    const out = Buffer.allocUnsafe(bytes);
    let at = 0;
    for (let i = first; i < end; ++i) {
      at += out.write(String(i), at, 'latin1');
      out[at++] = TAB;
      out.set(this.bytes.subarray(this.starts[i], this.starts[i + 1]), at);
      at += this.starts[i + 1] - this.starts[i];
    }
    return out;
  }

  /** The id whose name starts at byte `at`. */
  private idAt(at: number): number {
    let lo = 0,
      hi = this.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.starts[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

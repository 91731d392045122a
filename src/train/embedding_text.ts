// Embeddings as word2vec's text format — a line "rows dim", then one line per
// row: its key and its values — what the reference node2vec writes and what
// gensim's KeyedVectors.load_word2vec_format (and numpy.loadtxt, skipping the
// first row) read. Written in chunks of rows, so a large table never sits on
// the host whole; float32 values printed with 9 significant digits read back
// exactly.
import * as fs from 'fs';
import * as path from 'path';

import {Embedding} from '../nn/embedding';
import {ensureDir, writeFileInPieces} from '../util/files';

/**
 * Writes every row of `emb` to `file`; keys[i] names row i (default: i, e.g.
 * the graph's original vertex ids). Written to a temporary name and renamed,
 * so a killed run leaves no half file.
 */
export function writeEmbeddingText(emb: Embedding, file: string, opts: {keys?: ArrayLike<number | string>; chunkRows?: number} = {}): void {
  const rows = emb.rows,
    dim = emb.dim,
    chunk = opts.chunkRows ?? 65536;
  if (opts.keys && opts.keys.length !== rows)
    throw new RangeError(`writeEmbeddingText: keys holds ${opts.keys.length} names for ${rows} rows`);
  if (!Number.isInteger(chunk) || chunk < 1) throw new RangeError(`writeEmbeddingText: chunkRows must be a positive integer, got ${chunk}`);
  ensureDir(path.dirname(path.resolve(file)), 'writeEmbeddingText');
  writeFileInPieces(file, (put) => {
    put(`${rows} ${dim}\n`);
    for (let first = 0; first < rows; first += chunk) {
      const ids = Int32Array.from({length: Math.min(chunk, rows - first)}, (_, i) => first + i);
      const t = emb.read(ids);
      const v = t.dataSync() as Float32Array;
      t.dispose();
      const lines: string[] = [];
      for (let i = 0; i < ids.length; ++i) {
        const row = Array.from(v.subarray(i * dim, (i + 1) * dim), (x) => Number(x.toPrecision(9)));
        lines.push(`${opts.keys ? opts.keys[first + i] : first + i} ${row.join(' ')}`);
      }
      put(lines.join('\n') + '\n');
    }
  });
}

/** Reads word2vec's text format: the keys (as written) and the values [rows * dim], row by row. */
export function readEmbeddingText(file: string): {keys: string[]; dim: number; values: Float32Array} {
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0);
  const head = (lines[0] ?? '').trim().split(/\s+/).map(Number);
  if (head.length !== 2 || !head.every((x) => Number.isInteger(x) && x >= 0)) {
    throw new Error(`${file}: the first line must be "rows dim", got "${lines[0] ?? ''}"`);
  }
  const [rows, dim] = head;
  if (lines.length - 1 !== rows) throw new Error(`${file}: the header says ${rows} rows, the file holds ${lines.length - 1}`);
  const keys: string[] = [],
    values = new Float32Array(rows * dim);
  for (let r = 0; r < rows; ++r) {
    const f = lines[r + 1].trim().split(/\s+/);
    if (f.length !== dim + 1) throw new Error(`${file}: line ${r + 2} has ${f.length - 1} values, expected ${dim}`);
    keys.push(f[0]);
    for (let k = 0; k < dim; ++k) values[r * dim + k] = parseValue(f[k + 1], `${file}: line ${r + 2}, value ${k + 1}`);
  }
  return {keys, dim, values};
}

// JavaScript's numbers, and the inf / nan other writers (Python, C) print.
function parseValue(s: string, where: string): number {
  const x = Number(s);
  if (!Number.isNaN(x)) return x;
  if (/^[+-]?inf(inity)?$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(s)) return NaN;
  throw new Error(`${where} "${s}" is not a number`);
}

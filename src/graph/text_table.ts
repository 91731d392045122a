// Text tables (edge lists, id lists, rows of numbers; TSV, CSV, gzip) parsed
// by native code (wm/text_columns.h) into native columns, a chunk at a time as
// the file is read and inflated: nothing file-sized is held in JavaScript.
import type {NativeHostArray, NativeTextColumns, TextColumnsSpec, TextColumnsSummary} from '../native/addon';
import {dataNative} from '../native/domains';
import {readChunks} from '../data/lines';

export type {NativeHostArray, TextColumnsSpec, TextColumnsSummary};

export interface TextTable {
  summary: TextColumnsSummary;
  /** Id column k, taken (once each). */
  ids(column: number): NativeHostArray;
  /** The numbers row-major, taken once (float64 when the spec said doubles). */
  values(): NativeHostArray;
}

/**
 * Whether a file's first line names its columns where rows start with a vertex id (`source,target`, `src<TAB>dst`,
 * `node_id`): its first field is a name, which no row of ids can hold.
 */
export function isHeaderLine(line: string): boolean {
  const first = line.trim().split(/[\t, ]/)[0];
  return !/^[#%]/.test(first) && !/^[+-]?\d/.test(first) && /[A-Za-z_]/.test(first);
}

/**
 * Parses `file` (inflated when it ends in .gz); errors name the file and line. Where the rows start with vertex ids
 * and comments are allowed, a header line (isHeaderLine) is read as a comment.
 */
export async function readTextTable(file: string, spec: TextColumnsSpec): Promise<TextTable> {
  const parser: NativeTextColumns = dataNative().textColumns(file, spec);
  let first = spec.comments === true && (spec.ids ?? 0) > 0;
  for await (const chunk of readChunks(file)) {
    if (first) {
      first = false;
      const end = chunk.indexOf(0x0a);
      if (isHeaderLine(Buffer.from(chunk.buffer, chunk.byteOffset, end < 0 ? chunk.length : end).toString('utf8'))) {
        parser.push(Uint8Array.of(0x23)); // '#': the header, a comment; the lines keep their numbers
      }
    }
    parser.push(chunk);
  }
  parser.finish();
  const summary = parser.summary();
  return {summary, ids: (k) => parser.ids(k), values: () => parser.values()};
}

/** A file of vertex ids, one per line (a split), as an Int32Array viewing native memory. */
export async function readIdList(file: string, bound: number): Promise<Int32Array> {
  const t = await readTextTable(file, {ids: 1, idBound: bound, comments: true});
  return t.ids(0).view() as Int32Array;
}

// Reads graphs as edge lists: the TSV of ../shared/datasets (a
// `# directed=… vertices=… edges=…` header, then `src<TAB>dst`) and SNAP's
// text format (`#` comments, whitespace-separated pairs), CSV too.
import * as fs from 'fs';
import * as os from 'os';

export interface EdgeList {
  numVertices: number;
  src: Int32Array;
  dst: Int32Array;
  directed: boolean;
}

function splitFields(line: string): string[] {
  return line.split(/[\s,]+/).filter((f) => f.length > 0);
}

export function readEdgeList(path: string): EdgeList {
  const text = fs.readFileSync(path, 'utf8');
  const src: number[] = [];
  const dst: number[] = [];
  let declaredVertices = -1;
  let directed = false;
  let maxId = -1,
    maxLine = 0;
  let lineNo = 0;
  for (const raw of text.split('\n')) {
    ++lineNo;
    const line = raw.trim();
    if (line.length === 0) continue;
    if (line.startsWith('#') || line.startsWith('%')) {
      const v = /vertices=(\d+)/.exec(line);
      if (v) declaredVertices = Number(v[1]);
      const d = /directed=(\w+)/.exec(line);
      if (d) directed = d[1] === '1' || d[1].toLowerCase() === 'true';
      continue;
    }
    const f = splitFields(line);
    const a = Number(f[0]),
      b = Number(f[1]);
    if (f.length < 2 || !Number.isInteger(a) || !Number.isInteger(b) || a < 0 || b < 0) {
      throw new Error(`${path}:${lineNo}: expected two non-negative integer vertex ids, got "${line}"`);
    }
    if (a > MAX_VERTEX_ID || b > MAX_VERTEX_ID) {
      throw new Error(`${path}:${lineNo}: vertex id ${Math.max(a, b)} is past ${MAX_VERTEX_ID}, the largest int32 ids allow`);
    }
    src.push(a);
    dst.push(b);
    if (a > maxId || b > maxId) [maxId, maxLine] = [Math.max(a, b), lineNo];
  }
  if (declaredVertices >= 0 && maxId >= declaredVertices) {
    throw new Error(`${path}:${maxLine}: vertex id ${maxId} is not below the declared vertices=${declaredVertices}`);
  }
  if (declaredVertices > MAX_VERTEX_ID + 1)
    throw new Error(`${path}: vertices=${declaredVertices} is past ${MAX_VERTEX_ID + 1}, the most int32 ids allow`);
  // Ids index arrays of every vertex: one far past the rest costs gigabytes.
  const n = Math.max(declaredVertices, maxId + 1);
  const bytes = 16 * n;
  if (bytes > os.totalmem() / 2) {
    throw new Error(
      `${path}:${maxLine}: vertex id ${maxId} makes a graph of ${n} vertices (${(bytes / 2 ** 30).toFixed(1)} GiB of ` +
        `per-vertex arrays) from ${src.length} edges; number the vertices densely from 0`,
    );
  }
  return {numVertices: Math.max(declaredVertices, maxId + 1), src: Int32Array.from(src), dst: Int32Array.from(dst), directed};
}

const MAX_VERTEX_ID = 2 ** 31 - 2;

/** Reads `vertex<TAB>value` lines (vertex_value.tsv); vertices without a line get NaN. */
export function readVertexValues(path: string, numVertices: number): Float64Array {
  const out = new Float64Array(numVertices).fill(NaN);
  let lineNo = 0;
  for (const raw of fs.readFileSync(path, 'utf8').split('\n')) {
    ++lineNo;
    const line = raw.trim();
    if (line.length === 0 || line.startsWith('#')) continue;
    const f = splitFields(line);
    const v = Number(f[0]);
    if (!Number.isInteger(v) || v < 0 || v >= numVertices) {
      throw new Error(`${path}:${lineNo}: vertex id "${f[0]}" is not in [0, ${numVertices})`);
    }
    out[v] = Number(f[1]);
  }
  return out;
}

// Reads graphs as edge lists: the TSV of ../shared/datasets (a
// `# directed=… vertices=… edges=…` header, then `src<TAB>dst`) and SNAP's
// text format (`#` comments, whitespace-separated pairs), CSV too.
import * as os from 'os';

import {readFileNamed} from '../util/files';

export interface EdgeList {
  numVertices: number;
  src: Int32Array;
  dst: Int32Array;
  directed: boolean;
}

function splitFields(line: string): string[] {
  return line.split(/[\s,]+/).filter((f) => f.length > 0);
}

/**
 * A vertex id as written in a data file: decimal digits only (Number()
 * would take "0x10", "1e1" or " 7 " too), at most MAX_VERTEX_ID. NaN when
 * the text is not one.
 */
export function parseVertexId(text: string | undefined): number {
  if (text === undefined || !/^[0-9]{1,10}$/.test(text)) return NaN;
  const v = Number(text);
  return v <= MAX_VERTEX_ID ? v : NaN;
}

/** The most vertices a graph read from `edges` edges may have: ids number the vertices densely from 0. */
export function vertexBound(edges: number): number {
  return SPARE_VERTICES + VERTICES_PER_ID * 2 * edges;
}
// Vertices with no edge are allowed (isolated ones), up to this many per id
// the file holds plus a fixed allowance: beyond that an id is a typo or a
// hash, and per-vertex arrays would cost gigabytes for nothing.
const SPARE_VERTICES = 1024;
const VERTICES_PER_ID = 8;

export function readEdgeList(path: string): EdgeList {
  const text = readFileNamed(path, 'readEdgeList').toString('utf8');
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
      const h = edgeFileHeader([line]);
      if (h.vertices >= 0) declaredVertices = h.vertices;
      if (/directed=/.test(line)) directed = h.directed;
      continue;
    }
    const f = splitFields(line);
    const a = parseVertexId(f[0]),
      b = parseVertexId(f[1]);
    if (f.length < 2 || Number.isNaN(a) || Number.isNaN(b)) {
      const tooBig = f.slice(0, 2).find((x) => /^[0-9]+$/.test(x) && Number(x) > MAX_VERTEX_ID);
      if (tooBig !== undefined)
        throw new Error(`${path}:${lineNo}: vertex id ${tooBig} is past ${MAX_VERTEX_ID}, the largest int32 ids allow`);
      throw new Error(`${path}:${lineNo}: expected two vertex ids (decimal integers from 0), got "${line}"`);
    }
    src.push(a);
    dst.push(b);
    if (a > maxId || b > maxId) [maxId, maxLine] = [Math.max(a, b), lineNo];
  }
  const n = vertexCount(path, declaredVertices, maxId, maxLine, src.length);
  return {numVertices: n, src: Int32Array.from(src), dst: Int32Array.from(dst), directed};
}

/**
 * The vertices of an edge file: the header's `vertices=` (-1: none) or the largest id + 1. Refused, naming
 * the file and line, when an id is not below the declared count or the count is far past the edges' ids
 * (ids must number the vertices densely: per-vertex arrays of a stray id cost gigabytes).
 */
export function vertexCount(path: string, declaredVertices: number, maxId: number, maxLine: number, edges: number): number {
  if (declaredVertices >= 0 && maxId >= declaredVertices) {
    throw new Error(`${path}:${maxLine}: vertex id ${maxId} is not below the declared vertices=${declaredVertices}`);
  }
  if (declaredVertices > MAX_VERTEX_ID + 1)
    throw new Error(`${path}: vertices=${declaredVertices} is past ${MAX_VERTEX_ID + 1}, the most int32 ids allow`);
  const n = Math.max(declaredVertices, maxId + 1);
  if (n > vertexBound(edges)) {
    const why = n === declaredVertices ? `the header's vertices=${n}` : `vertex id ${maxId} (line ${maxLine})`;
    throw new Error(
      `${path}: ${why} makes a graph of ${n} vertices from ${edges} edges; ids must number the vertices densely ` +
        `from 0 (at most ${vertexBound(edges)} vertices for ${edges} edges: ${SPARE_VERTICES} + ${VERTICES_PER_ID} per id in the file)`,
    );
  }
  const bytes = 16 * n;
  if (bytes > os.totalmem() / 2) {
    throw new Error(
      `${path}:${maxLine}: vertex id ${maxId} makes a graph of ${n} vertices (${(bytes / 2 ** 30).toFixed(1)} GiB of ` +
        `per-vertex arrays) from ${edges} edges; number the vertices densely from 0`,
    );
  }
  return n;
}

/** The `# directed=… vertices=…` header of an edge file's comment lines (vertices -1 when not given). */
export function edgeFileHeader(comments: string[]): {vertices: number; directed: boolean} {
  let vertices = -1,
    directed = false;
  for (const line of comments) {
    const v = /vertices=(\d+)/.exec(line);
    if (v) vertices = Number(v[1]);
    const d = /directed=(\w+)/.exec(line);
    if (d) directed = d[1] === '1' || d[1].toLowerCase() === 'true';
  }
  return {vertices, directed};
}

const MAX_VERTEX_ID = 2 ** 31 - 2;

/** Reads `vertex<TAB>value` lines (vertex_value.tsv); vertices without a line get NaN. */
export function readVertexValues(path: string, numVertices: number): Float64Array {
  const out = new Float64Array(numVertices).fill(NaN);
  let lineNo = 0;
  for (const raw of readFileNamed(path, 'readVertexValues').toString('utf8').split('\n')) {
    ++lineNo;
    const line = raw.trim();
    if (line.length === 0 || line.startsWith('#')) continue;
    const f = splitFields(line);
    const v = parseVertexId(f[0]);
    if (!(v < numVertices)) {
      throw new Error(`${path}:${lineNo}: vertex id "${f[0]}" is not in [0, ${numVertices})`);
    }
    out[v] = Number(f[1]);
  }
  return out;
}

// CSR graphs on disk as raw little-endian int32 arrays beside a JSON header:
// large graphs are built once and loaded by every process (the ranks of a
// run, or another framework's script: numpy.fromfile reads them as they are).
import * as fs from 'fs';
import * as path from 'path';

import {ensureDir, writeFileAtomically} from '../util/files';
import {CsrGraph} from './csr';

const FORMAT = 'tfjs-wm-csr-int32-v1';
// fs moves at most 2 GiB per call.
const CHUNK = 1 << 30;

interface Header {
  format: string;
  numVertices: number;
  numEdges: number;
}

// The array as byte views of at most CHUNK bytes each, with their file
// offsets: one Uint8Array over a large graph would pass the typed-array length limit.
function* byteViews(a: Int32Array): Generator<{bytes: Uint8Array; offset: number}> {
  for (let first = 0; first < a.length; first += CHUNK / 4) {
    const part = a.subarray(first, Math.min(a.length, first + CHUNK / 4));
    yield {bytes: new Uint8Array(part.buffer, part.byteOffset, part.byteLength), offset: first * 4};
  }
}

function writeArray(file: string, a: Int32Array): void {
  const fd = fs.openSync(file, 'w');
  try {
    for (const {bytes, offset} of byteViews(a)) {
      for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at, bytes.length - at, offset + at);
    }
    fs.fsyncSync(fd); // on disk before the header that makes it visible
  } finally {
    fs.closeSync(fd);
  }
}

function readArray(file: string, length: number): Int32Array {
  const size = fs.statSync(file).size;
  if (size !== length * 4)
    throw new Error(`loadCsr: ${file} holds ${size} bytes, the header promises ${length} int32 values (${length * 4} bytes)`);
  const out = new Int32Array(length);
  const fd = fs.openSync(file, 'r');
  try {
    for (const {bytes, offset} of byteViews(out)) {
      for (let at = 0; at < bytes.length;) {
        const got = fs.readSync(fd, bytes, at, bytes.length - at, offset + at);
        if (got === 0) throw new Error(`loadCsr: ${file} ended at byte ${offset + at}`);
        at += got;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return out;
}

/** Writes g into dir (created if missing): header.json, row_ptr.i32, col_idx.i32; the header last, so a partial save is never loaded. */
export function saveCsr(g: CsrGraph, dir: string): void {
  ensureDir(dir, 'saveCsr');
  const header = path.join(dir, 'header.json');
  fs.rmSync(header, {force: true});
  writeArray(path.join(dir, 'row_ptr.i32'), g.rowPtr);
  writeArray(path.join(dir, 'col_idx.i32'), g.colIdx);
  const h: Header = {format: FORMAT, numVertices: g.numVertices, numEdges: g.numEdges};
  writeFileAtomically(header, new TextEncoder().encode(JSON.stringify(h)));
}

/** Reads a graph saveCsr wrote, checking the header against the files. */
export function loadCsr(dir: string): CsrGraph {
  const file = path.join(dir, 'header.json');
  if (!fs.existsSync(file)) throw new Error(`loadCsr: ${dir} has no header.json (not a saved graph, or its save did not finish)`);
  const h = JSON.parse(fs.readFileSync(file, 'utf8')) as Header;
  if (h.format !== FORMAT) throw new Error(`loadCsr: ${file} has format "${h.format}", expected "${FORMAT}"`);
  const rowPtr = readArray(path.join(dir, 'row_ptr.i32'), h.numVertices + 1);
  const colIdx = readArray(path.join(dir, 'col_idx.i32'), h.numEdges);
  if (rowPtr[0] !== 0 || rowPtr[h.numVertices] !== h.numEdges) throw new Error(`loadCsr: ${dir}: row_ptr must run from 0 to ${h.numEdges}`);
  // A file is outside input: checked once here, so every sampler may trust the graph.
  return new CsrGraph(rowPtr, colIdx).validate(`loadCsr: ${dir}`);
}

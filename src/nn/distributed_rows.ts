// Rows of a distributed embedding table on the CPU: rank r holds rows
// [r * rowsPerRank, ...). Reads, writes and gradient steps are collectives
// (every rank calls them with its own indices) whose rows travel through the
// communicator to and from their owners. (On GPUs the same exchange runs in
// native/src/cuda/distributed_exchange.cu, through NCCL.)
import type {Communicator} from '../memory/communicator';
import {packParts, unpackParts} from '../memory/parts';
import {indexError} from '../backend/index_validation';

export interface RowLayout {
  comm: Communicator;
  rows: number;
  rowsPerRank: number;
  dim: number;
}

interface Routed {
  /** For each owner: positions (in the caller's order) of the indices it holds. */
  positions: number[][];
  /** What this rank received: local row indices and (if sent) values, in rank order. */
  arrived: {source: number; rows: Int32Array; values?: Float32Array}[];
}

const f32 = (b: Uint8Array) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
const i32 = (b: Uint8Array) => new Int32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
const bytesOf = (a: Int32Array | Float32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

// Sends each index (and its value row) to the rank that holds it. Every rank
// takes part even after a bad index, and then all fail together.
function route(l: RowLayout, idx: Int32Array, values: Float32Array | undefined, what: string): Routed {
  const {comm, rows, rowsPerRank, dim} = l;
  let bad = -1;
  for (let i = 0; i < idx.length && bad < 0; ++i) if (!(idx[i] >= 0 && idx[i] < rows)) bad = i;
  const positions: number[][] = Array.from({length: comm.size}, () => []);
  if (bad < 0) idx.forEach((r, i) => positions[Math.floor(r / rowsPerRank)].push(i));
  // Binary, not JSON: [bad flag, then the local indices for each owner].
  const local = positions.map((ps, owner) => Int32Array.from(ps, (i) => idx[i] - owner * rowsPerRank));
  const heads = comm.allgather(packParts([bytesOf(Int32Array.of(bad >= 0 ? 1 : 0)), ...local.map(bytesOf)]), `${what} (indices)`)
      .map((blob) => unpackParts(blob).map(i32));
  let blobs: Uint8Array[] = [];
  if (values) {
    const parts = positions.map((ps) => {
      const v = new Float32Array(ps.length * dim);
      ps.forEach((i, k) => v.set(values.subarray(i * dim, (i + 1) * dim), k * dim));
      return bytesOf(v);
    });
    blobs = comm.allgather(packParts(parts), `${what} (rows)`);
  }
  if (bad >= 0) throw indexError(what, idx[bad], bad, rows);
  const failed = heads.findIndex((h) => h[0][0] !== 0);
  if (failed >= 0) throw new RangeError(`${what}: rank ${failed} passed an index outside the table's ${rows} rows`);
  const arrived = heads.map((h, source) => ({
    source, rows: h[1 + comm.rank], values: values ? f32(unpackParts(blobs[source])[comm.rank]) : undefined,
  }));
  return {positions, arrived};
}

/** Collective: rows at idx as float32 [n * dim]; `readLocal` reads this rank's rows by local index. */
export function readRows(l: RowLayout, idx: Int32Array, readLocal: (local: Int32Array) => Float32Array, what: string): Float32Array {
  const {positions, arrived} = route(l, idx, undefined, what);
  const replies = arrived.map((a) => bytesOf(readLocal(a.rows)));
  const all = l.comm.allgather(packParts(replies), `${what} (replies)`);
  const out = new Float32Array(idx.length * l.dim);
  positions.forEach((ps, owner) => {
    const rowsBack = f32(unpackParts(all[owner])[l.comm.rank]);
    ps.forEach((i, k) => out.set(rowsBack.subarray(k * l.dim, (k + 1) * l.dim), i * l.dim));
  });
  return out;
}

/**
 * Collective: sends (index, row) pairs to their owners; `apply` receives
 * every arrival at this rank at once, in rank order (later ranks' writes win).
 */
export function sendRows(l: RowLayout, idx: Int32Array, values: Float32Array, apply: (local: Int32Array, values: Float32Array) => void,
                         what: string): void {
  const {arrived} = route(l, idx, values, what);
  const total = arrived.reduce((a, x) => a + x.rows.length, 0);
  const rows = new Int32Array(total), vals = new Float32Array(total * l.dim);
  let at = 0;
  for (const a of arrived) {
    rows.set(a.rows, at);
    vals.set(a.values!, at * l.dim);
    at += a.rows.length;
  }
  apply(rows, vals);
}

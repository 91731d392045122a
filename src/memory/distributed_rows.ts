// Rows of distributed memory on the CPU (WholeMemory tensors and embedding
// tables alike): rank r holds rows [r * rowsPerRank, ...). Reads and writes
// are collectives (every rank calls them with its own indices) whose rows
// travel through the communicator to and from their owners, as raw bytes.
// (On GPUs the same exchange runs in native/src/collectives/distributed_exchange.cu,
// through NCCL.)
import {indexError} from '../backend/index_validation';
import type {Group} from './group';
import {packParts, unpackParts} from './parts';

export interface RowLayout {
  comm: Group;
  rows: number;
  rowsPerRank: number;
  rowBytes: number;
  /** What errors call it: "index 7 at position 0 is outside the <noun>'s 5 rows". */
  noun: 'table' | 'tensor';
}

const copyOf = (b: Uint8Array) => b.slice();
const i32 = (b: Uint8Array) => new Int32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
export const bytesOf = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

interface Routed {
  /** For each owner: positions (in the caller's order) of the indices it holds. */
  positions: number[][];
  /** What this rank received, in rank order: row indices local to this rank and (if sent) their bytes. */
  arrived: {rows: Int32Array; values?: Uint8Array}[];
}

/** The position of the first index outside [0, rows), or -1. */
export function firstBadIndex(idx: Int32Array, rows: number): number {
  for (let i = 0; i < idx.length; ++i) if (!(idx[i] >= 0 && idx[i] < rows)) return i;
  return -1;
}

/**
 * After a collective that told every rank which ranks passed a bad index: this rank's own (`value` at position `bad`)
 * is named by value and place, else the first rank that passed one (`failed`, -1: none, and nothing is thrown).
 */
export function failTogether(what: string, bad: number, value: number, failed: number, rows: number, noun: RowLayout['noun']): void {
  if (bad >= 0) throw indexError(what, value, bad, rows, noun);
  if (failed >= 0) throw new RangeError(`${what}: rank ${failed} passed an index outside the ${noun}'s ${rows} rows`);
}

// Sends each index (and its row's bytes) to the rank that holds it. Every
// rank takes part even after a bad index, and then all fail together.
function route(l: RowLayout, idx: Int32Array, values: Uint8Array | undefined, what: string): Routed {
  const {comm, rows, rowsPerRank, rowBytes} = l;
  const bad = firstBadIndex(idx, rows);
  const positions: number[][] = Array.from({length: comm.size}, () => []);
  if (bad < 0) idx.forEach((r, i) => positions[Math.floor(r / rowsPerRank)].push(i));
  // Binary, not JSON: [bad flag, then the local indices for each owner].
  const local = positions.map((ps, owner) => Int32Array.from(ps, (i) => idx[i] - owner * rowsPerRank));
  const heads = comm
    .allgather(packParts([bytesOf(Int32Array.of(bad >= 0 ? 1 : 0)), ...local.map(bytesOf)]), `${what} (indices)`)
    .map((blob) => unpackParts(blob).map(i32));
  let blobs: Uint8Array[] = [];
  if (values) {
    const parts = positions.map((ps) => {
      const v = new Uint8Array(ps.length * rowBytes);
      ps.forEach((i, k) => v.set(values.subarray(i * rowBytes, (i + 1) * rowBytes), k * rowBytes));
      return v;
    });
    blobs = comm.allgather(packParts(parts), `${what} (rows)`);
  }
  failTogether(
    what,
    bad,
    idx[bad],
    heads.findIndex((h) => h[0][0] !== 0),
    rows,
    l.noun,
  );
  const arrived = heads.map((h, source) => ({
    rows: h[1 + comm.rank],
    values: values ? copyOf(unpackParts(blobs[source])[comm.rank]) : undefined,
  }));
  return {positions, arrived};
}

/** Collective: the bytes of the rows at idx; `readLocal` reads this rank's rows by local index. */
export function readRows(l: RowLayout, idx: Int32Array, readLocal: (local: Int32Array) => Uint8Array, what: string): Uint8Array {
  const {positions, arrived} = route(l, idx, undefined, what);
  const all = l.comm.allgather(packParts(arrived.map((a) => readLocal(a.rows))), `${what} (replies)`);
  const out = new Uint8Array(idx.length * l.rowBytes);
  positions.forEach((ps, owner) => {
    const back = unpackParts(all[owner])[l.comm.rank];
    ps.forEach((i, k) => out.set(back.subarray(k * l.rowBytes, (k + 1) * l.rowBytes), i * l.rowBytes));
  });
  return out;
}

/**
 * Collective: sends (index, row bytes) pairs to their owners; `apply`
 * receives every arrival at this rank at once, in rank order (later ranks'
 * writes win), with local indices.
 */
export function sendRows(
  l: RowLayout,
  idx: Int32Array,
  values: Uint8Array,
  apply: (local: Int32Array, values: Uint8Array) => void,
  what: string,
): void {
  const {arrived} = route(l, idx, values, what);
  const total = arrived.reduce((a, x) => a + x.rows.length, 0);
  const rows = new Int32Array(total),
    vals = new Uint8Array(total * l.rowBytes);
  let at = 0;
  for (const a of arrived) {
    rows.set(a.rows, at);
    vals.set(a.values!, at * l.rowBytes);
    at += a.rows.length;
  }
  apply(rows, vals);
}

/** sendRows of float32 rows: `values` holds a row of l.rowBytes / 4 floats an index; `apply` gets them as floats. */
export function sendFloatRows(
  l: RowLayout,
  idx: Int32Array,
  values: Float32Array,
  apply: (local: Int32Array, values: Float32Array) => void,
  what: string,
): void {
  sendRows(l, idx, bytesOf(values), (local, v) => apply(local, new Float32Array(v.buffer, v.byteOffset, v.byteLength / 4)), what);
}

// Host kernel outputs are kept for reuse when their tensor is disposed, as the device pool keeps GPU buffers.
// A fresh ArrayBuffer is freed only when V8 collects it, so a loop that makes and disposes the same
// activations every step would otherwise fault in new pages for each (and the collector's threads then
// compete with the kernel's on a small machine): on a 2-core box a [2708, 1433] product took twice its
// kernel time. A buffer goes back only where nothing else can still see it:
// - it was made here (`take`), for one tensor (the first `claim`: the backend's hostOutput); a second tensor
//   over the same memory (a view a CPU fallback kernel made: the backend's claimOutputs) makes it shared for good;
// - its values were never handed out (`escape`: dataSync, data());
// Buffers are served by size class (at most 1/8 above the request); a read of a buffer longer than its
// values returns an exact copy, so what a user holds always spans its own buffer.
// WM_HOST_POOL_MB bounds the bytes kept (default: 1/4 of the machine's memory, at most 16 GiB; 0: off), a buffer
// at most half of it: a step's largest activations (a sampled layer's [500K, 256] float32 rows are 0.5 GB, and a
// step makes several) come back, where pages faulted in afresh for each cost more than the kernels that write them
// (bench/probes/block_step.ts on the CPU box, 23 GB, 1M vertices: 19.6 s a step keeping 1/16, at most 1 GiB, a buffer
// at most a quarter of it; 6.6 s keeping them).
import * as os from 'os';

interface Owner {
  /** The tensor the buffer was made for; undefined until one claims it. */
  id?: object;
  /** Seen under a second tensor or handed out: never reused. */
  closed: boolean;
}

const owners = new WeakMap<ArrayBuffer, Owner>();
// Free buffers per size class, classes in order of last use (oldest first).
const free = new Map<number, ArrayBuffer[]>();
let freeBytes = 0;

function limitBytes(): number {
  const v = process.env.WM_HOST_POOL_MB;
  if (v === undefined || v === '') return Math.min(16 * 2 ** 30, Math.floor(os.totalmem() / 4));
  const mb = Number(v);
  if (!Number.isFinite(mb) || mb < 0) throw new Error(`environment: WM_HOST_POOL_MB must be a number of MiB >= 0, got '${v}'`);
  return Math.floor(mb * (1 << 20));
}
const LIMIT = limitBytes();

/** The size class of a request: rounded up to a step of 1/8 of its power of two. */
export function sizeClass(bytes: number): number {
  if (bytes <= 64) return 64;
  const step = 2 ** (Math.floor(Math.log2(bytes)) - 3);
  return Math.ceil(bytes / step) * step;
}

/** A buffer of at least `bytes` for a kernel output: a kept one of its size class, else a new one from malloc. */
export function take(bytes: number): ArrayBuffer {
  const cls = sizeClass(bytes);
  // Past what the pool would keep (or with it off): the exact size, never rounded up for nothing.
  if (cls > LIMIT / 2) return Buffer.allocUnsafeSlow(bytes).buffer;
  const list = free.get(cls);
  const kept = list?.pop();
  let buffer: ArrayBuffer;
  if (kept !== undefined) {
    freeBytes -= cls;
    if (list!.length === 0) free.delete(cls);
    buffer = kept;
  } else {
    buffer = Buffer.allocUnsafeSlow(cls).buffer;
  }
  owners.set(buffer, {closed: false});
  return buffer;
}

// The record of the buffer under a tensor's values, where `take` made it.
function ownerOf(values: unknown): {buffer: ArrayBuffer; o: Owner} | undefined {
  const buffer = (values as {buffer?: unknown} | null)?.buffer;
  const o = buffer instanceof ArrayBuffer ? owners.get(buffer) : undefined;
  return o && {buffer: buffer as ArrayBuffer, o};
}

/** `id` holds `values`: the first tensor over a buffer from `take` owns it, a second closes it. */
export function claim(values: unknown, id: object): void {
  const o = ownerOf(values)?.o;
  if (o === undefined || o.id === id) return;
  if (o.id === undefined) o.id = id;
  else o.closed = true;
}

/** Whether tensor `id` alone sees `values`: a buffer `take` made for it, never shared or handed out (writable in place). */
export function soleOwner(values: unknown, id: object): boolean {
  const o = ownerOf(values)?.o;
  return o !== undefined && o.id === id && !o.closed;
}

/** The values leave the backend (a read): their buffer is never reused. */
export function escape(values: unknown): void {
  const found = ownerOf(values);
  if (found) found.o.closed = true;
}

/** True when these values lie in a longer kept buffer (a reader must get an exact copy). */
export function longerThanValues(values: unknown): boolean {
  const found = ownerOf(values);
  return found !== undefined && found.buffer.byteLength !== (values as ArrayBufferView).byteLength;
}

/** Tensor `id`, which held `values`, is gone: its buffer is kept for reuse if nothing else can see it. */
export function release(values: unknown, id: object): void {
  const found = ownerOf(values);
  if (found === undefined || found.o.closed || found.o.id !== id) return;
  const {buffer} = found;
  owners.delete(buffer);
  const cls = buffer.byteLength;
  while (freeBytes + cls > LIMIT && free.size > 0) {
    const [oldest, list] = free.entries().next().value as [number, ArrayBuffer[]];
    list.pop();
    freeBytes -= oldest;
    if (list.length === 0) free.delete(oldest);
  }
  if (freeBytes + cls > LIMIT) return;
  const list = free.get(cls) ?? [];
  free.delete(cls); // re-inserted last: the most recently used class
  list.push(buffer);
  free.set(cls, list);
  freeBytes += cls;
}

/** Bytes kept for reuse. */
export function keptBytes(): number {
  return freeBytes;
}

/** Drops every kept buffer (the collector frees them). */
export function dropKept(): void {
  free.clear();
  freeBytes = 0;
}

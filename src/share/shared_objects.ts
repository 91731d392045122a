// Tensors other processes use without copies (after Vineyard's GPU sharing):
// wm.share(t) puts t's data in a buffer other processes can map — GPU memory
// shared by a CUDA IPC handle, or a memfd segment on the host — and returns a
// JSON-serialisable descriptor; wm.open(descriptor) in another process gives
// a tfjs tensor over that same memory. The owner (the sharing process, or the
// store daemon, see store.ts) frees it on wm.delete(id) / store.delete(id).
import * as fs from 'fs';

import * as tf from '@tensorflow/tfjs-core';

import {bytesPerElement, typedArrayFor, WholeMemoryBackend} from '../backend/backend_wholememory';
import {deviceDetails, deviceStatus} from '../native/device';
import {checkCapacity, elementsOf} from '../memory/capacity';
import {shareNative} from '../native/domains';

export type SharedLocation = 'device' | 'host';
export type SharedDType = 'float32' | 'int32' | 'bool';
type Typed = Float32Array | Int32Array | Uint8Array;

export interface SharedDescriptor {
  id: string;
  location: SharedLocation;
  shape: number[];
  dtype: SharedDType;
  bytes: number;
  /**
   * Whether holders may write it (wm.update, mirrors written back). Only a
   * hint: the owner decides, by sealing the memfd behind fdPath against
   * writes (F_SEAL_WRITE), and open() reads the seal, not this field.
   */
  mutable: boolean;
  /** device: the GPU and the CUDA IPC handle (hex). */
  device?: number;
  ipcHandle?: string;
  /**
   * Where the owner's memfd can be opened, and its inode (to tell a reused
   * number): the data on the host; for device objects a token that lives
   * exactly as long as the object (CUDA IPC cannot tell a freed buffer) and
   * holds the allocation's size and IPC handle, checked against the
   * descriptor on open.
   */
  fdPath?: string;
  inode?: number;
  owner: {pid: number; store?: string};
}

interface Owned {
  descriptor: SharedDescriptor;
  ptr?: number; // device
  fd: number; // host: the data; device: the token
  view?: Typed; // host: the owner's own (copy-on-write) mapping
  sealed: boolean; // read-only for good
}

interface Opened {
  descriptor: SharedDescriptor;
  writable: boolean;
  ptr?: number;
  view?: Typed;
  fd?: number; // the owner's own object: its descriptor
}

// A device object's token: the allocation's size, then its IPC handle.
const TOKEN_BYTES = 8 + 64;

const DTYPES: SharedDType[] = ['float32', 'int32', 'bool'];
const owned = new Map<string, Owned>();
const opened = new WeakMap<object, Opened>();
let counter = 0;

function newId(): string {
  return `${process.pid.toString(36)}-${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

function viewOf(dtype: SharedDType, buf: ArrayBuffer, size: number): Typed {
  if (dtype === 'float32') return new Float32Array(buf, 0, size);
  if (dtype === 'int32') return new Int32Array(buf, 0, size);
  return new Uint8Array(buf, 0, size);
}

function backend(): WholeMemoryBackend {
  return tf.backend() as WholeMemoryBackend;
}

/** @internal Allocates an object owned by this process (the store uses it too). */
export function allocateShared(opts: {
  shape: number[];
  dtype?: SharedDType;
  location?: SharedLocation;
  mutable?: boolean;
  store?: string;
}): SharedDescriptor {
  const {shape} = opts;
  const dtype = opts.dtype ?? 'float32';
  const location = opts.location ?? (deviceStatus().gpu ? 'device' : 'host');
  if (!Array.isArray(shape)) throw new RangeError(`share: shape must be an array of non-negative integers, got ${JSON.stringify(shape)}`);
  const size = elementsOf('share', shape);
  if (!DTYPES.includes(dtype)) throw new TypeError(`share: dtype must be float32, int32 or bool, got ${dtype}`);
  if (location !== 'device' && location !== 'host') throw new RangeError(`share: location must be 'device' or 'host', got '${location}'`);
  if (location === 'device' && !deviceStatus().gpu)
    throw new Error(`share: location 'device' needs a GPU (${deviceStatus().reason}); use location: 'host'`);
  const bytes = size * bytesPerElement(dtype);
  checkCapacity('share', bytes, location);
  const descriptor: SharedDescriptor = {
    id: newId(),
    location,
    shape: [...shape],
    dtype,
    bytes,
    mutable: opts.mutable ?? false,
    owner: opts.store ? {pid: process.pid, store: opts.store} : {pid: process.pid},
  };
  checkFdHeadroom();
  const {fd, inode} = shareNative().sharedHostCreate(location === 'device' ? TOKEN_BYTES : bytes);
  const entry: Owned = {descriptor, fd, sealed: false};
  descriptor.fdPath = `/proc/${process.pid}/fd/${fd}`;
  descriptor.inode = inode;
  try {
    if (location === 'device') {
      const {ptr, handle} = shareNative().sharedDeviceAlloc(bytes);
      entry.ptr = ptr;
      descriptor.device = deviceDetails().device;
      descriptor.ipcHandle = handle;
      const token = new Uint8Array(TOKEN_BYTES);
      new DataView(token.buffer).setBigUint64(0, BigInt(bytes), true);
      token.set(Buffer.from(handle, 'hex'), 8);
      try {
        shareNative().sharedHostWrite(fd, undefined, 0, token);
      } catch (e) {
        shareNative().sharedDeviceFree(ptr);
        throw e;
      }
    } else {
      entry.view = viewOf(dtype, shareNative().sharedHostMap(fd, bytes), size);
    }
  } catch (e) {
    shareNative().closeFd(fd);
    throw e;
  }
  owned.set(descriptor.id, entry);
  return {...descriptor};
}

// Each object holds a descriptor for its life: refuse a new one while the
// process can still open files (sockets, the store's clients) afterwards.
// Counting the open descriptors lists /proc/self/fd, so it waits until the
// objects alone take half the limit (memfd_create's own EMFILE error, which
// names the limit too, guards a process whose other descriptors fill it first).
const FD_RESERVE = 64;
function checkFdHeadroom(): void {
  const limit = shareNative().fdLimit();
  if (2 * (owned.size + FD_RESERVE) < limit) return;
  const open = fs.readdirSync('/proc/self/fd').length;
  if (open + FD_RESERVE >= limit) {
    throw new Error(
      `share: this process has ${open} open descriptors of its limit ${limit} (ulimit -n), and every shared ` +
        `object holds one: delete objects or raise the limit (ulimit -n ${Math.max(2 * limit, 4096)})`,
    );
  }
}

/** @internal The owner seals an object read-only: no holder can write it afterwards, whatever its descriptor says. */
export function sealShared(id: string): void {
  const o = owned.get(id);
  if (!o) throw new Error(`seal: no shared object ${id} is owned by this process`);
  if (o.sealed) return;
  shareNative().sharedHostSealWrites(o.fd);
  o.sealed = true;
  o.descriptor.mutable = false;
}

/**
 * Shares t: its data is copied once into memory other processes can map
 * (on the GPU when t's backend has one, else a host segment). Returns the
 * descriptor to send them; the object lives until wm.delete(id) or this
 * process exits.
 */
export function share(t: tf.Tensor, opts: {mutable?: boolean; location?: SharedLocation} = {}): SharedDescriptor {
  if (!(t instanceof tf.Tensor)) throw new TypeError('share: expected a tensor');
  const d = allocateShared({shape: t.shape, dtype: t.dtype as SharedDType, location: opts.location, mutable: opts.mutable});
  const entry = owned.get(d.id)!;
  try {
    writeInto(entry, t);
    if (!d.mutable) sealShared(d.id);
  } catch (e) {
    deleteShared(d.id);
    throw e;
  }
  return d;
}

interface WriteTarget {
  descriptor: SharedDescriptor;
  ptr?: number;
  fd?: number;
}

// Host objects are written through their descriptor (pwrite), never through
// a writable mapping, so an owner can always seal one read-only.
function writeHost(target: WriteTarget, data: Typed): void {
  const {descriptor: d} = target;
  if (target.fd !== undefined) shareNative().sharedHostWrite(target.fd, undefined, 0, data);
  else shareNative().sharedHostWrite(d.fdPath!, d.inode!, 0, data);
}

function writeInto(target: WriteTarget, values: tf.Tensor | ArrayLike<number>): void {
  const {descriptor} = target;
  const size = descriptor.shape.reduce((a, b) => a * b, 1);
  if (values instanceof tf.Tensor) {
    if (values.size !== size || values.dtype !== descriptor.dtype) {
      throw new RangeError(`update: expected ${size} ${descriptor.dtype} values, got a ${values.dtype} tensor of ${values.size}`);
    }
    if (target.ptr !== undefined) {
      const b = backend();
      if (size) shareNative().copyDeviceToDevice(target.ptr, b.devicePtr(values), descriptor.bytes);
      shareNative().synchronize();
      return;
    }
    writeHost(target, values.dataSync() as Typed);
    return;
  }
  if (values.length !== size) throw new RangeError(`update: expected ${size} values, got ${values.length}`);
  const typed = typedArrayFor(descriptor.dtype, size);
  typed.set(values);
  if (target.ptr !== undefined) {
    if (size) shareNative().upload(target.ptr, typed);
  } else {
    writeHost(target, typed);
  }
}

function checkDescriptor(d: SharedDescriptor): void {
  if (typeof d !== 'object' || d === null || typeof d.id !== 'string')
    throw new TypeError('open: expected a descriptor from wm.share() or a store');
  if (d.location !== 'device' && d.location !== 'host')
    throw new TypeError(`open: descriptor.location must be 'device' or 'host', got '${d.location}'`);
  if (!DTYPES.includes(d.dtype)) throw new TypeError(`open: descriptor.dtype must be float32, int32 or bool, got ${d.dtype}`);
  if (!Array.isArray(d.shape) || !d.shape.every((x) => Number.isInteger(x) && x >= 0))
    throw new TypeError('open: descriptor.shape is not a shape');
  if (d.bytes !== d.shape.reduce((a, b) => a * b, 1) * bytesPerElement(d.dtype))
    throw new TypeError('open: descriptor.bytes does not match its shape and dtype');
  if (d.location === 'device' && typeof d.ipcHandle !== 'string') throw new TypeError('open: a device descriptor needs ipcHandle');
  if (typeof d.fdPath !== 'string' || typeof d.inode !== 'number') throw new TypeError('open: the descriptor needs fdPath and inode');
}

function ownerAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A tfjs tensor over the shared memory (no copy). Writable only if the
 * object was shared mutable; tfjs never writes a tensor in place, so writes
 * go through wm.update() or a mirror. Dispose it (or wm.close) when done.
 */
export function open(d: SharedDescriptor): tf.Tensor {
  checkDescriptor(d);
  const size = d.shape.reduce((a, b) => a * b, 1);
  const mine = d.owner.pid === process.pid ? owned.get(d.id) : undefined;
  if (d.owner.pid === process.pid && !mine) throw new Error(`open: shared object ${d.id} is unknown here or was deleted`);
  if (!mine && !ownerAlive(d.owner.pid)) throw new Error(`open: shared object ${d.id} is gone: its owner (pid ${d.owner.pid}) exited`);
  // The owner's memfd is the authority: its seal says whether the object is
  // writable, its size (or the device token) how many bytes there are.
  const state = mine ? shareNative().sharedHostState(mine.fd) : shareNative().sharedHostState(d.fdPath!, d.inode!);
  let t: tf.Tensor;
  const info: Opened = {descriptor: d, writable: d.mutable && !state.writeSealed, fd: mine?.fd};
  if (d.location === 'device') {
    if (!deviceStatus().gpu)
      throw new Error(`open: shared object ${d.id} is in GPU memory and this process has no GPU (${deviceStatus().reason})`);
    const token = new Uint8Array(
      mine ? shareNative().sharedHostMap(mine.fd, TOKEN_BYTES) : shareNative().sharedHostMap(d.fdPath!, TOKEN_BYTES, d.inode!),
    );
    const allocated = Number(new DataView(token.buffer, token.byteOffset).getBigUint64(0, true));
    if (Buffer.from(token.subarray(8)).toString('hex') !== d.ipcHandle) {
      throw new Error(`open: descriptor ${d.id}'s ipcHandle is not its owner's (a forged or mismatched descriptor)`);
    }
    if (d.bytes > allocated) {
      throw new Error(
        `open: descriptor ${d.id} says ${d.bytes} bytes but its owner allocated ${allocated} (a forged or mismatched descriptor)`,
      );
    }
    const ptr = mine ? mine.ptr! : shareNative().sharedDeviceOpen(d.ipcHandle!);
    const release = mine ? () => undefined : () => shareNative().sharedDeviceClose(ptr);
    const b = backend();
    t = tf.engine().makeTensorFromTensorInfo(b.adoptBuffer(d.shape, d.dtype, {ptr, bytes: d.bytes, release}));
    info.ptr = ptr;
  } else {
    if (d.bytes > state.bytes) {
      throw new Error(
        `open: descriptor ${d.id} says ${d.bytes} bytes but the shared segment holds ${state.bytes} (a forged or mismatched descriptor)`,
      );
    }
    const view = mine ? mine.view! : viewOf(d.dtype, shareNative().sharedHostMap(d.fdPath!, d.bytes, d.inode!), size);
    t = tf.tensor(view, d.shape, d.dtype);
    info.view = view;
  }
  opened.set(t.dataId, info);
  return t;
}

/** Ends this process's use of an opened tensor (the same as disposing it). */
export function close(t: tf.Tensor): void {
  if (!opened.has(t.dataId)) throw new Error('close: the tensor was not opened with wm.open()');
  t.dispose();
}

/** Writes values into a shared object opened here (in place; every holder sees it). */
export function update(t: tf.Tensor, values: tf.Tensor | ArrayLike<number>): void {
  const info = opened.get(t.dataId);
  if (!info) throw new Error('update: the tensor was not opened with wm.open()');
  if (!info.writable) throw new Error(`update: shared object ${info.descriptor.id} is read-only (its owner shared it with mutable: false)`);
  writeInto(info, values);
}

/** The descriptor of a tensor opened with wm.open(), or undefined. */
export function sharedDescriptorOf(t: tf.Tensor): SharedDescriptor | undefined {
  return opened.get(t.dataId)?.descriptor;
}

/** Frees an object this process owns; holders keep what they mapped until they close it. */
export function deleteShared(id: string): void {
  const o = owned.get(id);
  if (!o)
    throw new Error(
      `delete: no shared object ${id} is owned by this process (unknown id, already deleted, or owned by another process or a store: use store.delete)`,
    );
  owned.delete(id);
  if (o.ptr !== undefined) shareNative().sharedDeviceFree(o.ptr);
  shareNative().closeFd(o.fd);
}

/** Ids of the objects this process owns. */
export function ownedShared(): SharedDescriptor[] {
  return [...owned.values()].map((o) => ({...o.descriptor}));
}

/** @internal For mirrors: where an opened tensor's memory is. */
export function openedInfo(t: tf.Tensor): Readonly<Opened> | undefined {
  return opened.get(t.dataId);
}

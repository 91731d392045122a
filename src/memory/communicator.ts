// Communicators: a group of processes (ranks) that allocate WholeMemory
// tensors together. Every collective (malloc, free, barrier, gathers of
// distributed tensors) must be called by every rank in the same order, and
// fails with an error naming the missing rank after the timeout instead of
// hanging.

import {deviceStatus} from '../native/device';
import {NativeCommunicator} from '../native/addon';
import * as tf from '@tensorflow/tfjs-core';

import {AllReduceOptions, AllReducer} from './allreduce';
import {groupSecret} from './group_secret';
import {readLaunchEnv} from './launch_env';
import {MallocOptions, WholeMemoryTensor} from './whole_memory_tensor';
import {memoryNative} from '../native/domains';

export const DEFAULT_TIMEOUT_MS = 60_000;
/** The most ranks a group may have (the native bootstrap's kMaxRanks). */
export const MAX_RANKS = 2 ** 16;

export interface CommunicatorOptions {
  /** Bound on every collective, in ms (default 60 s). */
  timeoutMs?: number;
}

const live = new Set<Communicator>();

/**
 * At rank 0: a small string that names the group and carries its secret;
 * send it to the other ranks privately (whoever has it can join the group).
 */
export function getUniqueId(opts: {host?: string; port?: number} = {}): string {
  return memoryNative().bootstrapUniqueId(opts.host ?? '127.0.0.1', opts.port ?? 0);
}

export function createCommunicator(uniqueId: string, rank: number, size: number, opts: CommunicatorOptions = {}): Communicator {
  if (typeof uniqueId !== 'string') throw new TypeError('createCommunicator: uniqueId must be the string getUniqueId() returned');
  for (const [name, v] of [
    ['rank', rank],
    ['size', size],
  ] as const) {
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`createCommunicator: ${name} must be a non-negative integer, got ${v}`);
  }
  if (size < 1 || size > MAX_RANKS) throw new RangeError(`createCommunicator: size must be in [1, ${MAX_RANKS}] ranks, got ${size}`);
  if (rank >= size) throw new RangeError(`createCommunicator: rank must be below size (${size}), got ${rank}`);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const secret = uniqueId.slice(uniqueId.lastIndexOf(':') + 1);
  return new Communicator(new (memoryNative().NativeCommunicator)(uniqueId, rank, size, timeoutMs), timeoutMs, secret);
}

/** The communicator of every rank started by tfjs-wm-run (or torchrun, or mpirun). */
export function communicatorFromEnv(opts: CommunicatorOptions = {}): Communicator {
  const env = readLaunchEnv();
  if (env === undefined) {
    throw new Error(
      "communicatorFromEnv: no launcher set this process's rank (RANK and WORLD_SIZE, Open MPI's or Slurm's variables); " +
        'start the program with `npx tfjs-wm-run -n N script.js`, srun, mpirun or torchrun (docs/clusters.md)',
    );
  }
  // Every rank can compute the id: rank 0 listens where MASTER_ADDR/PORT say,
  // and the secret comes from the launcher (or rank 0's private file).
  const {secret, done} = groupSecret(process.env, env.rank, env.runId, env.masterPort, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  try {
    const id =
      env.rank === 0
        ? memoryNative().bootstrapUniqueId(env.masterAddr, env.masterPort, env.runId, secret)
        : `${env.masterAddr}:${env.masterPort}:${env.runId}:${secret}`;
    return createCommunicator(id, env.rank, env.worldSize, opts);
  } finally {
    done();
  }
}

export class Communicator {
  private readonly tensors = new Set<WholeMemoryTensor>();
  private destroyed = false;
  private reducer?: AllReducer;

  constructor(
    readonly nativeComm: NativeCommunicator,
    private timeout: number,
    private readonly secretHex: string,
  ) {
    live.add(this);
  }

  /** @internal The group's secret (hex), from which groups split off it derive theirs (communicator_split.ts). */
  get secret(): string {
    return this.secretHex;
  }

  get rank(): number {
    return this.nativeComm.rank;
  }

  get size(): number {
    return this.nativeComm.size;
  }

  get timeoutMs(): number {
    return this.timeout;
  }

  set timeoutMs(ms: number) {
    if (!(ms > 0)) throw new RangeError(`timeoutMs must be positive, got ${ms}`);
    this.nativeComm.setTimeout(ms);
    this.timeout = ms;
  }

  private check(): void {
    if (this.destroyed) throw new Error('the communicator was destroyed');
  }

  /**
   * Waits for every rank. `timeoutMs` (default: the communicator's) bounds this wait only: a rank that
   * waits while another does long work of its own (ranking a test split, saving) says how long.
   */
  barrier(timeoutMs?: number): void {
    this.check();
    if (timeoutMs === undefined || timeoutMs === this.timeout) return this.nativeComm.barrier('barrier');
    const keep = this.timeout;
    this.timeoutMs = timeoutMs;
    try {
      this.nativeComm.barrier('barrier');
    } finally {
      this.timeoutMs = keep;
    }
  }

  /** Every rank's bytes, in rank order. */
  allgather(mine: Uint8Array, what = 'allgather'): Uint8Array[] {
    this.check();
    return this.nativeComm.allgather(mine, what);
  }

  allgatherJson<T>(mine: T, what = 'allgather'): T[] {
    return this.allgather(new TextEncoder().encode(JSON.stringify(mine)), what).map((b) => JSON.parse(new TextDecoder().decode(b)) as T);
  }

  /**
   * Collective: sums (or averages) float32 tensors over the ranks. Returns new
   * tensors (tfjs tensors are immutable); the inputs are left as they are.
   */
  allReduce(tensors: tf.Tensor | tf.Tensor[], opts: AllReduceOptions = {}): tf.Tensor[] {
    this.check();
    this.reducer ??= new AllReducer(this);
    return this.reducer.allReduce(Array.isArray(tensors) ? tensors : [tensors], opts);
  }

  /** The path the last GPU all-reduce took: 'one-shot', 'two-shot' or 'nccl' ('' before any). */
  get lastAllReducePath(): string {
    return this.reducer?.lastPath ?? '';
  }

  /** Collective: a tensor spread over the ranks of this communicator. */
  malloc(opts: MallocOptions): WholeMemoryTensor {
    this.check();
    const t = WholeMemoryTensor.allocate(this, opts);
    this.tensors.add(t);
    return t;
  }

  /** Collective: frees a tensor (as t.free()). */
  free(t: WholeMemoryTensor): void {
    if (!this.tensors.has(t)) throw new Error('free: this tensor was not allocated by this communicator, or was freed already');
    t.free();
  }

  /** @internal */
  forget(t: WholeMemoryTensor): void {
    this.tensors.delete(t);
  }

  /** Frees what is still allocated (locally: no collective) and closes the connections. */
  destroy(): void {
    if (this.destroyed) return;
    for (const t of [...this.tensors]) t.release();
    this.tensors.clear();
    this.reducer?.dispose();
    this.destroyed = true;
    this.nativeComm.destroy();
    live.delete(this);
  }
}

/** Which NCCL this process can use ("NCCL 2.28.7"), or why none ("unavailable: ..."). */
export function ncclStatus(): string {
  return memoryNative().ncclStatus();
}

/** Starts the library (nothing to do before the first communicator; kept for the WholeMemory API's shape). */
export function init(): void {
  memoryNative();
}

/** Frees every WholeMemory tensor and destroys every communicator of this process. */
export function finalize(): void {
  for (const c of [...live]) c.destroy();
}

/** A communicator of this process alone (single-process WholeMemory). */
export function soloCommunicator(): Communicator {
  return createCommunicator(memoryNative().bootstrapUniqueId('127.0.0.1', 0), 0, 1);
}

/**
 * Single process: one tensor spread over this process's devices. On a
 * machine without GPUs it lives in host memory.
 */
export function malloc(opts: MallocOptions): WholeMemoryTensor {
  const {gpu, deviceCount} = deviceStatus();
  const location = opts.location ?? (gpu ? 'device' : 'host');
  const devices =
    opts.devices ?? (location === 'device' && opts.type !== 'distributed' ? Array.from({length: deviceCount}, (_, i) => i) : undefined);
  const comm = soloCommunicator();
  let t: WholeMemoryTensor;
  try {
    t = comm.malloc({...opts, location, devices});
  } catch (e) {
    comm.destroy();
    throw e;
  }
  t.ownedCommunicator = comm;
  return t;
}

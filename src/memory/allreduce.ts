// All-reduce of float32 tensors over a communicator.
//
// On GPUs (native/include/wm/peer_allreduce.h): one kernel per call packs
// every tensor into this rank's buffer of a continuous WholeMemory range that
// every rank maps, meets the peers at a barrier of GPU signal flags, reduces
// (one-shot for small messages, reduce-scatter + all-gather for larger ones),
// averages for 'mean' and writes the outputs; NCCL (loaded at run time) takes
// very large messages and groups whose GPUs lack peer access. The wire type
// may be float16 or bfloat16 (half the bytes over NVLink, float32 sums).
//
// On the CPU: every rank writes its flattened tensors into its own slice of
// continuous shared memory, the ranks meet at the bootstrap's barrier, and
// each rank sums all slices in rank order. Two buffers alternate, so a rank
// writing the next call's data never overwrites a slice another rank may
// still be reading.
// Named imports: the namespace import's getters took 3% of a 4 KiB GPU all-reduce's host time (V8 profile).
import {backend, dispose, engine, mul, sub, Tensor, tensor, TensorInfo, tidy, util} from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {NativeHostMemory} from '../native/addon';
import {deviceStatus} from '../native/device';
import {ALLREDUCE_PATHS, AllReducePlan} from './allreduce_plan';
import type {Group} from './group';
import {memoryNative} from '../native/domains';

export type ReduceOp = 'sum' | 'mean';
export type WireType = 'float32' | 'float16' | 'bfloat16';
export type AllReduceAlgorithm = 'auto' | 'one-shot' | 'two-shot' | 'nccl';

export interface AllReduceOptions {
  op?: ReduceOp;
  /**
   * The type the values travel in; sums are float32. Each rank's values are rounded to it (round to
   * nearest even), so a 16-bit wire gives the same results on the CPU as on GPUs. Default float32.
   */
  wire?: WireType;
  /** GPUs: force a path (benchmarks, tests). Default auto. */
  algorithm?: AllReduceAlgorithm;
  /**
   * Fused SGD step: returns params[i] - lr * reduced[i] instead of the
   * reduced values (on GPUs in the same kernel pass). Shapes match the tensors'.
   */
  sgd?: {params: Tensor[]; lr: number};
}

/** The native code of each wire type. */
export const WIRE_CODES: {readonly [w in WireType]: number} = {float32: 0, float16: 1, bfloat16: 2};
/** Whether w names a wire type. */
export const isWireType = (w: unknown): w is WireType => typeof w === 'string' && w in WIRE_CODES;
const ALGO_CODES: {[a in AllReduceAlgorithm]: number} = {auto: 0, 'one-shot': 1, 'two-shot': 2, nccl: 3};

interface HostBuffer {
  mem: NativeHostMemory;
  capacity: number; // float32 elements per rank
}

export class AllReducer {
  private buffers: [HostBuffer | undefined, HostBuffer | undefined] = [undefined, undefined];
  private readonly plans = new Map<number, AllReducePlan>();
  private next = 0;
  // CPU: where the ranks meet (shared memory, see wm/flag_barrier.h) and whom to check on while waiting.
  private meeting?: {flags: NativeHostMemory; pids: Int32Array; epoch: number};
  private broken?: string;
  private readonly gpu = deviceStatus().gpu;
  /** The path the last GPU call took ('one-shot', 'two-shot' or 'nccl'). */
  lastPath = '';

  constructor(private readonly comm: Group) {}

  // The last call whose agreement was checked (see checkAgreement).
  private last?: {op: string; wire: string; step: boolean; shapes: number[][]};

  /** Collective: every rank passes tensors of the same shapes, in the same order. */
  allReduce(tensors: Tensor[], opts: AllReduceOptions = {}): Tensor[] {
    const op = opts.op ?? 'sum';
    const wire = opts.wire ?? 'float32';
    const algorithm = opts.algorithm ?? 'auto';
    if (op !== 'sum' && op !== 'mean') throw new RangeError(`allReduce: op must be 'sum' or 'mean', got '${op}'`);
    if (!isWireType(wire)) throw new RangeError(`allReduce: wire must be float32, float16 or bfloat16, got '${wire}'`);
    if (!(algorithm in ALGO_CODES))
      throw new RangeError(`allReduce: algorithm must be auto, one-shot, two-shot or nccl, got '${algorithm}'`);
    tensors.forEach((t, i) => {
      if (!(t instanceof Tensor)) throw new TypeError(`allReduce: tensors[${i}] is not a tensor`);
      if (t.dtype !== 'float32') throw new TypeError(`allReduce: tensors[${i}] must be float32, got ${t.dtype}`);
    });
    const sgd = opts.sgd;
    if (sgd !== undefined) {
      if (!(typeof sgd.lr === 'number' && Number.isFinite(sgd.lr)))
        throw new RangeError(`allReduce: sgd.lr must be a finite number, got ${sgd.lr}`);
      if (!Array.isArray(sgd.params) || sgd.params.length !== tensors.length) {
        throw new RangeError(`allReduce: sgd.params must hold one tensor per reduced tensor (${tensors.length})`);
      }
      sgd.params.forEach((p, i) => {
        if (p.dtype !== 'float32' || !util.arraysEqual(p.shape, tensors[i].shape)) {
          throw new TypeError(`allReduce: sgd.params[${i}] must be float32 of shape [${tensors[i].shape}], got ${p.dtype} [${p.shape}]`);
        }
      });
    }
    if (this.broken) throw new Error(this.broken);
    this.checkAgreement(tensors, op, wire, sgd !== undefined);
    if (!this.gpu) {
      const reduced = this.onHost(tensors, op, wire);
      return sgd ? this.sgdStep(reduced, sgd) : reduced;
    }
    return this.onDevice(tensors, op, wire, algorithm, sgd);
  }

  /**
   * Ranks that reduce different shapes would sum unrelated values in silence.
   * The first call, and every call whose shapes or options differ from this
   * rank's previous call, compares them across ranks (one bootstrap
   * allgather) and throws on every rank naming the ranks that differ. A rank
   * that changes alone meets the others' next data exchange instead, which
   * times out naming it.
   */
  private checkAgreement(tensors: Tensor[], op: string, wire: string, step: boolean): void {
    if (this.sameAsLast(tensors, op, wire, step)) return;
    const signature = `${op} ${wire} ${step ? 'sgd' : ''} ${tensors.map((t) => `[${t.shape}]`).join(' ')}`;
    let all: string[];
    try {
      all = this.comm.allgatherJson(signature, 'allReduce (shapes)');
    } catch (e) {
      // The others may have gone on to a data exchange this rank will not join: a later call of this rank
      // would pair with one of theirs (on GPUs, with a launch still waiting for it) and sum the wrong tensors.
      this.broken = `${(e as Error).message}; this communicator's all-reduce is unusable`;
      throw new Error(this.broken);
    }
    const differ = all.map((s, r) => (s === all[0] ? -1 : r)).filter((r) => r >= 0);
    if (differ.length) {
      const show = (r: number) => `rank ${r}: ${all[r].length > 200 ? `${all[r].slice(0, 200)}...` : all[r]}`;
      throw new Error(
        `allReduce: ranks disagree on what to reduce (op, wire, step, shapes) — ${show(0)}; ${differ.slice(0, 3).map(show).join('; ')}`,
      );
    }
    this.last = {op, wire, step, shapes: tensors.map((t) => t.shape.slice())};
  }

  // Compared field by field, not through the signature string: building it on every call cost about
  // 0.8 µs of a 4 KiB GPU all-reduce's ~11 µs of host time (4 x H100, V8 profile).
  private sameAsLast(tensors: Tensor[], op: string, wire: string, step: boolean): boolean {
    const l = this.last;
    if (!l || l.op !== op || l.wire !== wire || l.step !== step || l.shapes.length !== tensors.length) return false;
    return tensors.every((t, i) => util.arraysEqual(l.shapes[i], t.shape));
  }

  // The step where no kernel fused it (CPU, NCCL): params - lr * reduced.
  private sgdStep(reduced: Tensor[], sgd: {params: Tensor[]; lr: number}): Tensor[] {
    const stepped = tidy(() => reduced.map((r, i) => sub(sgd.params[i], mul(r, sgd.lr))));
    dispose(reduced);
    return stepped;
  }

  private onDevice(
    tensors: Tensor[],
    op: ReduceOp,
    wire: WireType,
    algorithm: AllReduceAlgorithm,
    sgd?: {params: Tensor[]; lr: number},
  ): Tensor[] {
    const b = backend() as WholeMemoryBackend;
    let live = 0;
    for (const t of tensors) if (t.size > 0) ++live;
    const plan = this.planFor(live);
    // The addon allocates the outputs in the same call, except under UVM (managed memory: ours to make).
    const allocates = !b.uvm;
    plan.header(WIRE_CODES[wire], op === 'mean', ALGO_CODES[algorithm], allocates, sgd?.lr);
    // Empty tensors and, under UVM, every output are made here; the rest come back from the addon.
    const infos: (TensorInfo | undefined)[] = new Array(tensors.length);
    let k = 0;
    try {
      for (let i = 0; i < tensors.length; ++i) {
        const t = tensors[i];
        let out = 0;
        if (t.size === 0 || !allocates) {
          const o = b.makeDeviceOutput(t.shape, 'float32');
          infos[i] = o.info;
          out = o.ptr;
        }
        if (t.size > 0) plan.tensor(k++, b.devicePtr(t), out, t.size, sgd ? b.devicePtr(sgd.params[i]) : 0);
      }
      this.lastPath = ALLREDUCE_PATHS[this.comm.nativeComm.allReduceDevice(plan.data)];
    } catch (e) {
      for (const info of infos) if (info) b.disposeData(info.dataId);
      throw e;
    }
    k = 0;
    const result = tensors.map((t, i) => {
      const info = infos[i] ?? b.adoptDeviceAllocation(t.shape, 'float32', plan.output(k));
      if (t.size > 0) ++k;
      return engine().makeTensorFromTensorInfo(info);
    });
    return sgd && this.lastPath === 'nccl' ? this.sgdStep(result, sgd) : result;
  }

  // One plan per tensor count, rewritten for each call (a training loop reduces the same list each step).
  private planFor(n: number): AllReducePlan {
    let plan = this.plans.get(n);
    if (!plan) this.plans.set(n, (plan = new AllReducePlan(n)));
    return plan;
  }

  // Slices are whole pages so rank r's slice is exactly row r, in rank r's own memory.
  private hostBuffer(i: number, n: number): HostBuffer {
    const have = this.buffers[i];
    if (have && have.capacity >= n) return have;
    have?.mem.free();
    const unit = 4096 / 4;
    const capacity = Math.max(unit, Math.ceil(Math.max(n, have ? 2 * have.capacity : 0) / unit) * unit);
    // Collective: every rank asks for the same capacity (the layout check names a rank that does not).
    const mem = new (memoryNative().NativeHostMemory)(this.comm.nativeComm, 0, this.comm.size, capacity * 4, 1, 'allReduce (buffers)');
    return (this.buffers[i] = {mem, capacity});
  }

  private onHost(tensors: Tensor[], op: ReduceOp, wire: WireType): Tensor[] {
    if (!this.comm.nativeComm.sameHost) return this.acrossHosts(tensors, op, wire);
    const n = tensors.reduce((a, t) => a + t.size, 0);
    const i = this.next;
    this.next ^= 1;
    const buf = this.hostBuffer(i, n);
    // Straight from each tensor's data into this rank's slice: packing them into one fresh array
    // first cost a copy and a page fault per 4 KiB (4 MiB on 2 ranks: 1.7 of 4.8 ms per call).
    let at = 0;
    tensors.forEach((t) => {
      buf.mem.writeLocalAt(t.dataSync() as Float32Array, at * 4, WIRE_CODES[wire]);
      at += t.size;
    });
    this.meet();
    const out = new Float32Array(n);
    if (n) buf.mem.sumSlices(op === 'mean' ? 1 / this.comm.size : 1, out);
    return split(out, tensors);
  }

  // A group over several hosts shares no memory: every rank's values, rounded to the wire type as a slice
  // would hold them, travel through the group's sockets, and each rank sums them in rank order in float32 and
  // scales them, as sumSlices does: the bits of one host's all-reduce.
  private acrossHosts(tensors: Tensor[], op: ReduceOp, wire: WireType): Tensor[] {
    const mine = new Float32Array(tensors.reduce((a, t) => a + t.size, 0));
    let at = 0;
    for (const t of tensors) {
      mine.set(t.dataSync() as Float32Array, at);
      at += t.size;
    }
    roundToWire(mine, wire);
    let all: Uint8Array[];
    try {
      all = this.comm.allgather(new Uint8Array(mine.buffer), 'allReduce (across hosts)');
    } catch (e) {
      this.broken = `${(e as Error).message}; this communicator's all-reduce is unusable`;
      throw new Error(this.broken);
    }
    const out = new Float32Array(mine.length);
    for (const bytes of all) {
      // Read in place where the bytes are 4-aligned, else from a copy.
      const v =
        bytes.byteOffset % 4 === 0
          ? new Float32Array(bytes.buffer, bytes.byteOffset, out.length)
          : new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      for (let j = 0; j < out.length; ++j) out[j] += v[j];
    }
    if (op === 'mean') {
      const scale = Math.fround(1 / this.comm.size);
      for (let j = 0; j < out.length; ++j) out[j] *= scale;
    }
    return split(out, tensors);
  }

  // Every rank's slice is written once all have passed: through shared memory, not the bootstrap's
  // sockets (2 processes on the CPU box, 1 KiB: 15-33 µs per call through the sockets, 5-14 here).
  // A failure leaves the reducer unusable: a rank may have gone on to read a slice being rewritten.
  private meet(): void {
    if (!this.meeting) {
      // Collective, once: a page per rank, so each rank's flag sits in its own memory.
      const flags = new (memoryNative().NativeHostMemory)(this.comm.nativeComm, 0, this.comm.size, 4096, 1, 'allReduce (flags)');
      const pids = Int32Array.from(this.comm.allgatherJson(process.pid, 'allReduce (process ids)'));
      this.meeting = {flags, pids, epoch: 0};
    }
    const m = this.meeting;
    try {
      m.flags.flagBarrier(++m.epoch, this.comm.timeoutMs, m.pids, 'allReduce');
    } catch (e) {
      this.broken = `${(e as Error).message}; this communicator's all-reduce is unusable`;
      throw new Error(this.broken);
    }
  }

  dispose(): void {
    this.buffers.forEach((b) => b?.mem.free());
    this.buffers = [undefined, undefined];
    this.meeting?.flags.free();
    this.meeting = undefined;
  }
}

/**
 * Values rounded in place to a 16-bit wire type and back (nearest, ties to even), as the shared-memory slices
 * store them: bfloat16 on the float32 bits; float16 by its step at the value's float32 exponent (2^-24 below
 * float16's normal range), infinite from 65520 on. Infinities, NaN and zeros stay.
 */
function roundToWire(v: Float32Array, wire: WireType): void {
  if (wire === 'float32') return;
  const bits = new Uint32Array(v.buffer, v.byteOffset, v.length);
  for (let i = 0; i < v.length; ++i) {
    const b = bits[i],
      exp = (b >>> 23) & 0xff;
    if (exp === 0xff) continue;
    if (wire === 'bfloat16') {
      const low = b & 0xffff;
      let high = b >>> 16;
      if (low > 0x8000 || (low === 0x8000 && (high & 1) === 1)) high += 1;
      bits[i] = (high << 16) >>> 0;
      continue;
    }
    const x = v[i],
      a = Math.abs(x);
    if (a === 0) continue;
    if (a >= 65520) {
      v[i] = x > 0 ? Infinity : -Infinity;
      continue;
    }
    const step = 2 ** (Math.max(exp - 127, -14) - 10);
    const q = a / step,
      whole = Math.floor(q),
      rest = q - whole;
    v[i] = Math.sign(x) * (rest > 0.5 || (rest === 0.5 && whole % 2 === 1) ? whole + 1 : whole) * step;
  }
}

/** `out`'s values as tensors of the shapes of `like`, one after another. */
function split(out: Float32Array, like: Tensor[]): Tensor[] {
  let at = 0;
  return like.map((t) => {
    const part = tensor(out.subarray(at, at + t.size), t.shape, 'float32');
    at += t.size;
    return part;
  });
}

// All-reduce of float32 tensors over a communicator, one-shot: every rank
// writes its flattened tensors into its own slice of a continuous
// WholeMemory buffer (on GPUs: CUDA VMM slices every rank maps; on the CPU:
// shared memory), the ranks meet at a barrier, and each rank sums all slices
// in rank order (bit-identical results everywhere; on GPUs the peers' slices
// are read over NVLink). Two buffers alternate, so a rank writing the next
// call's data never overwrites a slice another rank may still be reading.
//
// The barrier goes through the bootstrap communicator (host sockets). A
// GPU-signal barrier, packed bf16 kernels and NCCL for large sizes are the
// next steps (see the issue on the fused custom all-reduce).
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {NativeDeviceMemory, NativeHostMemory} from '../backend/native';
import {deviceStatus, native} from '../backend/register';
import type {Communicator} from '../memory/communicator';

export type ReduceOp = 'sum' | 'mean';

interface Buffer {
  mem: NativeHostMemory | NativeDeviceMemory;
  capacity: number;  // float32 elements per rank
}

export class AllReducer {
  private buffers: [Buffer | undefined, Buffer | undefined] = [undefined, undefined];
  private next = 0;
  private readonly gpu = deviceStatus().gpu;

  constructor(private readonly comm: Communicator) {}

  // Slices are whole allocation granules (2 MiB on GPUs, a page on the CPU)
  // so rank r's slice is exactly row r, in rank r's own memory.
  private round(n: number): number {
    const unit = this.gpu ? (2 << 20) / 4 : 4096 / 4;
    return Math.max(unit, Math.ceil(n / unit) * unit);
  }

  private buffer(i: number, n: number): Buffer {
    const have = this.buffers[i];
    if (have && have.capacity >= n) return have;
    have?.mem.free();
    const capacity = this.round(Math.max(n, have ? 2 * have.capacity : 0));
    const Memory = this.gpu ? native().NativeDeviceMemory : native().NativeHostMemory;
    // Collective: every rank asks for the same capacity (the layout check names a rank that does not).
    const mem = new Memory(this.comm.nativeComm, 0, this.comm.size, capacity * 4, 1);
    return (this.buffers[i] = {mem, capacity});
  }

  /** Collective: every rank passes tensors of the same shapes, in the same order. */
  allReduce(tensors: tf.Tensor[], op: ReduceOp = 'sum'): tf.Tensor[] {
    if (op !== 'sum' && op !== 'mean') throw new RangeError(`allReduce: op must be 'sum' or 'mean', got '${op}'`);
    for (const t of tensors) if (t.dtype !== 'float32') throw new TypeError(`allReduce: tensors must be float32, got ${t.dtype}`);
    const sizes = tensors.map((t) => t.size);
    const n = sizes.reduce((a, b) => a + b, 0);
    // Same total everywhere, or the buffers would not line up.
    const i = this.next;
    this.next ^= 1;
    const buf = this.buffer(i, n);
    const scale = op === 'mean' ? 1 / this.comm.size : 1;
    const flat = tf.tidy(() => (tensors.length === 1 ? tf.reshape(tensors[0], [-1]) : tf.concat(tensors.map((t) => tf.reshape(t, [-1])))));
    let summed: tf.Tensor;
    try {
      if (this.gpu) {
        const b = tf.backend() as WholeMemoryBackend;
        const mem = buf.mem as NativeDeviceMemory;
        if (n) mem.copyToLocal(b.devicePtr(flat), n * 4);
        b.native.synchronize();
        this.comm.barrier();
        const {info, ptr} = b.makeDeviceOutput([n], 'float32');
        if (n) mem.sumSlices(scale, ptr, n);
        summed = tf.engine().makeTensorFromTensorInfo(info);
      } else {
        const mem = buf.mem as NativeHostMemory;
        mem.writeLocal(flat.dataSync() as Float32Array);
        this.comm.barrier();
        const out = new Float32Array(n);
        if (n) mem.sumSlices(scale, out);
        summed = tf.tensor1d(out);
      }
    } finally {
      flat.dispose();
    }
    const parts = tf.tidy(() => {
      let at = 0;
      return tensors.map((t, k) => {
        const p = tf.reshape(tf.slice(summed, [at], [sizes[k]]), t.shape);
        at += sizes[k];
        return p;
      });
    });
    summed.dispose();
    return parts;
  }

  dispose(): void {
    this.buffers.forEach((b) => b?.mem.free());
    this.buffers = [undefined, undefined];
  }
}

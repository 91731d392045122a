// A graph every rank (and its GPU) reads whole, stored once: its CSR arrays
// in continuous WholeMemory, spread over the ranks' GPUs (or shared host
// memory), sampled in place by the same kernels as a local graph — on the
// GPU over NVLink (or the bus, for host memory), on the CPU by the C++ core.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {NativeDeviceMemory, NativeHostMemory} from '../backend/native';
import {deviceStatus, native} from '../backend/register';
import type {Communicator} from '../memory/communicator';
import type {MemoryLocation, WholeMemoryTensor} from '../memory/whole_memory_tensor';
import {CsrGraph} from './csr';
import {checkGpuKey, SampleOptions} from './native_sampling';

export class WholeMemoryCsr {
  private constructor(private readonly rowPtr: WholeMemoryTensor, private readonly colIdx: WholeMemoryTensor,
                      readonly numVertices: number, readonly numEdges: number, readonly location: MemoryLocation) {}

  /**
   * Collective: every rank passes the same graph (each writes only its own
   * rows; afterwards the local copy may be dropped).
   */
  static create(comm: Communicator, graph: CsrGraph, opts: {location?: MemoryLocation} = {}): WholeMemoryCsr {
    const location = opts.location ?? (deviceStatus().gpu ? 'device' : 'host');
    const sizes = comm.allgatherJson([graph.numVertices, graph.numEdges], 'graph sizes');
    sizes.forEach(([v, e], r) => {
      if (v !== graph.numVertices || e !== graph.numEdges) {
        throw new Error(`WholeMemoryCsr.create: rank ${r} has a graph of ${v} vertices and ${e} edges, rank ${comm.rank} of ${graph.numVertices} and ${graph.numEdges}`);
      }
    });
    const put = (values: Int32Array) => {
      const t = comm.malloc({type: 'continuous', location, shape: [Math.max(values.length, 1)], dtype: 'int32'});
      const {first, count} = t.localRange;
      const mine = new Int32Array(count);
      mine.set(values.subarray(first, Math.min(values.length, first + count)));
      t.writeLocal(mine);
      return t;
    };
    const rowPtr = put(graph.rowPtr), colIdx = put(graph.colIdx);
    comm.barrier();
    return new WholeMemoryCsr(rowPtr, colIdx, graph.numVertices, graph.numEdges, location);
  }

  private address(t: WholeMemoryTensor): number {
    const m = t.nativeMemory('sample');
    return t.location === 'device' ? (m as NativeDeviceMemory).address : (m as NativeHostMemory).deviceAddress;
  }

  /**
   * Neighbours of seeds, as sampleNeighbors (host seeds) or DeviceCsr.sample
   * (seeds as a tensor on the GPU) return them — the same draws for the same seed.
   */
  sample(seeds: tf.Tensor1D, fanout: number, opts: SampleOptions = {}): {offsets?: tf.Tensor1D; ids: tf.Tensor1D} {
    const b = tf.backend() as WholeMemoryBackend;
    const seed = opts.seed ?? 0;
    if (!Number.isInteger(fanout) || fanout < 0) throw new RangeError(`sample: fanout must be a non-negative integer, got ${fanout}`);
    if (seeds.dtype !== 'int32') throw new TypeError(`sample: seeds must be int32, got ${seeds.dtype}`);
    const badSeed = (at: number) => new RangeError(`sample: seed vertex ${seeds.dataSync()[at]} at position ${at} is not in [0, ${this.numVertices})`);
    const n = seeds.size;
    if (b.gpu) {
      checkGpuKey(opts, 'WholeMemoryCsr.sample');
      const rp = this.address(this.rowPtr), ci = this.address(this.colIdx), sp = n ? b.devicePtr(seeds) : 0;
      let out: {offsets?: tf.Tensor1D; ids: tf.Tensor1D} | undefined;
      const bad = b.withErrorFlag((flag) => {
        if (opts.replace ?? true) {
          const {info, ptr} = b.makeDeviceOutput([n * fanout], 'int32');
          b.native.sampleWithReplacement(rp, ci, this.numVertices, sp, n, fanout, seed, ptr, flag);
          out = {ids: tf.engine().makeTensorFromTensorInfo(info) as tf.Tensor1D};
        } else {
          const off = b.makeDeviceOutput([n + 1], 'int32');
          b.native.sampleWithoutReplacement(rp, ci, this.numVertices, sp, n, fanout, seed, off.ptr, 0, flag);
          const total = new Int32Array(1);
          b.native.download(off.ptr + 4 * n, total);
          const ids = b.makeDeviceOutput([total[0]], 'int32');
          b.native.sampleWithoutReplacement(rp, ci, this.numVertices, sp, n, fanout, seed, off.ptr, ids.ptr, flag);
          out = {offsets: tf.engine().makeTensorFromTensorInfo(off.info) as tf.Tensor1D, ids: tf.engine().makeTensorFromTensorInfo(ids.info) as tf.Tensor1D};
        }
      });
      if (bad >= 0) {
        tf.dispose([out!.ids, out!.offsets ?? []].flat());
        throw badSeed(bad);
      }
      return out!;
    }
    if (this.location !== 'host') throw new Error('sample: the graph is in GPU memory and this process has no GPU');
    const rp = this.rowPtr.nativeMemory('sample') as NativeHostMemory, ci = this.colIdx.nativeMemory('sample') as NativeHostMemory;
    const s = Int32Array.from(seeds.dataSync());
    const byVertex = opts.keyBy === 'vertex';
    if (opts.replace ?? true) {
      const ids = new Int32Array(n * fanout);
      const bad = native().hostSampleWithReplacement(rp, ci, s, fanout, seed, ids, byVertex);
      if (bad >= 0) throw badSeed(bad);
      return {ids: tf.tensor1d(ids, 'int32')};
    }
    const offsets = new Int32Array(n + 1);
    let bad = native().hostSampleWithoutReplacement(rp, ci, s, fanout, seed, offsets, null, byVertex);
    if (bad >= 0) throw badSeed(bad);
    const ids = new Int32Array(offsets[n]);
    bad = native().hostSampleWithoutReplacement(rp, ci, s, fanout, seed, offsets, ids, byVertex);
    return {offsets: tf.tensor1d(offsets, 'int32'), ids: tf.tensor1d(ids, 'int32')};
  }

  /** Collective: frees the graph on every rank. */
  free(): void {
    this.rowPtr.free();
    this.colIdx.free();
  }
}

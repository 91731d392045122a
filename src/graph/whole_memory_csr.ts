// A graph every rank (and its GPU) reads whole, stored once: its CSR arrays
// in continuous WholeMemory, spread over the ranks' GPUs (or shared host
// memory), sampled in place by the same kernels as a local graph — on the
// GPU over NVLink (or the bus, for host memory), on the CPU by the C++ core.
// From a CsrGraph the row offsets are int32; from a NativeCsr they are int64
// (rows of two int32 words, so a rank's slice never splits an offset) and the
// columns are written from the native graph's pages without a copy.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {NativeDeviceMemory, NativeHostMemory} from '../native/addon';
import {deviceStatus} from '../native/device';
import type {Communicator} from '../memory/communicator';
import type {MemoryLocation, WholeMemoryTensor} from '../memory/whole_memory_tensor';
import {sampleOnDevice, sampleOnHost, SampleOptions, VertexMap} from './native_sampling';
import {secondOrder, walkOnDevice, walkOnHost, WalkOptions, walkTensor} from './random_walk';
import type {GraphStore, HostGraph} from './graph_store';

export class WholeMemoryCsr implements GraphStore {
  readonly place = 'wholememory' as const;
  readonly samples = 'tensors' as const;
  /** Scratch for relabelling samples on this rank's GPU. */
  readonly vertexMap: VertexMap;

  private constructor(
    private readonly rowPtr: WholeMemoryTensor,
    private readonly colIdx: WholeMemoryTensor,
    readonly numVertices: number,
    readonly numEdges: number,
    readonly location: MemoryLocation,
    private readonly sortedRows: boolean,
    /** Whether the row offsets are int64 (the graph was a NativeCsr). */
    readonly wideOffsets: boolean,
  ) {
    this.vertexMap = new VertexMap(numVertices);
  }

  /**
   * Collective: every rank passes the same graph (each writes only its own
   * rows; afterwards the local copy may be dropped).
   */
  static create(comm: Communicator, graph: HostGraph, opts: {location?: MemoryLocation} = {}): WholeMemoryCsr {
    graph.checked('WholeMemoryCsr.create');
    const wide = graph.wideOffsets;
    const location = opts.location ?? (deviceStatus().gpu ? 'device' : 'host');
    const sizes = comm.allgatherJson([graph.numVertices, graph.numEdges], 'graph sizes');
    sizes.forEach(([v, e], r) => {
      if (v !== graph.numVertices || e !== graph.numEdges) {
        throw new Error(
          `WholeMemoryCsr.create: rank ${r} has a graph of ${v} vertices and ${e} edges, rank ${comm.rank} of ${graph.numVertices} and ${graph.numEdges}`,
        );
      }
    });
    // `rows` rows of `width` int32 words; each rank writes its own, `slice(first, count)` of them (a
    // NativeCsr's are viewed in place, a rank's part at a time).
    const put = (rows: number, width: number, slice: (first: number, count: number) => Int32Array) => {
      const t = comm.malloc({type: 'continuous', location, shape: width === 1 ? [Math.max(rows, 1)] : [rows, width], dtype: 'int32'});
      try {
        const {first, count} = t.localRange;
        const end = Math.min(rows, first + count);
        const part = end > first ? slice(first, end - first) : new Int32Array(0);
        if (end - first === count) t.writeLocal(part);
        else {
          const mine = new Int32Array(count * width);
          mine.set(part);
          t.writeLocal(mine);
        }
      } catch (e) {
        t.free();
        throw e;
      }
      return t;
    };
    const n = graph.numVertices,
      m = graph.numEdges;
    // int64 offsets as rows of two words: a rank's slice never splits one.
    const rowPtr = put(n + 1, wide ? 2 : 1, (first, count) => {
      const o = graph.offsets(first, count);
      return new Int32Array(o.buffer, o.byteOffset, o.byteLength / 4);
    });
    let colIdx: WholeMemoryTensor;
    try {
      colIdx = put(m, 1, (first, count) => graph.columns(first, count));
    } catch (e) {
      rowPtr.free();
      throw e;
    }
    comm.barrier();
    return new WholeMemoryCsr(rowPtr, colIdx, graph.numVertices, graph.numEdges, location, graph.hasSortedRows(), wide);
  }

  private address(t: WholeMemoryTensor): number {
    const m = t.nativeMemory('sample');
    return t.location === 'device' ? (m as NativeDeviceMemory).address : (m as NativeHostMemory).deviceAddress;
  }

  // A process without a GPU reads a graph in shared host memory: its arrays there, and the ids on the host.
  private onHost(what: string, ids: tf.Tensor1D, idsName: string): {rowPtr: NativeHostMemory; colIdx: NativeHostMemory; ids: Int32Array} {
    if (this.location !== 'host') throw new Error(`${what}: the graph is in GPU memory and this process has no GPU`);
    if (ids.dtype !== 'int32') throw new TypeError(`${what}: ${idsName} must be int32, got ${ids.dtype}`);
    return {
      rowPtr: this.rowPtr.nativeMemory(what) as NativeHostMemory,
      colIdx: this.colIdx.nativeMemory(what) as NativeHostMemory,
      ids: Int32Array.from(ids.dataSync()),
    };
  }

  /**
   * Neighbours of seeds, as sampleNeighbors (host seeds) or DeviceCsr.sample
   * (seeds as a tensor on the GPU) return them — the same draws for the same seed.
   */
  sample(seeds: tf.Tensor1D, fanout: number, opts: SampleOptions = {}): {offsets?: tf.Tensor1D; ids: tf.Tensor1D} {
    if (!Number.isInteger(fanout) || fanout < 0) throw new RangeError(`sample: fanout must be a non-negative integer, got ${fanout}`);
    const b = tf.backend() as WholeMemoryBackend;
    if (b.gpu)
      return sampleOnDevice(
        b,
        this.address(this.rowPtr),
        this.address(this.colIdx),
        this.numVertices,
        seeds,
        fanout,
        opts,
        'sample',
        this.wideOffsets,
      );
    const h = this.onHost('sample', seeds, 'seeds');
    const got = sampleOnHost(h.rowPtr, h.colIdx, this.numVertices, h.ids, fanout, opts, 'sample');
    return {ids: tf.tensor1d(got.ids, 'int32'), offsets: got.offsets && tf.tensor1d(got.offsets, 'int32')};
  }

  /**
   * Walks from starts (see wm.graph.randomWalks) read in place: an int32
   * tensor [starts.size, length], the walks a local copy gives for the same seed.
   */
  randomWalks(starts: tf.Tensor1D, length: number, opts: WalkOptions = {}): tf.Tensor2D {
    if (secondOrder(opts) && !this.sortedRows) {
      throw new RangeError(
        "randomWalks: node2vec walks (p or q not 1) need every row's neighbours in ascending order, and this graph's are not",
      );
    }
    const b = tf.backend() as WholeMemoryBackend;
    if (b.gpu)
      return walkOnDevice(
        b,
        this.address(this.rowPtr),
        this.address(this.colIdx),
        this.numVertices,
        starts,
        length,
        opts,
        'randomWalks',
        this.wideOffsets,
      );
    const h = this.onHost('randomWalks', starts, 'starts');
    const walks = walkOnHost(h.rowPtr, h.colIdx, this.numVertices, h.ids, length, opts, 'randomWalks');
    return walkTensor(walks, length, this.numVertices);
  }

  /** Collective: frees the graph on every rank. */
  free(): void {
    this.rowPtr.free();
    this.colIdx.free();
    this.vertexMap.free();
  }
}

// A CSR graph copied to the GPU once and sampled there: from Int32Array
// arrays (a CsrGraph: int32 offsets) or from native memory (a NativeCsr: int64
// offsets, copied by the addon without passing through JavaScript).
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {checkCapacity} from '../memory/capacity';
import {graphNative} from '../native/domains';
import {checkNegatives, exhaustedError} from './negative_pairs';
import {checkSampleArgs, SampleOptions, sampleOnDevice, VertexMap} from './native_sampling';
import {checkGraph, walkOnDevice, WalkOptions} from './random_walk';
import type {GraphStore, HostGraph} from './graph_store';

function gpuBackend(what: string): WholeMemoryBackend {
  const b = tf.backend();
  if (!(b instanceof WholeMemoryBackend) || !b.gpu) throw new Error(`${what} needs the wholememory backend on a GPU`);
  return b;
}

export class DeviceCsr implements GraphStore {
  readonly place = 'device' as const;
  readonly samples = 'tensors' as const;
  /** Device addresses of the row offsets (int64 when wideOffsets, else int32) and the int32 columns. */
  readonly rowPtr: number;
  readonly colIdx: number;
  /** Whether the row offsets are int64 (a NativeCsr's) rather than int32 (a CsrGraph's). */
  readonly wideOffsets: boolean;
  readonly numVertices: number;
  readonly numEdges: number;
  /** Scratch for relabelling samples of this graph on the GPU. */
  readonly vertexMap: VertexMap;
  private readonly b: WholeMemoryBackend;
  private freed = false;

  /** The graph's arrays into device memory (the graph itself stays where it is; free it apart). */
  constructor(readonly graph: HostGraph) {
    this.b = gpuBackend('DeviceCsr');
    graph.checked('DeviceCsr');
    this.numVertices = graph.numVertices;
    this.numEdges = graph.numEdges;
    this.wideOffsets = graph.wideOffsets;
    const offsetBytes = (this.numVertices + 1) * (this.wideOffsets ? 8 : 4);
    checkCapacity(`DeviceCsr (${this.numVertices} vertices, ${this.numEdges} entries)`, DeviceCsr.bytesOf(graph), 'device');
    this.rowPtr = this.b.allocDevice(offsetBytes);
    try {
      this.colIdx = this.b.allocDevice(Math.max(this.numEdges, 1) * 4);
    } catch (e) {
      this.b.freeDevice(this.rowPtr);
      throw e;
    }
    try {
      graph.copyToDevice(this.rowPtr, this.colIdx);
    } catch (e) {
      this.b.freeDevice(this.rowPtr);
      this.b.freeDevice(this.colIdx);
      throw e;
    }
    this.vertexMap = new VertexMap(this.numVertices);
  }

  /** Device bytes of the graph's arrays. */
  get bytes(): number {
    return DeviceCsr.bytesOf(this.graph);
  }

  /** Device bytes a DeviceCsr of `graph` takes: its offsets (int64 for a NativeCsr) and columns. */
  static bytesOf(graph: GraphStore): number {
    return (graph.numVertices + 1) * (graph.wideOffsets ? 8 : 4) + graph.numEdges * 4;
  }

  /** Seeds on the GPU in, sampled ids (and offsets without replacement, also as read back) on the GPU out. */
  sample(
    seeds: tf.Tensor1D,
    fanout: number,
    opts: SampleOptions = {},
  ): {offsets?: tf.Tensor1D; hostOffsets?: Int32Array; ids: tf.Tensor1D} {
    this.live('sample');
    checkSampleArgs(fanout, opts.seed ?? 0, seeds.size);
    return sampleOnDevice(
      gpuBackend('DeviceCsr.sample'),
      this.rowPtr,
      this.colIdx,
      this.numVertices,
      seeds,
      fanout,
      opts,
      'DeviceCsr.sample',
      this.wideOffsets,
    );
  }

  /** Walks from starts on the GPU: an int32 tensor [starts.size, length] (see wm.graph.randomWalks). */
  randomWalks(starts: tf.Tensor1D, length: number, opts: WalkOptions = {}): tf.Tensor2D {
    this.live('randomWalks');
    checkGraph(this.graph, opts, 'DeviceCsr.randomWalks');
    return walkOnDevice(
      gpuBackend('DeviceCsr.randomWalks'),
      this.rowPtr,
      this.colIdx,
      this.numVertices,
      starts,
      length,
      opts,
      'DeviceCsr.randomWalks',
      this.wideOffsets,
    );
  }

  dispose(): void {
    if (this.freed) return;
    this.freed = true;
    this.b.freeDevice(this.rowPtr);
    this.b.freeDevice(this.colIdx);
    this.vertexMap.free();
  }

  private live(what: string): void {
    if (this.freed) throw new Error(`DeviceCsr.${what}: the graph was disposed`);
  }
}

/** On the GPU: negative pairs as int32 tensors (see sampleNegativePairs). */
export function deviceNegativePairs(csr: DeviceCsr, count: number, opts: {seed?: number} = {}): {src: tf.Tensor1D; dst: tf.Tensor1D} {
  const b = gpuBackend('deviceNegativePairs');
  const seed = opts.seed ?? 0;
  checkNegatives(csr.graph, count, seed);
  const src = b.makeDeviceOutput([count], 'int32'),
    dst = b.makeDeviceOutput([count], 'int32');
  const exhausted = count
    ? graphNative().negativePairs(csr.rowPtr, csr.colIdx, csr.numVertices, count, seed, src.ptr, dst.ptr, csr.wideOffsets)
    : 0;
  const out = {
    src: tf.engine().makeTensorFromTensorInfo(src.info) as tf.Tensor1D,
    dst: tf.engine().makeTensorFromTensorInfo(dst.info) as tf.Tensor1D,
  };
  if (exhausted > 0) {
    tf.dispose([out.src, out.dst]);
    throw exhaustedError(exhausted);
  }
  return out;
}

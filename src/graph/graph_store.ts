// The one interface of a graph, whichever store holds it (GraphBolt's sampling graph, WholeGraph's
// graph structure): callers ask the graph where it lives, how wide its offsets are and what its
// sampler takes, instead of testing its class. CsrGraph (JavaScript arrays) and NativeCsr (native host
// memory) are host graphs; DeviceCsr (one GPU) and WholeMemoryCsr (WholeMemory over a group's ranks)
// sample seed tensors where they are.
import type {NativeGraph} from '../native/handles';
import type {Ids} from '../util/arrays';

/** Where a graph's arrays live. */
export type GraphPlace = 'script' | 'host' | 'device' | 'wholememory';

export interface SampleOptions {
  /** With replacement: exactly fanout per seed (a vertex without neighbours samples itself). */
  replace?: boolean;
  seed?: number;
  /**
   * 'position' (default): draws keyed by the seed's position in the call.
   * 'vertex': keyed by the seed vertex, so a vertex gets the same neighbours
   * whichever call or process samples it (exact data parallelism), on the CPU and the GPU alike.
   */
  keyBy?: 'position' | 'vertex';
}

/** What every graph store says of itself. */
export interface GraphStore {
  /** 'script': JavaScript arrays; 'host': native host memory; 'device': one GPU; 'wholememory': WholeMemory over ranks. */
  readonly place: GraphPlace;
  readonly numVertices: number;
  /** CSR entries (directed edges; an undirected edge counts twice). May exceed 2^31 where offsets are wide. */
  readonly numEdges: number;
  /** Whether the row offsets are int64 (else int32). */
  readonly wideOffsets: boolean;
  /** What its sampler takes and gives: seed arrays on the host, seed tensors on the GPU. */
  readonly samples: 'arrays' | 'tensors';
}

/** A graph in host memory: what the host samplers, row blocks, walks, negative pairs and copies read. */
export interface HostGraph extends GraphStore {
  readonly place: 'script' | 'host';
  readonly samples: 'arrays';
  /** The arrays as the native host ops read them (a native graph's handle stands for both: colIdx null). */
  csrSource(): {rowPtr: Int32Array | NativeGraph; colIdx: Int32Array | null};
  /** The graph, once its arrays are known to be a CSR (checked here for JavaScript arrays, naming `what`). */
  checked(what: string): this;
  /** Row offsets [first, first + count) (int64 where wideOffsets). */
  offsets(first: number, count: number): Int32Array | BigInt64Array;
  /** Columns [first, first + count). */
  columns(first: number, count: number): Int32Array;
  /** Both arrays into device memory: (numVertices + 1) offsets at rowPtr, numEdges columns at colIdx. */
  copyToDevice(rowPtr: number, colIdx: number): void;
  /** Neighbours of each seed: ids [seeds * fanout] with replacement, or {offsets, ids} without. */
  sample(seeds: Ids, fanout: number, opts?: SampleOptions): {offsets?: Int32Array; ids: Int32Array};
  degrees(vertices?: Ids): Int32Array;
  rows(first: number, count: number): {offsets: Int32Array; columns: Int32Array};
  neighbors(v: number): Int32Array;
  hasSortedRows(): boolean;
  requireSortedRows(what: string): this;
  checksum(): string;
}

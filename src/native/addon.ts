// Loads the native addon (build/Release/wholememory.node) and describes its
// functions. Device addresses travel as numbers.
import * as fs from 'fs';
import * as path from 'path';

import type {
  NativeDeviceMemory,
  NativeGraph,
  NativeHostArray,
  NativeHostMemory,
  NativeKgText,
  NativeOptimizerParams,
  NativeTable,
  NativeTextColumns,
} from './handles';
import type {Buf, NativeDType, NativeOps, OptBuf} from './ops';

export type * from './handles';

export interface NativeInfo {
  builtWithCuda: boolean;
  deviceCount: number;
  reason: string;
}

export interface NativeGpu {
  name: string;
  /** "8.6", "9.0". */
  computeCapability: string;
  totalBytes: number;
  multiprocessors: number;
  pciBusId: string;
  /** peerAccess[j]: this GPU can read and write GPU j's memory directly. */
  peerAccess: boolean[];
  /** peerAtomics[j]: this GPU's atomic operations on GPU j's memory are native (NVLink). */
  peerAtomics: boolean[];
}

export interface NativeCudaSetup {
  /** The CUDA runtime compiled in, e.g. 13000 for 13.0; 0 when built without CUDA. */
  runtimeVersion: number;
  /** The newest CUDA the installed driver supports; 0 without a driver. */
  driverVersion: number;
  /** The CUDA targets compiled in, CMake's form: "75-real,…,90a-real,90-virtual". */
  archs: string;
  gpus: NativeGpu[];
}

export interface NativeMemoryInfo {
  bytesInUse: number;
  bytesReserved: number;
  peakBytesInUse: number;
  allocations: number;
  freeBytes: number;
  totalBytes: number;
}

export interface NativeCommunicator {
  /**
   * The all-reduce of a plan (src/memory/allreduce_plan.ts: float32 device arrays, ins may equal outs;
   * wire, op, algorithm; outputs allocated here when the plan says so, their addresses written into
   * it). Queued on the stream (NCCL calls wait, bounded). Returns the path taken: 0 one-shot, 1
   * two-shot, 2 NCCL.
   */
  allReduceDevice(plan: Float64Array): number;
  /**
   * Benchmarks: `calls` all-reduces (sums) of one float32 device array queued back to back from C++,
   * waited for once; µs per call. algo 1 one-shot, 2 two-shot, 3 NCCL. Collective.
   */
  allReduceLoop(input: number, output: number, count: number, wire: number, algo: number, calls: number): number;
  readonly rank: number;
  readonly size: number;
  readonly sameHost: boolean;
  allgather(mine: Uint8Array, what: string): Uint8Array[];
  barrier(what: string): void;
  setTimeout(ms: number): void;
  destroy(): void;
}

export interface NativeManagedInfo {
  bytesInUse: number;
  bytesCached: number;
  allocations: number;
  hits: number;
  misses: number;
}

/** lr, beta1, beta2, epsilon, 1 - beta1, 1 - beta2, 1 - beta1^t, 1 - beta2^t (see wm/dense_optimizer.h). */
export type AdamScalars = [number, number, number, number, number, number, number, number];

/** A CSR array on the host: an Int32Array, or continuous int32 host WholeMemory read in place. */
export type HostInt32Source = Int32Array | NativeHostMemory;
/** The source of a CSR for sampling and walks: also continuous int32 host WholeMemory (read in place). */
export type CsrSource = Buf | NativeHostMemory;
/** How a text table reads (wm/text_columns.h). */
export interface TextColumnsSpec {
  /** Leading vertex-id columns (decimal, at most 2^31 - 2). */
  ids?: number;
  /** Number columns after them; -1: as many as the first row holds. */
  values?: number;
  /** Numbers kept as float64 (else float32). */
  doubles?: boolean;
  /** "nan" reads as NaN (else every number must be finite). */
  nanValues?: boolean;
  /** An empty line is a row of NaN. */
  blankRows?: boolean;
  /** Lines starting with # or % are comments. */
  comments?: boolean;
  /** Fields past the columns are ignored (else refused). */
  extraFields?: boolean;
  /** Ids must be below this. */
  idBound?: number;
}

/** Row offsets for sampling: also int64 (a BigInt64Array), or a NativeGraph in their place (its columns then come with it). */
export type RowPtrSource = CsrSource | BigInt64Array | NativeGraph;

/** node2vec's step weights relative to the largest (wm/random_walk.h). */
export interface WalkBias {
  back: number;
  near: number;
  far: number;
  uniform: boolean;
}

/**
 * The calls written by hand in native/addon/*_bindings.cc: objects (communicators, WholeMemory handles,
 * embedding tables), runtime queries, shared buffers. `npm run lint:ops` checks each against its binding.
 */
export interface NativeBindings {
  /** Kernels, copies and allocations go to the side stream while on (wm/runtime.h). */
  useSideStream(on: boolean): void;
  mainWaitsForSide(): void;
  sideWaitsForMain(): void;
  sampleWithReplacement(
    rowPtr: RowPtrSource,
    colIdx: CsrSource | null,
    numVertices: number,
    seeds: Buf,
    n: number,
    fanout: number,
    seed: number,
    out: Buf,
    errorFlag: OptBuf,
    keyByVertex?: boolean,
    wideOffsets?: boolean,
  ): number | undefined;
  sampleWithoutReplacement(
    rowPtr: RowPtrSource,
    colIdx: CsrSource | null,
    numVertices: number,
    seeds: Buf,
    n: number,
    fanout: number,
    seed: number,
    offsets: Buf,
    out: OptBuf,
    errorFlag: OptBuf,
    keyByVertex?: boolean,
    wideOffsets?: boolean,
  ): number | undefined;
  NativeDeviceMemory: new (
    comm: NativeCommunicator,
    type: number,
    rows: number,
    rowBytes: number,
    granularityRows: number,
    devices?: number[],
  ) => NativeDeviceMemory;
  managedAlloc(bytes: number): number;
  managedFree(ptr: number): void;
  managedEmptyCache(): void;
  managedInfo(): NativeManagedInfo;
  managedSizeClass(bytes: number): number;
  /** Locations: -1 is the host, d >= 0 is GPU d; accessedBy -1 sets none. */
  managedAdvise(ptr: number, bytes: number, preferredLocation: number, accessedBy: number): void;
  managedPrefetch(ptr: number, bytes: number, location: number): void;
  pinnedHostAlloc(bytes: number): number;
  pinnedHostFree(ptr: number): void;
  embeddingInit(table: NativeTable, firstRow: number, count: number, seed: number, kind: number, scale: number, onDevice: boolean): void;
  /** Distributed tables on GPUs (collectives; rows travel as float32 through NCCL). */
  distributedEmbeddingGather(
    comm: NativeCommunicator,
    local: NativeTable,
    rows: number,
    rowsPerRank: number,
    indices: number,
    n: number,
    out: number,
  ): void;
  distributedEmbeddingWrite(
    comm: NativeCommunicator,
    local: NativeTable,
    rows: number,
    rowsPerRank: number,
    indices: number,
    n: number,
    values: number,
  ): void;
  distributedEmbeddingApply(
    comm: NativeCommunicator,
    local: NativeTable,
    rows: number,
    rowsPerRank: number,
    state0: number,
    state1: number,
    indices: Buf,
    n: number,
    grads: Buf,
    opt: number,
    params: NativeOptimizerParams,
    skipped: Buf,
  ): void;
  /** Collective: every rank's gradients gathered on every rank, each applying those of its rows [first, first + count) (wm/distributed.h). */
  ownerEmbeddingApply(
    comm: NativeCommunicator,
    table: NativeTable,
    first: number,
    count: number,
    state0: number,
    state1: number,
    indices: Buf,
    n: number,
    nMax: number,
    grads: Buf,
    opt: number,
    params: NativeOptimizerParams,
    skipped: Buf,
  ): void;
  /**
   * Collective: SGD (no weight decay) over a table every rank addresses, each rank adding its own rows' steps
   * with atomic adds between two orderings of every rank's reads and writes (wm/distributed.h).
   */
  sharedEmbeddingAdd(
    comm: NativeCommunicator,
    table: NativeTable,
    indices: Buf,
    n: number,
    grads: Buf,
    params: NativeOptimizerParams,
    skipped: Buf,
  ): void;
  bootstrapUniqueId(host: string, port: number, nonce?: string, secretHex?: string): string;
  /** Adam over many tensors: 7 addresses per tensor (param, grad, m, v, outParam, outM, outV), one size per tensor. */
  denseAdam(buffers: Buf[], sizes: number[], ...scalars: AdamScalars): void;
  randomWalks(
    rowPtr: RowPtrSource,
    colIdx: CsrSource | null,
    numVertices: number,
    starts: Buf,
    n: number,
    length: number,
    seed: number,
    bias: WalkBias,
    out: Buf,
    errorFlag: OptBuf,
    wideOffsets?: boolean,
  ): number | undefined;
  /** Shared buffers: a whole cudaMalloc allocation and its CUDA IPC handle (hex). */
  sharedDeviceAlloc(bytes: number): {ptr: number; handle: string};
  sharedDeviceFree(ptr: number): void;
  sharedDeviceOpen(handle: string): number;
  sharedDeviceClose(ptr: number): void;
  /** A memfd segment; sharedHostMap maps it (by descriptor, or by /proc path checked against its inode). */
  sharedHostCreate(bytes: number): {fd: number; inode: number};
  /** Copy-on-write view; refused when the segment is shorter than bytes. */
  sharedHostMap(fdOrPath: number | string, bytes: number, inode?: number): ArrayBuffer;
  sharedHostState(fdOrPath: number | string, inode?: number): {bytes: number; writeSealed: boolean};
  sharedHostWrite(fdOrPath: number | string, inode: number | undefined, byteOffset: number, data: ArrayBufferView): void;
  /** The owner's word that the segment is read-only (F_SEAL_WRITE). */
  sharedHostSealWrites(fd: number): void;
  /** SO_PEERCRED of a Unix socket. */
  socketPeer(fd: number): {pid: number; uid: number; gid: number};
  fdLimit(): number;
  closeFd(fd: number): void;
  /** "NCCL <version>" where it can be loaded, else "unavailable: <why>". */
  ncclStatus(): string;
  NativeCommunicator: new (uniqueId: string, rank: number, size: number, timeoutMs: number) => NativeCommunicator;
  NativeHostMemory: new (
    comm: NativeCommunicator,
    type: number,
    rows: number,
    rowBytes: number,
    granularityRows: number,
    /** Names the collective in errors (default 'malloc'). */
    what?: string,
  ) => NativeHostMemory;

  info(): NativeInfo;
  deviceDetails(): {device: number; name: string; cublas: boolean; cpuBinding: string};
  cudaSetup(): NativeCudaSetup;
  kernelImage(): {binaryVersion: number; ptxVersion: number; cublas: string; nccl: string};
  selectDevice(device: number): void;
  alloc(bytes: number): number;
  free(ptr: number): void;
  upload(ptr: number, values: ArrayBufferView): void;
  download(ptr: number, out: ArrayBufferView): void;
  readAsync<T extends ArrayBufferView>(ptr: number, out: T): Promise<T>;
  copyDeviceToDevice(dst: number, src: number, bytes: number): void;
  synchronize(): void;
  emptyCache(): void;
  memoryInfo(): NativeMemoryInfo;
  /** Op timing (wm/op_timing.h): on or off; the totals since the last take, the slowest first (cleared). */
  setOpTiming(on: boolean): void;
  takeOpTimes(): {name: string; device: boolean; calls: number; ms: number}[];
  /** The GPU's float32 products (wm/matmul_precision.h): 0 full float32, 1 TF32 tensor cores, 2 bfloat16 tensor cores. */
  setMatmulPrecision(level: number): void;
  matmulPrecision(): number;
  /** Threads the C++ CPU kernels use (WM_THREADS, else this process's CPUs over the launcher's local ranks, at most 16). */
  cpuThreads(): number;
  /** glibc keeps blocks up to 32 MiB in its heap and the heap up to 1 GiB (wm/host_heap.h), unless WM_HOST_HEAP=system; true when set. */
  keepHostBlocksInHeap(): boolean;
  /** CSR from edges (symmetric adds each reverse edge); rows sorted, duplicates and self loops dropped. Host only. */
  /** Graphs in native memory (wm/native_graph.h): int64 offsets, int32 columns. */
  graphFromEdges(numVertices: number, src: Int32Array, dst: Int32Array, symmetric: boolean): NativeGraph;
  graphRmat(
    scale: number,
    edgeFactor: number,
    a: number,
    b: number,
    c: number,
    seed: number,
    permute: boolean,
    vertices: number,
    symmetric: boolean,
  ): NativeGraph;
  graphLoad(path: string): NativeGraph;
  /** CSR from parsed edge columns it takes over (freed once placed unless a view holds them). */
  graphFromEdgeArrays(numVertices: number, src: NativeHostArray, dst: NativeHostArray, symmetric: boolean): NativeGraph;
  /** CSR from an edge matrix in a file ([2, m] or, pairsInRows, [m, 2]; int32 or int64), read in place; numVertices -1: the largest id + 1. */
  graphFromEdgeMatrix(
    path: string,
    offset: number,
    m: number,
    int64: boolean,
    pairsInRows: boolean,
    numVertices: number,
    symmetric: boolean,
  ): NativeGraph;
  /** A typed graph's relation: row d the sources of the edges into d, ascending, every edge kept; sources below numSrc, destinations below numDst. */
  graphRelation(numVertices: number, src: Int32Array, dst: Int32Array, numSrc: number, numDst: number): NativeGraph;
  /** A relation from another relation's graph: its edges as they are (0), each the other way (1), or both (2). */
  graphRelationFrom(graph: NativeGraph, which: 0 | 1 | 2): NativeGraph;
  /** The same from an edge matrix in a file (as graphFromEdgeMatrix reads it). */
  graphRelationFromEdgeMatrix(
    path: string,
    offset: number,
    m: number,
    int64: boolean,
    pairsInRows: boolean,
    numVertices: number,
  ): NativeGraph;
  /** The largest source and destination ids of an edge matrix in a file (-1: none). */
  edgeMatrixMaxIds(path: string, offset: number, m: number, int64: boolean, pairsInRows: boolean): [number, number];
  /** A generated relation (wm/native_graph.h TypedDrawSpec); labels are needed where homophily > 0. */
  graphTypedDraw(
    numSrc: number,
    numDst: number,
    m: number,
    srcSkew: number,
    dstSkew: number,
    homophily: number,
    classes: number,
    seed: number,
    reverse: boolean,
    both: boolean,
    srcLabels: Int32Array | null,
    dstLabels: Int32Array | null,
  ): NativeGraph;
  /** Labels in [0, classes) from a hash of (seed, vertex), into out [n]. */
  hashLabels(n: number, classes: number, seed: number, out: Int32Array): void;
  /** The CSBM graph (wm/native_graph.h CsbmSpec), its labels written into `labels` [vertices]. */
  graphCsbm(vertices: number, classes: number, degree: number, homophily: number, seed: number, labels: Int32Array): NativeGraph;
  /** Rows [first, first + count) of a CSBM's features into out [count * dim]: class means plus hashed unit noise. */
  csbmFeatures(
    vertices: number,
    classes: number,
    degree: number,
    homophily: number,
    seed: number,
    labels: Int32Array,
    means: Float32Array,
    dim: number,
    first: number,
    count: number,
    out: Float32Array,
  ): void;
  /** A checked copy of int32 CSR arrays with 64-bit offsets. */
  graphFromCsr(rowPtr: Int32Array, colIdx: Int32Array): NativeGraph;
  /** A text table parser (wm/text_columns.h); `name` starts its error messages. */
  textColumns(name: string, spec: TextColumnsSpec): NativeTextColumns;
  /** A reader of one knowledge graph's text files (wm/kg_text.h). */
  kgText(): NativeKgText;
  /** `length` elements of `dtype` at byte `offset` of a file, mapped copy-on-write. */
  hostArrayMap(path: string, offset: number, length: number, dtype: NativeHostArray['dtype']): NativeHostArray;
  /** The 64-bit digest (16 hex digits) of a typed array's bytes, as graph files record theirs. */
  digest(bytes: ArrayBufferView, seed: number): string;
  /** The class itself, for instanceof: its instances come from graphFromEdges, graphRmat and graphLoad. */
  NativeGraph: abstract new () => NativeGraph;
  /** The class of textColumns' columns and hostArrayMap's arrays. */
  HostArray: abstract new () => NativeHostArray;
}

/** The whole addon: the op table (./ops.ts) and the hand-written bindings. */
export type NativeAddon = NativeOps & NativeBindings;

const PACKAGE_NAME = 'tfjs-backend-wholememory';

// The package's root: the first folder above this file whose package.json is ours (the same code runs
// from dist/src/native and from bundles placed elsewhere under dist/).
function packageRoot(): string | undefined {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    try {
      if (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name === PACKAGE_NAME) return dir;
    } catch {
      // no package.json here, or not JSON: keep walking up
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The addon this process loads: $TFJS_WHOLEMEMORY_ADDON when set (one built elsewhere, e.g. for other GPU
 * targets), else a local build (build/Release), else the prebuilt one for this platform, architecture and
 * Node-API (prebuilds/<platform>-<arch>/, matched by node-gyp-build).
 */
function findAddon(): string {
  const chosen = process.env.TFJS_WHOLEMEMORY_ADDON;
  if (chosen) {
    if (!fs.existsSync(chosen)) throw new Error(`TFJS_WHOLEMEMORY_ADDON: ${chosen} does not exist`);
    return path.resolve(chosen);
  }
  const root = packageRoot();
  if (root === undefined) throw new Error(`tfjs-backend-wholememory: no package.json named ${PACKAGE_NAME} above ${__dirname}`);
  try {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    return (require('node-gyp-build') as {path(dir: string): string}).path(root);
  } catch (e) {
    throw new Error(
      `tfjs-backend-wholememory: no native addon in ${root} (neither build/Release nor a prebuilt one matches: ` +
        `${(e as Error).message.split('\n')[0]}). Compile it (CMake, a C++ compiler; nvcc for the GPU): in a checkout ` +
        `"npm run build:native"; in a project, "npm install-scripts approve tfjs-backend-wholememory && npm rebuild tfjs-backend-wholememory".`,
    );
  }
}

/** Whether the addon found is one shipped in the package (prebuilds/) rather than compiled here. */
export function addonIsPrebuilt(location: string): boolean {
  return location.split(path.sep).includes('prebuilds');
}

let loaded: NativeAddon | undefined;
let loadedFrom: string | undefined;

/** Where the addon was (or would be) loaded from; undefined when none is found. */
export function addonLocation(): string | undefined {
  if (loadedFrom !== undefined) return loadedFrom;
  try {
    return findAddon();
  } catch {
    return undefined;
  }
}

export function nativeAddon(): NativeAddon {
  if (loaded === undefined) {
    const file = findAddon();
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    loaded = require(file) as NativeAddon;
    loadedFrom = file;
  }
  return loaded;
}

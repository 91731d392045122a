// Loads the native addon (build/Release/wholememory.node) and describes its
// functions. Device addresses travel as numbers.
import * as fs from 'fs';
import * as path from 'path';

export const enum NativeDType { F32 = 0, I32 = 1, Bool = 2 }

export interface NativeInfo {
  builtWithCuda: boolean;
  deviceCount: number;
  reason: string;
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
   * Float32 device arrays (ins may equal outs); wire 0 f32, 1 f16, 2 bf16; algo 0 auto, 1 one-shot,
   * 2 two-shot, 3 NCCL. Queued on the stream (NCCL calls wait, bounded). Returns the path taken.
   */
  allReduceDevice(ins: number[], outs: number[], counts: number[], wire: number, mean: boolean, algo: number,
                  params?: number[], lr?: number): string;
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

export interface NativeHostMemory {
  readonly rowsPerRank: number;
  readonly localFirstRow: number;
  readonly localRowCount: number;
  gather(indices: Int32Array, out: ArrayBufferView): number;
  scatter(indices: Int32Array, values: ArrayBufferView): number;
  readLocal(out: ArrayBufferView): void;
  writeLocal(values: ArrayBufferView): void;
  /** On a GPU: device int32 indices, device float32 rows, read/written over the bus (not for distributed memory). */
  deviceGather(indices: number, n: number, out: number, errorFlag: number): void;
  deviceScatter(indices: number, n: number, values: number, errorFlag: number): void;
  /** On a GPU: continuous memory's device address (pinned and mapped on first use). */
  readonly deviceAddress: number;
  /** out = scale * the sum of every rank's slice (continuous memory). */
  sumSlices(scale: number, out: Float32Array): void;
  /** values into this rank's rows from byteOffset on; wire 1 (float16) or 2 (bfloat16): float32 values, each rounded to it. */
  writeLocalAt(values: ArrayBufferView, byteOffset: number, wire?: number): void;
  /** The ranks meet through an arrival counter in this memory (wm/flag_barrier.h); names a rank that is gone or late. */
  flagBarrier(epoch: number, timeoutMs: number, pids: Int32Array, what: string): void;
  free(): void;
}

/** A table for the embedding kernels: device address, host array, or host WholeMemory. */
export interface NativeTable {
  ptr?: number;
  array?: ArrayBufferView;
  memory?: NativeHostMemory | NativeDeviceMemory;
  rows: number;
  dim: number;
  storage: number;
  /** The global index of row 0 (a rank's part of a distributed table; initial values follow it). */
  rowBase?: number;
}

export interface NativeOptimizerParams {
  lr: number;
  beta1: number;
  beta2: number;
  rho: number;
  eps: number;
  weightDecay: number;
  biasCorrection1: number;
  biasCorrection2: number;
}

export interface NativeManagedInfo {
  bytesInUse: number;
  bytesCached: number;
  allocations: number;
  hits: number;
  misses: number;
}

export interface NativeDeviceMemory {
  readonly rowsPerRank: number;
  /** Continuous memory's one device address (0 for chunked). */
  readonly address: number;
  readonly localFirstRow: number;
  readonly localRowCount: number;
  gather(indices: number, n: number, out: number, errorFlag: number): void;
  scatter(indices: number, n: number, values: number, errorFlag: number): void;
  readLocal(out: ArrayBufferView): void;
  writeLocal(values: ArrayBufferView): void;
  free(): void;
}

/** lr, beta1, beta2, epsilon, 1 - beta1, 1 - beta2, 1 - beta1^t, 1 - beta2^t (see wm/dense_optimizer.h). */
export type AdamScalars = [number, number, number, number, number, number, number, number];

/** A device address, or host memory for the CPU core. */
export type WindowBuf = number | Float32Array | Int32Array;

/** node2vec's step weights relative to the largest (wm/random_walk.h). */
export interface WalkBias {
  back: number;
  near: number;
  far: number;
  uniform: boolean;
}

export interface NativeAddon {
  /** Kernels, copies and allocations go to the side stream while on (wm/runtime.h). */
  useSideStream(on: boolean): void;
  mainWaitsForSide(): void;
  sideWaitsForMain(): void;
  sampleWithReplacement(rowPtr: number, colIdx: number, numVertices: number, seeds: number, n: number, fanout: number,
                        seed: number, out: number, errorFlag: number, keyByVertex?: boolean): void;
  sampleWithoutReplacement(rowPtr: number, colIdx: number, numVertices: number, seeds: number, n: number, fanout: number,
                           seed: number, offsets: number, out: number, errorFlag: number, keyByVertex?: boolean): void;
  hostSampleWithReplacement(rowPtr: Int32Array | NativeHostMemory, colIdx: Int32Array | NativeHostMemory, seeds: Int32Array, fanout: number, seed: number, out: Int32Array,
                            keyByVertex?: boolean): number;
  hostSampleWithoutReplacement(rowPtr: Int32Array | NativeHostMemory, colIdx: Int32Array | NativeHostMemory, seeds: Int32Array, fanout: number, seed: number,
                               offsets: Int32Array, out: Int32Array | null, keyByVertex?: boolean): number;
  NativeDeviceMemory: new (comm: NativeCommunicator, type: number, rows: number, rowBytes: number, granularityRows: number,
                           devices?: number[]) => NativeDeviceMemory;
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
  embeddingGather(table: NativeTable, indices: number, indexType: number, n: number, out: number, errorFlag: number): void;
  embeddingWriteRows(table: NativeTable, indices: number, indexType: number, n: number, values: number, errorFlag: number): void;
  embeddingApply(table: NativeTable, state0: number, state1: number, indices: number, indexType: number, n: number,
                 grads: number, opt: number, params: NativeOptimizerParams, errorFlag: number, skipped: number): void;
  /** Distributed tables on GPUs (collectives; rows travel as float32 through NCCL). */
  distributedEmbeddingGather(comm: NativeCommunicator, local: NativeTable, rows: number, rowsPerRank: number, indices: number, n: number, out: number): void;
  distributedEmbeddingWrite(comm: NativeCommunicator, local: NativeTable, rows: number, rowsPerRank: number, indices: number, n: number, values: number): void;
  distributedEmbeddingApply(comm: NativeCommunicator, local: NativeTable, rows: number, rowsPerRank: number, state0: number, state1: number,
                            indices: number, n: number, grads: number, opt: number, params: NativeOptimizerParams, skipped: number): void;
  hostEmbeddingGather(table: NativeTable, indices: Int32Array, out: Float32Array): number;
  hostEmbeddingWriteRows(table: NativeTable, indices: Int32Array, values: Float32Array): number;
  hostEmbeddingApply(table: NativeTable, state0: ArrayBufferView | NativeHostMemory | null, state1: ArrayBufferView | NativeHostMemory | null,
                     indices: Int32Array, grads: Float32Array, opt: number, params: NativeOptimizerParams): number;
  bootstrapUniqueId(host: string, port: number, nonce?: string, secretHex?: string): string;
  /** Graph operations (native/include/wm/graph_ops.h): device addresses, or typed arrays for the host versions. */
  uniqueInt32(x: number, n: number, values: number, inverse: number): number;
  /** One hop's unique-and-relabel over a vertex map (wm/graph_ops.h); returns the count. */
  relabelVertices(dst: number, nDst: number, ids: number, nIds: number, numVertices: number, map: number, values: number, neighbors: number): number;
  hostUniqueInt32(x: Int32Array, values: Int32Array, inverse: Int32Array): number;
  /** Graph attention's passes (wm/graph_ops.h): device addresses, or typed arrays for the CPU core. */
  /** Row dots (wm/row_dots.h): device addresses or, on the CPU core, Float32Arrays. */
  rowDots(a: number | Float32Array, b: number | Float32Array, n: number, m: number, d: number, out: number | Float32Array): void;
  rowDotsGrad(a: number | Float32Array, b: number | Float32Array, g: number | Float32Array, n: number, m: number, d: number,
              dA: number | Float32Array, dB: number | Float32Array): void;
  gatForward(rowPtr: number | Int32Array, colIdx: number | Int32Array, numRows: number, numCols: number, feat: number | Float32Array,
             src: number | Float32Array, dst: number | Float32Array, heads: number, dim: number, slope: number, out: number | Float32Array,
             alpha: number | Float32Array): void;
  gatBackwardRows(rowPtr: number | Int32Array, colIdx: number | Int32Array, numRows: number, numCols: number, feat: number | Float32Array,
                  src: number | Float32Array, dst: number | Float32Array, heads: number, dim: number, slope: number,
                  alpha: number | Float32Array, dOut: number | Float32Array, dz: number | Float32Array, dDst: number | Float32Array): void;
  gatBackwardCols(rowPtrT: number | Int32Array, colIdxT: number | Int32Array, edgeT: number | Int32Array, numCols: number, numRows: number,
                  alpha: number | Float32Array, dz: number | Float32Array, dOut: number | Float32Array, heads: number, dim: number,
                  dFeat: number | Float32Array, dSrc: number | Float32Array): void;
  /** splits: int32 device array of long rows and their chunks (csrSplits in graph/aggregate.ts), or 0 with numLong 0. */
  csrSpmm(rowPtr: number, colIdx: number, weight: number, rowScale: number, numRows: number, x: number, dim: number, out: number,
          splits: number, numLong: number, numChunks: number, chunkEntries: number): void;
  neighborMean(neighbors: number, numRows: number, fanout: number, x: number, dim: number, out: number): void;
  /** Adam over many tensors: 7 addresses per tensor (param, grad, m, v, outParam, outM, outV), one size per tensor. */
  denseAdam(buffers: number[], sizes: number[], ...scalars: AdamScalars): void;
  hostDenseAdam(buffers: Float32Array[], ...scalars: AdamScalars): void;
  neighborMeanGrad(neighbors: number, numRows: number, fanout: number, dy: number, dim: number, dx: number, numInputs: number): void;
  /** y = act(y + bias) in place; its gradient dz and the bias gradient (wm/ops.h). */
  biasActivation(y: number, bias: number, rows: number, cols: number, relu: boolean): void;
  biasActivationGrad(dy: number, y: number, rows: number, cols: number, relu: boolean, dz: number, dBias: number): void;
  hostCsrSpmm(rowPtr: Int32Array, colIdx: Int32Array, weight: Float32Array | null, rowScale: Float32Array | null, x: Float32Array,
              dim: number, out: Float32Array): void;
  negativePairs(rowPtr: number, colIdx: number, numVertices: number, count: number, seed: number, src: number, dst: number): number;
  hostNegativePairs(rowPtr: Int32Array, colIdx: Int32Array, seed: number, src: Int32Array, dst: Int32Array): number;
  randomWalks(rowPtr: number, colIdx: number, numVertices: number, starts: number, n: number, length: number, seed: number,
              bias: WalkBias, out: number, errorFlag: number): void;
  walkPairs(walks: number, n: number, length: number, window: number, center: number, context: number): void;
  hostWalkPairs(walks: Int32Array, length: number, window: number, center: Int32Array, context: Int32Array): void;
  randomVertices(count: number, numVertices: number, seed: number, out: number): void;
  hostRandomVertices(numVertices: number, seed: number, out: Int32Array): void;
  hostRandomWalks(rowPtr: Int32Array | NativeHostMemory, colIdx: Int32Array | NativeHostMemory, starts: Int32Array, length: number,
                  seed: number, bias: WalkBias, out: Int32Array): number;
  hostBuildCsr(numVertices: number, src: Int32Array, dst: Int32Array, symmetric: boolean): {rowPtr: Int32Array; colIdx: Int32Array};
  hostRmat(scale: number, a: number, b: number, c: number, seed: number, permute: boolean, src: Int32Array, dst: Int32Array): void;
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
  NativeHostMemory: new (comm: NativeCommunicator, type: number, rows: number, rowBytes: number, granularityRows: number) => NativeHostMemory;

  info(): NativeInfo;
  deviceDetails(): {device: number; name: string; cublas: boolean};
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
  unary(op: number, dtIn: NativeDType, dtOut: NativeDType, x: number, y: number, n: number,
        alpha: number, beta: number): void;
  binary(op: number, dtIn: NativeDType, dtOut: NativeDType, a: number, b: number, y: number,
         shape: number[], aStrides: number[], bStrides: number[]): void;
  binaryFlat(op: number, dtIn: NativeDType, dtOut: NativeDType, a: number, b: number, y: number, n: number): void;
  /** The 2-D window kernels: buffers are device addresses or (the CPU core) typed arrays; g is the 14 numbers of wm::Window2D. */
  depthwiseConv2d(x: WindowBuf, w: WindowBuf, y: WindowBuf, g: number[], mult: number): void;
  depthwiseConv2dInputGrad(dy: WindowBuf, w: WindowBuf, dx: WindowBuf, g: number[], mult: number, dyH: number, dyW: number): void;
  depthwiseConv2dFilterGrad(x: WindowBuf, dy: WindowBuf, dw: WindowBuf, g: number[], mult: number): void;
  conv2dForward(x: number, w: number, y: number, g: number[], outC: number): void;
  conv2dInputGrad(dy: number, w: number, dx: number, g: number[], outC: number, dyH: number, dyW: number): void;
  conv2dFilterGrad(x: number, dy: number, dw: number, g: number[], outC: number): void;
  pool2d(op: number, x: WindowBuf, y: WindowBuf, g: number[]): void;
  pool2dGrad(op: number, dy: WindowBuf, argmax: WindowBuf, dx: WindowBuf, g: number[]): void;
  binaryScalar(op: number, dtIn: NativeDType, dtOut: NativeDType, x: number, value: number, scalarFirst: boolean,
               y: number, n: number): void;
  select(dt: NativeDType, cond: number, a: number, b: number, y: number, shape: number[],
         condStrides: number[], aStrides: number[], bStrides: number[]): void;
  fill(dt: NativeDType, y: number, n: number, value: number): void;
  stridedCopy(elemSize: number, src: number, srcOffset: number, srcStrides: number[],
              srcMod: number[], dst: number, dstOffset: number, dstStrides: number[],
              shape: number[]): void;
  reduce(op: number, dtIn: NativeDType, dtOut: NativeDType, x: number, y: number, outer: number, inner: number, after?: number): void;
  softmax(x: number, y: number, outer: number, inner: number, log: boolean): void;
  /** The k largest entries of each row of [rows, n], largest first, ties by position (wm/ops.h). */
  topK(dt: NativeDType, x: number, values: number, indices: number, rows: number, n: number, k: number): void;
  /** Running sums (products) along the middle axis of [outer, n, inner] (wm/ops.h). */
  cumulative(product: boolean, dt: NativeDType, x: number, y: number, outer: number, n: number, inner: number, exclusive: boolean, reverse: boolean): void;
  /** C = op(A) op(B) + beta C (beta default 0). */
  batchMatMul(a: number, b: number, c: number, batch: number, m: number, n: number, k: number,
              transA: boolean, transB: boolean, aBatchStride: number, bBatchStride: number, beta?: number): void;
  gather(dt: NativeDType, x: number, indices: number, y: number, outer: number, axisDim: number,
         inner: number, numIndices: number, outerPerBatch: number, errorFlag: number): void;
  unsortedSegmentSum(dt: NativeDType, x: number, segmentIds: number, y: number, numRows: number,
                     inner: number, numSegments: number): void;
  scatterNd(dt: NativeDType, indices: number, updates: number, y: number, numUpdates: number,
            indexDepth: number, sliceSize: number, dims: number[], errorFlag: number): void;
  /** y = x * scale where the mask of (seed, position) keeps it (wm/dropout_mask.h), else 0; seed as two 32-bit halves. */
  dropout(x: number, y: number, n: number, threshold: number, scale: number, seedHigh: number, seedLow: number): void;
  hostDropout(x: Float32Array, y: Float32Array, threshold: number, scale: number, seedHigh: number, seedLow: number): void;
  oneHot(dt: NativeDType, indices: number, y: number, n: number, depth: number, onValue: number,
         offValue: number): void;

  // The same kernels over host typed arrays (the CPU path).
  hostUnary(op: number, dtIn: NativeDType, dtOut: NativeDType, x: ArrayBufferView, y: ArrayBufferView, alpha: number,
            beta: number): void;
  hostBinary(op: number, dtIn: NativeDType, dtOut: NativeDType, a: ArrayBufferView, b: ArrayBufferView,
             y: ArrayBufferView, shape: number[], aStrides: number[], bStrides: number[]): void;
  hostSelect(dt: NativeDType, cond: ArrayBufferView, a: ArrayBufferView, b: ArrayBufferView, y: ArrayBufferView,
             shape: number[], condStrides: number[], aStrides: number[], bStrides: number[]): void;
  hostStridedCopy(elemSize: number, src: ArrayBufferView, srcOffset: number, srcStrides: number[], srcMod: number[],
                  dst: ArrayBufferView, dstOffset: number, dstStrides: number[], shape: number[]): void;
  hostReduce(op: number, dtIn: NativeDType, dtOut: NativeDType, x: ArrayBufferView, y: ArrayBufferView, outer: number,
             reduceSize: number, inner: number): void;
  hostSoftmax(x: Float32Array, y: Float32Array, outer: number, inner: number, log: boolean): void;
  hostTopK(dt: NativeDType, x: ArrayBufferView, values: ArrayBufferView, indices: Int32Array, rows: number, n: number, k: number): void;
  hostCumulative(product: boolean, dt: NativeDType, x: ArrayBufferView, y: ArrayBufferView, outer: number, n: number, inner: number,
                 exclusive: boolean, reverse: boolean): void;
  /** Softmax cross-entropy (wm/ops.h): rowLoss and total are optional (0 / null). */
  softmaxCrossEntropy(logits: number, labels: number, classIds: boolean, rows: number, classes: number, scale: number, rowLoss: number,
                      total: number): void;
  softmaxCrossEntropyGrad(logits: number, labels: number, classIds: boolean, rows: number, classes: number, dLoss: number, perRow: boolean,
                          scale: number, dLogits: number): void;
  hostSoftmaxCrossEntropy(logits: Float32Array, labels: Float32Array | Int32Array, classIds: boolean, rows: number, classes: number,
                          scale: number, rowLoss: Float32Array | null, total: Float32Array | null): void;
  hostSoftmaxCrossEntropyGrad(logits: Float32Array, labels: Float32Array | Int32Array, classIds: boolean, rows: number, classes: number,
                              dLoss: Float32Array, perRow: boolean, scale: number, dLogits: Float32Array): void;
  hostBatchMatMul(a: Float32Array, b: Float32Array, c: Float32Array, batch: number, m: number, n: number, k: number,
                  transA: boolean, transB: boolean, aBatchStride: number, bBatchStride: number): void;
  /** Threads the C++ CPU kernels use (WM_THREADS, else this process's CPUs over the launcher's local ranks, at most 16). */
  hostThreads(): number;
  /** Adds row r of x [rows, inner] into row ids[r] of y; ids outside [0, numSegments) are skipped. */
  hostOneHot(dt: NativeDType, indices: Int32Array, y: ArrayBufferView, depth: number, onValue: number, offValue: number): void;
  hostScatterNd(dt: NativeDType, indices: Int32Array, updates: ArrayBufferView, y: ArrayBufferView, numUpdates: number, indexDepth: number,
                sliceSize: number, dims: number[]): void;
  hostSegmentSum(dt: NativeDType, x: ArrayBufferView, ids: Int32Array, y: ArrayBufferView, rows: number, inner: number,
                 numSegments: number): void;
  /** Returns the position of the first out-of-range index (nothing written), or -1. */
  hostGather(elemSize: number, x: ArrayBufferView, indices: Int32Array, y: ArrayBufferView, outer: number,
             axisDim: number, inner: number, numIndices: number, outerPerBatch: number): number;
}

const ADDON = path.join('build', 'Release', 'wholememory.node');

// Walks up from this file to the package root: the same code runs from
// dist/src/backend and from bundles placed elsewhere under dist/.
function findAddon(): string {
  const tried: string[] = [];
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, ADDON);
    tried.push(candidate);
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) break;
  }
  throw new Error(
      `tfjs-backend-wholememory: the native addon was not built (looked for ${tried.join(', ')}). ` +
      `Run "npm run build:native" (needs CMake and a C++ compiler; nvcc for GPU support).`);
}

let loaded: NativeAddon | undefined;

export function nativeAddon(): NativeAddon {
  if (loaded === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    loaded = require(findAddon()) as NativeAddon;
  }
  return loaded;
}

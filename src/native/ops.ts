// The signatures of the addon's op table (native/include/wm/op_registry.h): every op registered with
// WM_OP, said once. Parameter names and positions are the ones its C++ bodies read (a.count(4, "rows")),
// and `npm run lint:ops` (scripts/check-op-signatures.js) fails when the two disagree or an op is
// registered without a type here (or typed here without a registration).

import type {NativeGraph, NativeHostMemory, NativeOptimizerParams, NativeTable} from './handles';

export const enum NativeDType {
  F32 = 0,
  I32 = 1,
  Bool = 2,
}

/**
 * An op's buffer: a device address (the op runs on the GPU) or a typed array (it runs on the C++ CPU core).
 * Every op of the addon takes either; all of one call's buffers live in one place.
 */
export type Buf = number | Float32Array | Int32Array | Uint8Array;
/** An optional buffer: 0 (device) or null (host) for none. */
export type OptBuf = Buf | null;

/**
 * The graph attention passes' last arguments: the row strides, in floats, of feat, src and dst and of their gradients
 * (packed when left out: heads * dim, heads, heads), so a pass reads and writes columns of wider matrices in place.
 */
export type GatStrideArgs = [] | [featStride: number, srcStride: number, dstStride: number];

/** The table's ops: each runs its host body for typed arrays, its device body for device addresses. */
export interface NativeOps {
  /** Graph operations (native/include/wm/graph_ops.h). */
  uniqueInt32(x: Buf, n: number, values: Buf, inverse: Buf): number;
  /** One hop's unique-and-relabel over a vertex map (wm/graph_ops.h); returns the count. */
  relabelVertices(
    dst: Buf,
    nDst: number,
    ids: Buf,
    nIds: number,
    numVertices: number,
    map: Buf,
    stamp: number,
    values: Buf,
    neighbors: Buf,
  ): number;
  /** Row dots (graph/row_dots.h), then graph attention's passes (wm/graph_ops.h). */
  rowDots(a: Buf, b: Buf, n: number, m: number, d: number, out: Buf): void;
  rowDotsGrad(a: Buf, b: Buf, g: number | Float32Array, n: number, m: number, d: number, dA: Buf, dB: Buf): void;
  kgTriples(
    numEntities: number,
    numRelations: number,
    first: number,
    count: number,
    seed: number,
    skew: number,
    exponent: number,
    heads: Int32Array,
    relations: Int32Array,
    tails: Int32Array,
  ): void;
  complexProduct(rows: number, half: number, conjA: boolean, conjB: boolean, a: Buf, b: Buf, out: Buf): void;
  /** Complex rows x [rows, 2 half] rotated by their phases [rows, half] times scale (negated with conj): out = x * e^(i scale phase). */
  complexRotation(rows: number, half: number, scale: number, conj: boolean, x: Buf, phase: Buf, out: Buf): void;
  /** complexRotation's gradients given the output's g: dx [rows, 2 half], dPhase [rows, half]. */
  complexRotationGrad(rows: number, half: number, scale: number, conj: boolean, x: Buf, phase: Buf, g: Buf, dx: Buf, dPhase: Buf): void;
  csrTranspose(
    rowPtr: Int32Array,
    colIdx: Int32Array,
    numRows: number,
    numCols: number,
    entryWeight: Float32Array | null,
    rowWeight: Float32Array | null,
    outRowPtr: Int32Array,
    outColIdx: Int32Array,
    outEdge: Int32Array,
    outWeight: Float32Array | null,
  ): void;
  relabelByMarks(all: Int32Array, n: number, marks: Int32Array, numMarks: number, unique: Int32Array, inverse: Int32Array): number;
  kgeChunkLoss(
    scorer: number,
    lossKind: number,
    rows: number,
    chunk: number,
    negatives: number,
    width: number,
    margin: number,
    temperature: number,
    lossMargin: number,
    weight: number,
    q: Buf,
    own: Buf,
    neg: Buf,
    loss: Buf,
    dq: Buf,
    dOwn: Buf,
    dNeg: Buf,
  ): void;
  /** Scores out [groups, n, m] of queries q [groups, n, width] against candidates c [groups, m, width] (host only). */
  kgeGroupScores(scorer: number, margin: number, groups: number, n: number, m: number, width: number, q: Buf, c: Buf, out: Buf): void;
  /**
   * kgeChunkLoss's arguments, then how the queries are composed (0 translate, 1 diagonal, 2 complex product, 3
   * rotate), whether the candidates fill the head side, the rotation's phase scale: from rows [heads; tails;
   * negatives] and relation [positives, relation width] to loss [positives], dRows and dRelation (laid out alike).
   */
  kgeStep(
    scorer: number,
    lossKind: number,
    positives: number,
    chunk: number,
    negatives: number,
    width: number,
    margin: number,
    temperature: number,
    lossMargin: number,
    weight: number,
    compose: number,
    head: boolean,
    scale: number,
    rows: Buf,
    relation: Buf,
    loss: Buf,
    dRows: Buf,
    dRelation: Buf,
  ): void;
  gatForward(
    rowPtr: Buf,
    colIdx: Buf,
    numRows: number,
    numCols: number,
    feat: Buf,
    src: Buf,
    dst: Buf,
    heads: number,
    dim: number,
    slope: number,
    out: Buf,
    alpha: number | Float32Array,
    ...strides: GatStrideArgs
  ): void;
  gatBackwardRows(
    rowPtr: Buf,
    colIdx: Buf,
    numRows: number,
    numCols: number,
    feat: Buf,
    src: Buf,
    dst: Buf,
    heads: number,
    dim: number,
    slope: number,
    alpha: number | Float32Array,
    dOut: Buf,
    dz: Buf,
    dDst: Buf,
    ...strides: GatStrideArgs
  ): void;
  gatBackwardCols(
    rowPtrT: Buf,
    colIdxT: Buf,
    edgeT: Buf,
    numCols: number,
    numRows: number,
    alpha: number | Float32Array,
    dz: Buf,
    dOut: Buf,
    heads: number,
    dim: number,
    dFeat: Buf,
    dSrc: Buf,
    ...strides: GatStrideArgs
  ): void;
  /**
   * R-GAT's weight columns (native/src/graph/relation_columns.h): W_r^T, (W_r a_src_r)^T, (W_r a_dst_r)^T and root^T
   * written as row blocks of out [outRows, inDim]; blocks: 3 first rows a relation (-1: none), rootStarts: root^T's copies.
   */
  relationColumns(
    w: Buf,
    attSrc: Buf,
    attDst: Buf,
    root: OptBuf,
    relations: number,
    inDim: number,
    heads: number,
    units: number,
    rootOut: number,
    blocks: number[],
    rootStarts: number[],
    out: Buf,
    outRows: number,
  ): void;
  /** relationColumns' gradient: dOut [outRows, inDim] folded back into dW, dAttSrc, dAttDst and (rootOut > 0) dRoot. */
  relationColumnsGrad(
    dOut: Buf,
    w: Buf,
    attSrc: Buf,
    attDst: Buf,
    relations: number,
    inDim: number,
    heads: number,
    units: number,
    rootOut: number,
    blocks: number[],
    rootStarts: number[],
    outRows: number,
    dW: Buf,
    dAttSrc: Buf,
    dAttDst: Buf,
    dRoot: OptBuf,
  ): void;
  /** GPU only: the column pass by atomics over the forward block (no transposed block), added into what dFeat and dSrc hold. */
  gatBackwardScatter(
    rowPtr: number,
    colIdx: number,
    numRows: number,
    numCols: number,
    alpha: number,
    dz: number,
    dOut: number,
    heads: number,
    dim: number,
    dFeat: number,
    dSrc: number,
    ...strides: GatStrideArgs
  ): void;
  /** splits: int32 device array of long rows and their chunks (csrSplits in graph/aggregate.ts), or 0 with numLong 0. */
  csrSpmm(
    rowPtr: Buf,
    colIdx: Buf,
    weight: OptBuf,
    rowScale: OptBuf,
    numRows: number,
    x: Buf,
    dim: number,
    out: Buf,
    splits: OptBuf,
    numLong: number,
    numChunks: number,
    chunkEntries: number,
  ): void;
  /**
   * The transposed product of a CSR block of `entries` entries without its transpose (GPU): dx [numCols, dim], dx[c] the sum of
   * rowScale[r] weight[e] dy[r] over the entries e naming c, in entry order (the same bits every run).
   */
  csrSpmmScatter(
    rowPtr: Buf,
    colIdx: Buf,
    weight: OptBuf,
    rowScale: OptBuf,
    numRows: number,
    entries: number,
    dy: Buf,
    dim: number,
    dx: Buf,
    numCols: number,
  ): void;
  neighborMean(neighbors: Buf, numRows: number, fanout: number, x: Buf, dim: number, out: Buf): void;
  neighborMeanGrad(neighbors: Buf, numRows: number, fanout: number, dy: Buf, dim: number, dx: Buf, numInputs: number): void;
  /** y = act(y + bias) in place; its gradient dz and the bias gradient (kernels/ops.h). */
  biasActivation(y: Buf, bias: Buf, rows: number, cols: number, relu: boolean): void;
  biasActivationGrad(dy: Buf, y: Buf, rows: number, cols: number, relu: boolean, dz: Buf, dBias: Buf): void;
  negativePairs(
    rowPtr: Buf | NativeGraph,
    colIdx: Buf | null,
    numVertices: number,
    count: number,
    seed: number,
    src: Buf,
    dst: Buf,
    wideOffsets?: boolean,
  ): number;
  /** out [count + 1] int32: the offsets of rows [first, first + count) of a graph on the GPU, from 0. */
  csrSliceOffsets(rowPtr: Buf, first: number, count: number, out: Buf, wideOffsets?: boolean): void;
  walkPairs(walks: Buf, n: number, length: number, window: number, center: Buf, context: Buf): void;
  randomVertices(count: number, numVertices: number, seed: number, out: Buf): void;
  /** Edge weights in the graph's entry order from the weighted edges it was built from; -1, or the first edge it lacks. */
  csrEdgeWeights(graph: NativeGraph, src: Buf, dst: Buf, weights: Buf, m: number, symmetric: boolean, out: Buf): number;
  /** Values as float32 into out (stored 0 float32: out may be null, checked only; 1 float16 bits; 2 float64); the first non-finite position or -1. */
  seededPermutation(n: number, seed: number, out: Int32Array): void;
  floatRows(values: Float32Array | Uint16Array | Float64Array, stored: number, n: number, out: OptBuf): number;
  unary(op: number, dtypeIn: NativeDType, dtypeOut: NativeDType, x: Buf, y: Buf, n: number, alpha: number, beta: number): void;
  binary(
    op: number,
    dtypeIn: NativeDType,
    dtypeOut: NativeDType,
    a: Buf,
    b: Buf,
    y: Buf,
    shape: number[],
    aStrides: number[],
    bStrides: number[],
  ): void;
  binaryFlat(op: number, dtypeIn: NativeDType, dtypeOut: NativeDType, a: Buf, b: Buf, y: Buf, n: number): void;
  /** The 2-D window kernels: buffers are device addresses or (the CPU core) typed arrays; g is the 14 numbers of wm::Window2D. */
  depthwiseConv2d(x: Buf, w: Buf, y: Buf, geometry: number[], mult: number): void;
  depthwiseConv2dInputGrad(dy: Buf, w: Buf, dx: Buf, geometry: number[], mult: number, dyH: number, dyW: number): void;
  depthwiseConv2dFilterGrad(x: Buf, dy: Buf, dw: Buf, geometry: number[], mult: number): void;
  conv2dForward(x: Buf, w: Buf, y: Buf, geometry: number[], outC: number): void;
  conv2dInputGrad(dy: Buf, w: Buf, dx: Buf, geometry: number[], outC: number, dyH: number, dyW: number): void;
  conv2dFilterGrad(x: Buf, dy: Buf, dw: Buf, geometry: number[], outC: number): void;
  pool2d(op: number, x: Buf, y: Buf, geometry: number[]): void;
  pool2dGrad(op: number, dy: Buf, argmax: OptBuf, dx: Buf, geometry: number[]): void;
  binaryScalar(
    op: number,
    dtypeIn: NativeDType,
    dtypeOut: NativeDType,
    x: Buf,
    value: number,
    scalarFirst: boolean,
    y: Buf,
    n: number,
  ): void;
  select(
    dtype: NativeDType,
    cond: Buf,
    a: Buf,
    b: Buf,
    y: Buf,
    shape: number[],
    condStrides: number[],
    aStrides: number[],
    bStrides: number[],
  ): void;
  fill(dtype: NativeDType, y: Buf, n: number, value: number): void;
  /** Concat on the GPU (device addresses only): input i [outer, inners[i]] into its columns of dst [outer, outInner], one launch per eight inputs. */
  concatColumns(elemSize: number, srcs: number[], inners: number[], dst: number, outer: number, outInner: number): void;
  stridedCopy(
    elemSize: number,
    src: Buf,
    srcOffset: number,
    srcStrides: number[],
    srcMod: number[],
    dst: Buf,
    dstOffset: number,
    dstStrides: number[],
    shape: number[],
  ): void;
  reduce(op: number, dtypeIn: NativeDType, dtypeOut: NativeDType, x: Buf, y: Buf, outer: number, inner: number, after?: number): void;
  softmax(x: Buf, y: Buf, outer: number, inner: number, log: boolean): void;
  /** The k largest entries of each row of [rows, n], largest first, ties by position (kernels/ops.h). */
  topK(dtype: NativeDType, x: Buf, values: Buf, indices: Buf, rows: number, n: number, k: number): void;
  /** Running sums (products) along the middle axis of [outer, n, inner] (kernels/ops.h). */
  cumulative(
    product: boolean,
    dtype: NativeDType,
    x: Buf,
    y: Buf,
    outer: number,
    n: number,
    inner: number,
    exclusive: boolean,
    reverse: boolean,
  ): void;
  /** C = op(A) op(B) + beta C (beta default 0). */
  batchMatMul(
    a: Buf,
    b: Buf,
    c: Buf,
    batch: number,
    m: number,
    n: number,
    k: number,
    transA: boolean,
    transB: boolean,
    aBatchStride: number,
    bBatchStride: number,
    beta?: number,
  ): void;
  /** Gathers rows; on the host returns the position of the first out-of-range index (nothing written) or -1, on the GPU sets errorFlag. */
  gather(
    dtype: NativeDType,
    x: Buf,
    indices: Buf,
    y: Buf,
    outer: number,
    axisDim: number,
    inner: number,
    numIndices: number,
    outerPerBatch: number,
    errorFlag: OptBuf,
  ): number | undefined;
  /** Adds row r of x [rows, inner] into row ids[r] of y; ids outside [0, numSegments) are skipped. */
  segmentSum(dtype: NativeDType, x: Buf, ids: Buf, y: Buf, rows: number, inner: number, numSegments: number): void;
  scatterNd(
    dtype: NativeDType,
    indices: Buf,
    updates: Buf,
    y: Buf,
    numUpdates: number,
    indexDepth: number,
    sliceSize: number,
    dims: number[],
    errorFlag: OptBuf,
  ): void;
  /** y = x * scale where the mask of (seed, position) keeps it (kernels/dropout_mask.h), else 0; seed as two 32-bit halves. */
  dropout(x: Buf, y: Buf, n: number, threshold: number, scale: number, seedHigh: number, seedLow: number): void;
  oneHot(dtype: NativeDType, indices: Buf, y: Buf, n: number, depth: number, onValue: number, offValue: number): void;

  // The same kernels over host typed arrays (the CPU path).
  /** Softmax cross-entropy (kernels/ops.h): rowLoss and total are optional (0 / null). */
  softmaxCrossEntropy(
    logits: Buf,
    labels: Buf,
    classIds: boolean,
    rows: number,
    classes: number,
    scale: number,
    rowLoss: OptBuf,
    total: OptBuf,
  ): void;
  softmaxCrossEntropyGrad(
    logits: Buf,
    labels: Buf,
    classIds: boolean,
    rows: number,
    classes: number,
    dLoss: Buf,
    perRow: boolean,
    scale: number,
    dLogits: Buf,
  ): void;
  /** Fills src and dst with R-MAT edges over 2^scale vertices. Host only. */
  rmat(scale: number, a: number, b: number, c: number, seed: number, permute: boolean, src: Int32Array, dst: Int32Array): void;
  /** For each value, its insertion position in its row of sorted [batch, seqLen] (wm's sorted_search). */
  searchSorted(
    dtype: NativeDType,
    sorted: Buf,
    values: Buf,
    out: Buf,
    batch: number,
    seqLen: number,
    numValues: number,
    right: boolean,
  ): void;
  /**
   * Embedding tables (wm/embedding.h): host bodies return the first bad index position (-1: none) for
   * gather and write and the skipped gradient elements for the step; device bodies write them to errorFlag / skipped.
   */
  embeddingGather(
    table: NativeTable,
    indices: Buf | BigInt64Array,
    indexType: number,
    n: number,
    out: Buf,
    errorFlag: OptBuf,
  ): number | undefined;
  /** Device only: out[r] = mean of the table's rows at ids[neighbors[r * fanout + e]] for r < numRows (numIds ids, valid rows). */
  embeddingGatherMean(table: NativeTable, ids: Buf, numIds: number, neighbors: Buf, numRows: number, fanout: number, out: Buf): void;
  /** Device only: the same over a CSR block, out[r] = mean over e in [rowPtr[r], rowPtr[r + 1]) of the rows at ids[colIdx[e]] (0 if none). */
  embeddingGatherMeanCsr(table: NativeTable, ids: Buf, numIds: number, rowPtr: Buf, colIdx: Buf, numRows: number, out: Buf): void;
  embeddingWriteRows(
    table: NativeTable,
    indices: Buf | BigInt64Array,
    indexType: number,
    n: number,
    values: Buf,
    errorFlag: OptBuf,
  ): number | undefined;
  embeddingApply(
    table: NativeTable,
    state0: OptBuf | NativeHostMemory,
    state1: OptBuf | NativeHostMemory,
    indices: Buf | BigInt64Array,
    indexType: number,
    n: number,
    grads: Buf,
    opt: number,
    params: NativeOptimizerParams,
    errorFlag: OptBuf,
    skipped: OptBuf,
  ): number | undefined;
  /**
   * The row cache (wm::RowCache): copies table rows ids[0..n) into slots 0..n of `hot` and records
   * them in slotOf; copies the slots back; adds the lookups whose row is cached to *hits (the host
   * body returns them). `table` is the contiguous table behind the cache.
   */
  rowCacheLoad(
    table: NativeTable,
    ids: number | Int32Array,
    n: number,
    hot: number | Float32Array | Uint16Array,
    slotOf: number | Int32Array,
  ): void;
  rowCacheStore(table: NativeTable, ids: number | Int32Array, n: number, hot: number | Float32Array | Uint16Array): void;
  rowCacheHits(
    slotOf: number | Int32Array,
    rows: number,
    indices: Buf | BigInt64Array,
    indexType: number,
    n: number,
    hits: OptBuf,
  ): number | undefined;
}

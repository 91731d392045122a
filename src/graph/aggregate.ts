// Neighbour aggregation for GNN layers: out[r] = mean (or sum, or GCN's
// symmetric normalisation) of x over the rows CSR row r lists — a sparse x
// dense product, native on the GPU and the CPU. Its gradient is the same
// product over the transposed block (carrying each entry's weight), or on
// the GPU the block's entries gathered by column; neither direction builds an
// [edges, dim] intermediate or uses atomics: results are deterministic.
import * as tf from '@tensorflow/tfjs-core';

import {nativeBackend, WholeMemoryBackend} from '../backend/backend_wholememory';
import {CsrGraph} from './csr';
import {deviceStatus} from '../native/device';
import {graphNative} from '../native/domains';

export type AggregateReduce = 'mean' | 'sum' | 'gcn';

const EMPTY_COLUMNS = new Int32Array(1);
const EMPTY_BLOCK_COLUMNS = new Int32Array(0);

/** @internal */
export interface Csr {
  rowPtr: Int32Array;
  colIdx: Int32Array;
  /** In a transposed block: each entry's position in the block it was transposed from. */
  edge?: Int32Array;
  weight?: Float32Array; // per entry
  rowScale?: Float32Array; // per row
  numRows: number;
  numCols: number;
}

// Device copies of a Csr's arrays, made on first GPU use.
interface DeviceCsrArrays {
  rowPtr: tf.Tensor;
  colIdx: tf.Tensor;
  edge?: tf.Tensor;
  weight?: tf.Tensor;
  rowScale?: tf.Tensor;
  /** Rows longer than SPMM_CHUNK_ENTRIES and their chunks (csrSplits); null: none; built on the product's first use. */
  splits?: {array: tf.Tensor; numLong: number; numChunks: number} | null;
}

/** c's entries, read from its offsets (its columns may be read back from the GPU only when first asked for). */
function entriesOf(c: Csr): number {
  return c.rowPtr[c.numRows];
}

// A Csr whose colIdx is read back by `columns` on first use (a getter, kept by derivedCsr).
function lazyColumns(base: Omit<Csr, 'colIdx'>, columns: () => Int32Array): Csr {
  let host: Int32Array | undefined;
  return Object.defineProperty(base, 'colIdx', {get: () => (host ??= columns()), enumerable: true}) as Csr;
}

// c with `extra` fields, its colIdx carried as c holds it (a lazy one stays lazy and shared).
function derivedCsr(c: Csr, extra: Partial<Csr>): Csr {
  const out = Object.defineProperties({}, Object.getOwnPropertyDescriptors(c)) as Csr;
  return Object.assign(out, extra);
}

/**
 * Entries of a row the GPU product sums in one piece: longer rows (a power-law
 * graph's hubs) are split into chunks of this many, summed apart, then added
 * in order, so one hub no longer holds the whole GPU up (bench:gcn, R-MAT
 * scale 20, width 128, one H100: 11.0 ms a product without chunks, 2.96 with
 * chunks of 512; 3.04 with 128, 3.12 with 2,048). WM_SPMM_CHUNK_ENTRIES sets it.
 */
export const SPMM_CHUNK_ENTRIES = envChunkEntries() ?? 512;

function envChunkEntries(): number | undefined {
  const v = process.env.WM_SPMM_CHUNK_ENTRIES;
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`WM_SPMM_CHUNK_ENTRIES must be a positive integer, got "${v}"`);
  return n;
}

/** @internal The GPU product's long rows of c and their chunks, in csrSpmm's layout (graph_ops.h); undefined if none. */
export function csrSplits(c: Csr, chunkEntries = SPMM_CHUNK_ENTRIES): {array: Int32Array; numLong: number; numChunks: number} | undefined {
  // Locals, not c's fields, in the loops: products of many shapes pass through here, and a field read on an
  // object of many shapes in a loop of millions of rows cost more than the loop.
  const rowPtr = c.rowPtr,
    numRows = c.numRows;
  const longRows: number[] = [];
  let numChunks = 0;
  for (let r = 0; r < numRows; ++r) {
    const deg = rowPtr[r + 1] - rowPtr[r];
    if (deg > chunkEntries) {
      longRows.push(r);
      numChunks += Math.ceil(deg / chunkEntries);
    }
  }
  if (!longRows.length) return undefined;
  const numLong = longRows.length,
    array = new Int32Array(2 * numLong + 1 + 2 * numChunks);
  const chunkPtr = array.subarray(numLong, 2 * numLong + 1),
    chunkRow = array.subarray(2 * numLong + 1, 2 * numLong + 1 + numChunks);
  const chunkStart = array.subarray(2 * numLong + 1 + numChunks);
  let k = 0;
  longRows.forEach((r, i) => {
    array[i] = r;
    chunkPtr[i] = k;
    for (let e = rowPtr[r]; e < rowPtr[r + 1]; e += chunkEntries, ++k) {
      chunkRow[k] = r;
      chunkStart[k] = e;
    }
  });
  chunkPtr[numLong] = k;
  return {array, numLong, numChunks};
}

// Blocks of at least this many entries are transposed natively (the same result, in threads where they pay).
const NATIVE_TRANSPOSE_ENTRIES = 4096;

/**
 * @internal The block transposed, each entry with its forward position; with weights, entry e of row r weighs
 * entryWeight[e] x rowWeight[r] (each 1 where absent).
 */
export function transpose(c: Csr, w: {entryWeight?: Float32Array; rowWeight?: Float32Array} = {}): Csr {
  const {rowPtr: fwdPtr, colIdx: fwdCol, numRows, numCols} = c; // locals in the loops (see csrSplits)
  const m = fwdCol.length;
  if (m >= NATIVE_TRANSPOSE_ENTRIES && deviceStatus().addonLoaded) {
    const rowPtr = new Int32Array(numCols + 1),
      colIdx = new Int32Array(m),
      edge = new Int32Array(m);
    const weight = w.entryWeight || w.rowWeight ? new Float32Array(m) : undefined;
    graphNative().csrTranspose(
      fwdPtr,
      fwdCol,
      numRows,
      numCols,
      w.entryWeight ?? null,
      w.rowWeight ?? null,
      rowPtr,
      colIdx,
      edge,
      weight ?? null,
    );
    return {rowPtr, colIdx, edge, weight, numRows: numCols, numCols: numRows};
  }
  const rowPtr = new Int32Array(numCols + 1);
  for (let e = 0; e < m; ++e) ++rowPtr[fwdCol[e] + 1];
  for (let i = 0; i < numCols; ++i) rowPtr[i + 1] += rowPtr[i];
  const fill = rowPtr.slice(0, numCols);
  const colIdx = new Int32Array(m),
    edge = new Int32Array(m);
  const {entryWeight, rowWeight} = w;
  const weight = entryWeight || rowWeight ? new Float32Array(m) : undefined;
  for (let r = 0; r < numRows; ++r) {
    const rw = rowWeight ? rowWeight[r] : 1;
    for (let e = fwdPtr[r], end = fwdPtr[r + 1]; e < end; ++e) {
      const at = fill[fwdCol[e]]++;
      colIdx[at] = r;
      edge[at] = e;
      if (weight) weight[at] = (entryWeight ? entryWeight[e] : 1) * rw;
    }
  }
  return {rowPtr, colIdx, edge, weight, numRows: numCols, numCols: numRows};
}

/**
 * Kipf and Welling's D^-1/2 (A + I) D^-1/2 over a block whose rows are its
 * first numRows columns (a sampled block's destinations come first among its
 * sources; a whole graph is square).
 * Without `degrees` (a whole graph, or any block): each row gains its self
 * loop unless it lists itself already, and entry (r, c) weighs
 * 1 / sqrt(deg(r) deg(c)) with deg(r) the row's entries and deg(c) the
 * entries naming column c, self loops counted; on a whole symmetric graph
 * these are the graph's degrees plus one.
 * With `degrees` (each column's degree in the whole graph, what
 * sampleSubgraph attaches): d(v) = degrees[v] + 1, the self loop weighs
 * 1 / d(r), and each of row r's n listed entries (a sample of its degrees[r]
 * neighbours) weighs (degrees[r] / n) / sqrt(d(r) d(c)): an unbiased estimate
 * of the whole graph's row, which depends on nothing but the row's own sample
 * (so a batch split among ranks gives each seed what the whole batch does),
 * and is exactly the whole graph's row when nothing was left out.
 */
function gcnNormalized(c: Csr, degrees?: Int32Array): Csr {
  const {numRows, numCols} = c;
  // Entry weights (CsrBlock.withWeights) count in the degrees as PyG's edge_weight does; self loops weigh 1.
  const w = c.weight;
  if (w && degrees)
    throw new RangeError(
      "aggregate: 'gcn' over a sampled block estimates each row from the graph's degrees, which edge weights do not enter; weigh a whole-graph block",
    );
  const {rowPtr: inPtr, colIdx: inCol} = c; // locals in the loops (see csrSplits)
  const hasSelf = new Uint8Array(numRows);
  if (!degrees) {
    for (let r = 0; r < numRows; ++r) {
      for (let e = inPtr[r]; e < inPtr[r + 1]; ++e) if (inCol[e] === r) hasSelf[r] = 1;
    }
  }
  const rowPtr = new Int32Array(numRows + 1);
  for (let r = 0; r < numRows; ++r) rowPtr[r + 1] = rowPtr[r] + inPtr[r + 1] - inPtr[r] + (hasSelf[r] ? 0 : 1);
  const deg = new Float64Array(numCols);
  if (degrees) {
    for (let v = 0; v < numCols; ++v) deg[v] = degrees[v] + 1;
  } else {
    inCol.forEach((col, e) => (deg[col] += w ? w[e] : 1));
    for (let r = 0; r < numRows; ++r) if (!hasSelf[r]) ++deg[r];
  }
  const colIdx = new Int32Array(rowPtr[numRows]),
    weight = new Float32Array(rowPtr[numRows]);
  for (let r = 0; r < numRows; ++r) {
    const listed = inPtr[r + 1] - inPtr[r];
    // Entries counted, or weighed (an added self loop weighs 1); with the graph's degrees, those.
    let rowDeg = degrees ? deg[r] : w ? (hasSelf[r] ? 0 : 1) : rowPtr[r + 1] - rowPtr[r];
    if (w) for (let e = inPtr[r]; e < inPtr[r + 1]; ++e) rowDeg += w[e];
    const scale = degrees && listed > 0 ? degrees[r] / listed : 1;
    let at = rowPtr[r];
    const put = (col: number, w: number) => {
      colIdx[at] = col;
      weight[at++] = w / Math.sqrt(rowDeg * deg[col]);
    };
    if (!hasSelf[r]) put(r, 1);
    for (let e = inPtr[r]; e < inPtr[r + 1]; ++e) put(inCol[e], w ? w[e] : scale);
  }
  return {rowPtr, colIdx, weight, numRows, numCols};
}

/** Each of the first `numRows` rows' 1 / its entries (0 for an empty row): the row scale of a mean over CSR offsets. */
export function inverseRowLengths(rowPtr: Int32Array, numRows: number): Float32Array {
  const out = new Float32Array(numRows);
  for (let r = 0; r < numRows; ++r) {
    const d = rowPtr[r + 1] - rowPtr[r];
    out[r] = d > 0 ? 1 / d : 0;
  }
  return out;
}

/**
 * A block of a (sampled) graph: row r, an output vertex, aggregates input
 * rows colIdx[rowPtr[r] .. rowPtr[r + 1]). Built once, used every step.
 */
export class CsrBlock {
  private readonly csr: Csr;
  private readonly derived = new Map<string, Csr>();
  private readonly device = new Map<Csr, DeviceCsrArrays>();
  // Device copies by host array: products that share the block's offsets or columns upload them once.
  private readonly uploaded = new Map<Int32Array | Float32Array, tf.Tensor>();

  // Each column's degree in the whole graph, or how to get them when first asked for.
  private degreesOf?: Int32Array | (() => Int32Array);

  /**
   * Each column's degree in the whole graph (sampleSubgraph attaches them): 'gcn' aggregation then
   * normalises by the graph's degrees (see gcnNormalized).
   */
  get degrees(): Int32Array | undefined {
    if (typeof this.degreesOf === 'function') this.degreesOf = this.degreesOf();
    return this.degreesOf;
  }

  /** trusted: @internal (see CsrBlock.trusted). */
  constructor(
    rowPtr: Int32Array,
    colIdx: Int32Array,
    numCols: number,
    degrees?: Int32Array,
    trusted?: {
      device?: {rowPtr?: tf.Tensor1D; colIdx?: tf.Tensor1D};
      degrees?: () => Int32Array;
      scatter?: boolean;
      columnsOnDevice?: boolean;
      rowEntriesAtMost?: number;
    },
  ) {
    if (trusted) {
      this.degreesOf = trusted.degrees ?? degrees;
      this.scatters = trusted.scatter ?? false;
      this.rowEntriesAtMost = trusted.rowEntriesAtMost;
      const d = trusted.device;
      if (d?.rowPtr) this.uploaded.set(rowPtr, d.rowPtr);
      const entries = rowPtr[rowPtr.length - 1];
      if (trusted.columnsOnDevice && d?.colIdx && entries > 0) {
        // The columns stay on the GPU; their host copy is read back only if something on the host asks for it.
        const device = d.colIdx;
        this.csr = lazyColumns({rowPtr, numRows: rowPtr.length - 1, numCols}, () => device.dataSync() as Int32Array);
        this.deviceColumns = device;
        return;
      }
      this.csr = {rowPtr, colIdx, numRows: rowPtr.length - 1, numCols};
      if (d?.colIdx) {
        if (entries > 0) this.uploaded.set(colIdx, d.colIdx);
        else d.colIdx.dispose();
      }
      return;
    }
    if (!(rowPtr instanceof Int32Array) || !(colIdx instanceof Int32Array))
      throw new TypeError('CsrBlock: rowPtr and colIdx must be Int32Arrays');
    // Copies: the caller keeps its arrays and may change them; the block's
    // are checked once here and read unchecked by the native products.
    rowPtr = rowPtr.slice();
    colIdx = colIdx.slice();
    if (rowPtr.length < 1 || rowPtr[0] !== 0 || rowPtr[rowPtr.length - 1] !== colIdx.length) {
      throw new RangeError(`CsrBlock: rowPtr must start at 0 and end at colIdx.length (${colIdx.length})`);
    }
    for (let r = 0; r + 1 < rowPtr.length; ++r) {
      if (rowPtr[r + 1] < rowPtr[r]) throw new RangeError(`CsrBlock: rowPtr decreases at row ${r}`);
    }
    if (!Number.isInteger(numCols) || numCols < 0) throw new RangeError(`CsrBlock: numCols must be a non-negative integer, got ${numCols}`);
    colIdx.forEach((c, e) => {
      if (!(c >= 0 && c < numCols)) throw new RangeError(`CsrBlock: colIdx[${e}] = ${c} is outside [0, ${numCols})`);
    });
    if (degrees !== undefined) {
      if (!(degrees instanceof Int32Array) || degrees.length !== numCols) {
        throw new RangeError(`CsrBlock: degrees must be an Int32Array of numCols (${numCols}) entries`);
      }
      this.degreesOf = degrees = degrees.slice();
      degrees.forEach((d, v) => {
        if (d < 0) throw new RangeError(`CsrBlock: degrees[${v}] = ${d} is negative`);
      });
    }
    this.csr = {rowPtr, colIdx, numRows: rowPtr.length - 1, numCols};
  }

  static fromGraph(g: CsrGraph): CsrBlock {
    return new CsrBlock(g.rowPtr, g.colIdx, g.numVertices);
  }

  /**
   * @internal A block made by native code whose output is in range by construction (the GPU's
   * relabelling), taken without a copy or a check; `device` holds the same arrays (either or both) already on the
   * GPU (the block owns them from here); `degrees` are computed when 'gcn' first asks for them (none: the block has
   * none); `scatter`: see `scatters`.
   */
  static trusted(
    rowPtr: Int32Array,
    colIdx: Int32Array,
    numCols: number,
    degrees?: () => Int32Array,
    device?: {rowPtr?: tf.Tensor1D; colIdx?: tf.Tensor1D},
    scatter = false,
  ): CsrBlock {
    return new CsrBlock(rowPtr, colIdx, numCols, undefined, {device, degrees, scatter});
  }

  /**
   * @internal A trusted block (see trusted) whose columns are only on the GPU (`colIdx`, which the block owns from
   * here): the GPU's products read them there, and the host copy (arrays, entryRows, transposes, self loops) is
   * read back on first use. What a sampler that relabels on the GPU gives, where a step would otherwise wait for
   * tens of megabytes it never reads.
   */
  static onDevice(
    rowPtr: Int32Array,
    colIdx: tf.Tensor1D,
    numCols: number,
    opts: {degrees?: () => Int32Array; rowPtr?: tf.Tensor1D; scatter?: boolean; rowEntriesAtMost?: number} = {},
  ): CsrBlock {
    if (colIdx.size !== rowPtr[rowPtr.length - 1])
      throw new RangeError(`CsrBlock.onDevice: colIdx has ${colIdx.size} entries, rowPtr ends at ${rowPtr[rowPtr.length - 1]}`);
    return new CsrBlock(rowPtr, EMPTY_BLOCK_COLUMNS, numCols, undefined, {
      device: {rowPtr: opts.rowPtr, colIdx},
      degrees: opts.degrees,
      scatter: opts.scatter,
      columnsOnDevice: true,
      rowEntriesAtMost: opts.rowEntriesAtMost,
    });
  }

  // What no row exceeds where the maker knows it (a sampler's fan-out): the GPU product's long rows are then not
  // looked for.
  private readonly rowEntriesAtMost?: number;

  // The columns' device copy when they were made there (onDevice): the products read it, never a host copy.
  private readonly deviceColumns?: tf.Tensor1D;

  /** How many entries the block has (colIdx's length, without reading columns kept on the GPU). */
  get numEntries(): number {
    return this.csr.rowPtr[this.csr.numRows];
  }

  /**
   * @internal Whether the GPU differentiates the block's products from the forward product's own entries, sorted by
   * column on the GPU (csrSpmmScatter), rather than through its transpose: a block sampled or batched for one step,
   * whose transpose would be built on the host and copied over to be read once.
   */
  readonly scatters: boolean = false;

  /** The block's rows as given: rowPtr [numRows + 1] and colIdx (positions among the columns). */
  get arrays(): {rowPtr: Int32Array; colIdx: Int32Array} {
    return {rowPtr: this.csr.rowPtr, colIdx: this.csr.colIdx};
  }

  private rowOfEntry?: Int32Array;

  /** Each entry's row (entry order): what gathers and segment sums over the entries index by. Made once. */
  get entryRows(): Int32Array {
    if (!this.rowOfEntry) {
      const {rowPtr, colIdx} = this.csr;
      this.rowOfEntry = new Int32Array(colIdx.length);
      for (let r = 0; r + 1 < rowPtr.length; ++r) this.rowOfEntry.fill(r, rowPtr[r], rowPtr[r + 1]);
    }
    return this.rowOfEntry;
  }

  get numRows(): number {
    return this.csr.numRows;
  }

  /** Each entry's weight (entry order), when the block has them (withWeights). */
  get weights(): Float32Array | undefined {
    return this.csr.weight;
  }

  /**
   * The same block with a weight per entry, in entry order (rowPtr / colIdx's): 'sum' aggregates w_e x_c,
   * 'mean' the same divided by the row's entries (PyG's weighted messages), 'gcn' normalises by weighted
   * degrees (PyG's GCNConv edge_weight; self loops weigh 1). A copy: this block is unchanged.
   */
  withWeights(weights: Float32Array | ArrayLike<number>): CsrBlock {
    const m = this.csr.colIdx.length;
    if (!weights || typeof weights.length !== 'number' || weights.length !== m)
      throw new RangeError(`CsrBlock.withWeights: weights must hold one number per entry (${m}), got ${weights?.length}`);
    const w = Float32Array.from(weights);
    w.forEach((x, e) => {
      if (!Number.isFinite(x)) throw new RangeError(`CsrBlock.withWeights: weights[${e}] = ${weights[e]} is not a finite number`);
    });
    const b = new CsrBlock(this.csr.rowPtr, this.csr.colIdx, this.numCols, undefined, {
      degrees: this.lazyDegrees(),
      scatter: this.scatters,
    });
    b.csr.weight = w;
    return b;
  }

  get numCols(): number {
    return this.csr.numCols;
  }

  private loops?: CsrBlock;

  // This block's column degrees for a block made from it over the same columns: computed when first asked.
  private lazyDegrees(): (() => Int32Array) | undefined {
    const d = this.degreesOf;
    return typeof d === 'function' ? d : d ? () => d : undefined;
  }

  /**
   * The block with each row's self loop (row r reads column r, its own input: the rows are the
   * columns' prefix), any it had replaced by one (PyG's remove_self_loops then add_self_loops); a loop
   * weighs 1 where entries have weights. Made once per block.
   */
  withSelfLoops(): CsrBlock {
    if (this.loops) return this.loops;
    const {rowPtr, colIdx, numRows, numCols, weight} = this.csr;
    if (numRows > numCols)
      throw new RangeError(
        `CsrBlock.withSelfLoops: the block has ${numRows} rows and ${numCols} columns; a row's loop needs its own column`,
      );
    // At most every entry plus a loop per row; trimmed to what was written.
    const offsets = new Int32Array(numRows + 1);
    const cols = new Int32Array(rowPtr[numRows] + numRows);
    const w = weight ? new Float32Array(cols.length) : undefined;
    let n = 0;
    for (let r = 0; r < numRows; ++r) {
      for (let e = rowPtr[r]; e < rowPtr[r + 1]; ++e)
        if (colIdx[e] !== r) {
          if (w) w[n] = weight![e];
          cols[n++] = colIdx[e];
        }
      if (w) w[n] = 1;
      cols[n++] = r;
      offsets[r + 1] = n;
    }
    const b = new CsrBlock(offsets, cols.subarray(0, n), numCols, undefined, {degrees: this.lazyDegrees(), scatter: this.scatters});
    if (w) b.csr.weight = w.subarray(0, n);
    this.loops = b;
    return b;
  }

  /** @internal The product each direction needs. */
  product(reduce: AggregateReduce, backward: boolean): Csr {
    const key = `${reduce}${backward ? '-t' : ''}`;
    let c = this.derived.get(key);
    if (c) return c;
    const inv = () => inverseRowLengths(this.csr.rowPtr, this.numRows);
    if (reduce === 'gcn') {
      if (!backward) c = gcnNormalized(this.csr, this.degrees);
      else {
        const forward = this.product('gcn', false);
        c = transpose(forward, {entryWeight: forward.weight});
      }
    } else if (!backward) c = reduce === 'sum' ? this.csr : derivedCsr(this.csr, {rowScale: inv()});
    else {
      c = transpose(this.csr, {entryWeight: this.csr.weight, rowWeight: reduce === 'mean' ? inv() : undefined});
    }
    this.derived.set(key, c);
    return c;
  }

  /** @internal The block as it is (entries in order) and transposed with each entry's forward position. */
  entries(transposed: boolean): Csr {
    return transposed ? this.product('sum', true) : this.csr;
  }

  /** @internal */
  onDevice(c: Csr): DeviceCsrArrays {
    let d = this.device.get(c);
    if (!d) {
      const up = (a: Int32Array | Float32Array | undefined): tf.Tensor | undefined => {
        if (!a || !a.length) return undefined;
        let t = this.uploaded.get(a);
        // Kept: the block outlives the tidy scope of the product that first uploads it.
        if (!t) this.uploaded.set(a, (t = tf.keep(tf.tensor1d(a, a instanceof Int32Array ? 'int32' : 'float32'))));
        return t;
      };
      d = {
        rowPtr: up(c.rowPtr)!,
        // An empty block still passes an address.
        colIdx: this.deviceColumns && this.sameRows(c) ? this.deviceColumns : up(entriesOf(c) ? c.colIdx : EMPTY_COLUMNS)!,
        edge: up(c.edge),
        weight: up(c.weight),
        rowScale: up(c.rowScale),
      };
      this.device.set(c, d);
    }
    return d;
  }

  // Whether c is the block's own entries (as given, or with a weight per row): a transposed or self-looped
  // product has offsets of its own.
  private sameRows(c: Csr): boolean {
    return c.rowPtr === this.csr.rowPtr;
  }

  /**
   * @internal The mean's device arrays (offsets, columns, each row's 1 / its entries) for a kernel that fuses the mean
   * with what follows (kernels/SageBlockLayer.ts): a block differentiated by scattering (`scatters`), without entry
   * weights or rows longer than the product's chunk; undefined for any other block.
   */
  meanOnDevice(): {rowPtr: tf.Tensor; colIdx: tf.Tensor; rowScale: tf.Tensor} | undefined {
    if (!this.scatters || this.csr.weight) return undefined;
    const c = this.product('mean', false);
    if (this.productSplits(c)) return undefined;
    const d = this.onDevice(c);
    return d.rowScale ? {rowPtr: d.rowPtr, colIdx: d.colIdx, rowScale: d.rowScale} : undefined;
  }

  /** @internal c's long rows for the GPU product, listed on its first use (the GAT kernels never read them). */
  productSplits(c: Csr): DeviceCsrArrays['splits'] {
    const d = this.onDevice(c);
    if (d.splits === undefined) {
      // A sampler's block whose rows hold at most a fan-out of entries has no long row to list.
      const short = this.rowEntriesAtMost !== undefined && this.rowEntriesAtMost <= SPMM_CHUNK_ENTRIES && this.sameRows(c);
      const sp = short ? undefined : csrSplits(c);
      d.splits = sp ? {...sp, array: tf.keep(tf.tensor1d(sp.array, 'int32'))} : null;
    }
    return d.splits;
  }

  dispose(): void {
    for (const d of this.device.values()) d.splits?.array.dispose();
    tf.dispose([...this.uploaded.values(), this.deviceColumns ?? []].flat());
    this.uploaded.clear();
    this.device.clear();
    this.loops?.dispose(); // its device copies go with this block
  }
}

function spmm(block: CsrBlock, c: Csr, x: tf.Tensor2D): tf.Tensor2D {
  const dim = x.shape[1];
  const b = nativeBackend();
  if (b) {
    if (b.gpu) {
      const d = block.onDevice(c),
        splits = block.productSplits(c);
      // deviceOutputs frees the output if the product throws (a bad WM_SPMM_SLAB, a CUDA error).
      return b.deviceOutputs([[c.numRows, dim]], ([ptr]) => {
        if (c.numRows * dim === 0) return;
        graphNative().csrSpmm(
          ...entryAddresses(b, d),
          c.numRows,
          entriesOf(c) ? b.devicePtr(x) : 0,
          dim,
          ptr,
          splits ? b.devicePtr(splits.array) : 0,
          splits?.numLong ?? 0,
          splits?.numChunks ?? 0,
          SPMM_CHUNK_ENTRIES,
        );
      })[0] as tf.Tensor2D;
    }
    return b.hostOutputs([[c.numRows, dim]], ([out]) =>
      graphNative().csrSpmm(
        c.rowPtr,
        c.colIdx,
        c.weight ?? null,
        c.rowScale ?? null,
        c.numRows,
        b.hostArray(x) as Float32Array, // read in place: dataSync would hand the array out for good
        dim,
        out,
        null,
        0,
        0,
        0,
      ),
    )[0] as tf.Tensor2D;
  }
  // Another backend: the same product from tfjs ops (which reject zero segments).
  if (c.numRows === 0 || c.colIdx.length === 0) return tf.zeros([c.numRows, dim]);
  return tf.tidy(() => {
    const rows = new Int32Array(c.colIdx.length);
    for (let r = 0; r < c.numRows; ++r) rows.fill(r, c.rowPtr[r], c.rowPtr[r + 1]);
    let msgs = tf.gather(x, tf.tensor1d(c.colIdx, 'int32'));
    if (c.weight) msgs = tf.mul(msgs, tf.tensor2d(c.weight, [c.weight.length, 1]));
    let out = tf.unsortedSegmentSum(msgs, tf.tensor1d(rows, 'int32'), c.numRows) as tf.Tensor2D;
    if (c.rowScale) out = tf.mul(out, tf.tensor2d(c.rowScale, [c.numRows, 1]));
    return out;
  });
}

/** A product's device arrays as the native products take them: offsets, columns, weights and row scales (0: none). */
function entryAddresses(b: WholeMemoryBackend, d: DeviceCsrArrays): [number, number, number, number] {
  return [b.devicePtr(d.rowPtr), b.devicePtr(d.colIdx), d.weight ? b.devicePtr(d.weight) : 0, d.rowScale ? b.devicePtr(d.rowScale) : 0];
}

function onGpu(): boolean {
  const b = tf.backend();
  return b instanceof WholeMemoryBackend && b.gpu;
}

// The transposed product of c on the GPU without its transpose: c's own entries gathered by column.
function scatterProduct(block: CsrBlock, c: Csr, dy: tf.Tensor2D): tf.Tensor2D {
  const b = tf.backend() as WholeMemoryBackend;
  const dim = dy.shape[1];
  const d = block.onDevice(c);
  return b.deviceOutputs([[c.numCols, dim]], ([ptr]) => {
    if (c.numCols * dim === 0) return;
    graphNative().csrSpmmScatter(...entryAddresses(b, d), c.numRows, entriesOf(c), c.numRows ? b.devicePtr(dy) : 0, dim, ptr, c.numCols);
  })[0] as tf.Tensor2D;
}

/**
 * out[r] = mean (or sum) of x[colIdx[e]] over row r's entries; rows without
 * entries give zeros. 'gcn': GCN's symmetric normalisation with self loops,
 * by the graph's degrees when the block carries them, else the block's own
 * (see gcnNormalized; the block's rows must be its first columns).
 * x: [block.numCols, dim] float32. Differentiable in x.
 */
export function aggregate(x: tf.Tensor2D, block: CsrBlock, reduce: AggregateReduce = 'mean'): tf.Tensor2D {
  if (reduce !== 'mean' && reduce !== 'sum' && reduce !== 'gcn')
    throw new RangeError(`aggregate: reduce must be 'mean', 'sum' or 'gcn', got '${reduce}'`);
  if (reduce === 'gcn' && block.numRows > block.numCols) {
    throw new RangeError(
      `aggregate: 'gcn' adds each row's self loop, so the block's rows must be its first columns: it has ${block.numRows} rows and ${block.numCols} columns`,
    );
  }
  if (x.rank !== 2 || x.dtype !== 'float32') throw new TypeError(`aggregate: x must be a float32 matrix, got ${x.dtype} [${x.shape}]`);
  if (x.shape[0] !== block.numCols) throw new RangeError(`aggregate: x has ${x.shape[0]} rows, the block reads ${block.numCols}`);
  const f = tf.customGrad(((input: tf.Tensor) => ({
    value: spmm(block, block.product(reduce, false), input as tf.Tensor2D),
    gradFunc: (dy: tf.Tensor) =>
      block.scatters && onGpu()
        ? scatterProduct(block, block.product(reduce, false), dy as tf.Tensor2D)
        : spmm(block, block.product(reduce, true), dy as tf.Tensor2D),
  })) as unknown as Parameters<typeof tf.customGrad>[0]);
  return f(x) as tf.Tensor2D;
}

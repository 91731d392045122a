// The handles and objects the addon's ops take as arguments: WholeMemory on the host or the GPU, and
// what the embedding ops read (a table, an optimizer's parameters). Both the op table's signatures
// (ops.ts) and the hand-written bindings (addon.ts) name them.

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
  /** Rows kept in faster memory (wm::RowCache): device addresses beside `ptr`, typed arrays beside `array`. */
  cache?: NativeRowCache;
}

export interface NativeRowCache {
  hot: number | Float32Array | Uint16Array;
  /** One entry per table row: its slot, or -1. */
  slotOf: number | Int32Array;
  slots: number;
  /** Beside a GPU table: the device counter that kernels resolving ids to slots add their hits to. */
  hits?: number;
  /**
   * Beside a GPU table, where the slots hold every row but one run [exceptFirst, exceptFirst + exceptCount), in row
   * order (a replica of the rows other ranks hold): kernels find a row's slot without reading slotOf.
   */
  exceptFirst?: number;
  exceptCount?: number;
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

/** A CSR graph in native memory (wm/native_graph.h): int64 row offsets, int32 columns. */
export interface NativeGraph {
  readonly numVertices: number;
  readonly numEdges: number;
  /** Bytes of its arrays: (numVertices + 1) * 8 + numEdges * 4. */
  readonly bytes: number;
  /** The note saved with it (empty unless loaded from a file that has one). */
  readonly meta: string;
  /** The checksum of its offsets and columns (16 hex digits; the note left out): what identifies the graph. */
  readonly checksum: string;
  /** durable (default true): the data reaches the disk before the file appears under its name. */
  save(path: string, meta: string, durable?: boolean): void;
  /** A small graph's arrays (numEdges below 2^31) into Int32Arrays of numVertices + 1 and numEdges entries (offsets only with null). */
  copyCsr(rowPtr: Int32Array, colIdx: Int32Array | null): void;
  /** Columns [first, first + count) (default all) as an Int32Array viewing native memory (no copy; it keeps the pages alive; at most 4 GiB). */
  columns(first?: number, count?: number): Int32Array;
  /** Row offsets [first, first + count) (default all numVertices + 1) as a BigInt64Array viewing native memory (at most 4 GiB). */
  offsets(first?: number, count?: number): BigInt64Array;
  /** The first vertex whose neighbours are not in ascending order, or -1 (a parallel pass over the columns). */
  firstUnsortedRow(): number;
  /** The first entry whose column is not an id in [0, limit), or -1 (a parallel pass over the columns). */
  firstColumnOutside(limit: number): number;
  /** Rows [first, first + count): offsets from 0 and their columns (copies). */
  rows(first: number, count: number): {offsets: Int32Array; columns: Int32Array};
  degrees(vertices: Int32Array, n: number, out: Int32Array): void;
  neighbors(v: number): Int32Array;
  /** The arrays into device memory: (numVertices + 1) * 8 bytes at rowPtr, numEdges * 4 at colIdx. */
  copyToDevice(rowPtr: number, colIdx: number): void;
  free(): void;
}

/** Native host memory as a typed array may view it (native/addon/host_array.h). */
export interface NativeHostArray {
  readonly length: number;
  readonly dtype: 'int32' | 'float32' | 'float64' | 'float16';
  /**
   * A typed array over elements [first, first + count) of the pages (default: all), no copy (refused past
   * 4 GiB: view larger arrays in parts); it keeps the pages alive. float16 is viewed as its bits (Uint16Array).
   */
  view(first?: number, count?: number): Int32Array | Float32Array | Float64Array | Uint16Array;
  /** Drops this object's hold on the pages (views keep them). */
  free(): void;
}

/** What a text table held once parsed (wm/text_columns.h). */
export interface TextColumnsSummary {
  rows: number;
  lines: number;
  /** Numbers per row. */
  width: number;
  /** The largest id in any id column (-1: none) and the line it was first read on. */
  maxId: number;
  maxIdLine: number;
  /** Rows holding fields past the columns (kept only with extraFields, which ignores them), and the first one's line. */
  extraRows: number;
  extraLine: number;
  /** The first comment lines (at most 64). */
  comments: string[];
}

/** A knowledge graph's text files read natively (wm/kg_text.h): a file at a time, names interned. */
export interface NativeKgText {
  /** Starts a file; `name` starts its errors. A dictionary fills its names and fixes them. */
  begin(name: string, kind: 'triples' | 'entities' | 'relations'): void;
  push(bytes: Uint8Array): void;
  /** Ends the file: the rows of a triple file (0 for a dictionary). */
  finish(): number;
  /** The triple file's heads (0), relations (1) or tails (2), int32 (taken: once each). */
  column(column: number): NativeHostArray;
  /** The names by id: each name's UTF-8 bytes then a newline, and where each starts (count + 1 offsets). */
  names(which: 'entities' | 'relations'): {bytes: Uint8Array; starts: Float64Array};
}

/** A text table parsed in chunks (wm/text_columns.h). */
export interface NativeTextColumns {
  push(bytes: Uint8Array): void;
  finish(): void;
  summary(): TextColumnsSummary;
  /** Id column k (taken: once each). */
  ids(column: number): NativeHostArray;
  /** The numbers, row-major (taken once). */
  values(): NativeHostArray;
}

// PyG's NeighborLoader over HeteroData: seeds of one vertex type in (shuffled) batches, each batch's typed
// sampled layers, every type's input rows (its features; zeros of the common width for a type without
// them; rows gathered from each type's table on the backend's device) and the seeds' labels. An async
// iterator, as NeighborLoader is; batches are sampled when asked for; dispose() frees the tables.
import * as tf from '@tensorflow/tfjs-core';

import type {HeteroGraph} from '../graph/hetero_graph';
import type {Communicator} from '../memory/communicator';
import {NativeFeatures} from '../graph/native_features';
import {hostTypedGraph, sampleTypedSubgraph, TypedFanouts, TypedGraph, TypedSubgraph} from '../graph/typed_sampling';
import {int32Ids, int32Of} from '../util/arrays';
import {checkSeed, seededRng, shuffle} from '../util/random';
import {Embedding, EmbeddingDType, EmbeddingMemory} from './embedding';
import {checkShare, LoaderShare, sharePart, shareStream} from './loader_share';
import {featureTable} from './node_inputs';
import {hottestRows} from './table/row_cache';

export interface TypedNeighborLoaderOptions {
  /** The seeds' vertex type (default: the labelled type). */
  seedType?: string;
  /** The seed ids (default: the labelled type's training split). */
  seeds?: ArrayLike<number>;
  fanouts: TypedFanouts;
  batchSize: number;
  shuffle?: boolean;
  replace?: boolean;
  seed?: number;
  /**
   * How each type's features are kept (default: float32 tensors on the backend's device), or the FeatureTables
   * another loader or model reads (shared: left for the caller to dispose).
   */
  features?: TypedFeatureStorage | FeatureTables;
  /** A data-parallel rank's share: every rank walks the same order (the same seed) and takes its part of each batch. */
  share?: LoaderShare;
}

export interface TypedBatch {
  seeds: Int32Array;
  sub: TypedSubgraph;
  /** Every type's input rows for sub.layers[0].src (features, or zeros of the common width). */
  x: Record<string, tf.Tensor2D>;
  /** The seeds' labels, where the seeds are of the labelled type. */
  y?: tf.Tensor1D;
  dispose(): void;
}

/**
 * Rows `ids` of a feature table (a tensor on the backend's device), padded with zeros to `width`; zeros where there
 * is no table. `onDevice`: the same ids already on the device (read there instead of copying `ids` over).
 */
export function typedInputs(
  table: tf.Tensor2D | Embedding | undefined,
  ids: Int32Array,
  width: number,
  onDevice?: tf.Tensor1D,
): tf.Tensor2D {
  if (!table) return tf.fill([ids.length, width], 0) as tf.Tensor2D; // on the device: tf.zeros fills a host array first
  return tf.tidy(() => {
    const at = onDevice ?? tf.tensor1d(ids, 'int32');
    const rows = (table instanceof Embedding ? table.read(at) : tf.gather(table, at)) as tf.Tensor2D;
    const dim = rows.shape[1];
    return dim < width
      ? (tf.pad(rows, [
          [0, 0],
          [0, width - dim],
        ]) as tf.Tensor2D)
      : rows;
  });
}

/**
 * How each featured type's rows are kept: by default a float32 tensor on the backend's device; given any of these,
 * an embedding table (wm.nn.featureTable) in `memory` ('host': pinned host memory, read by the GPU), rows stored
 * as `dtype` (float16 / bfloat16 halve it), with `cache` (memory 'host' or 'managed' on a GPU) the share of each
 * type's rows kept in a GPU cache, the most linked first.
 */
export interface TypedFeatureStorage {
  memory?: EmbeddingMemory;
  dtype?: EmbeddingDType;
  cache?: number;
  /**
   * Memory the ranks share ('continuous', 'chunked' or 'distributed'): the tables are made collectively, each rank
   * writing its share of the rows (featureTable's communicator); every rank makes its tables at the same point.
   */
  communicator?: Communicator;
  /** Told how filling a large table goes (featureTable's onProgress), the type named. */
  onProgress?: (line: string) => void;
}

/** Each featured type's table (see TypedFeatureStorage), made when first asked for; rows are gathered on the backend's device. */
export class FeatureTables {
  private tables?: Record<string, tf.Tensor2D | Embedding>;
  /** The input width every type's rows have: the widest feature table (1 without features). */
  readonly width: number;

  constructor(
    readonly graph: HeteroGraph,
    private readonly storage?: TypedFeatureStorage,
  ) {
    this.width = Math.max(1, ...Object.values(graph.features).map((f) => f.dim));
    const c = storage?.cache;
    if (c !== undefined && !(c > 0 && c <= 1)) throw new RangeError(`features.cache must be a share of the rows in (0, 1], got ${c}`);
  }

  /** Makes the tables now (they are made on the first batch otherwise): a large table's fill is timed apart from the steps. */
  prepare(): this {
    this.tables ??= this.make();
    return this;
  }

  /** Every type's input rows for `src` (features, or zeros of the common width); `onDevice`: some of the ids on the device. */
  inputs(src: Record<string, Int32Array>, onDevice: Record<string, tf.Tensor1D> = {}): Record<string, tf.Tensor2D> {
    const tables = this.prepare().tables!;
    return Object.fromEntries(Object.entries(src).map(([t, ids]) => [t, typedInputs(tables[t], ids, this.width, onDevice[t])]));
  }

  private make(): Record<string, tf.Tensor2D | Embedding> {
    const s = this.storage;
    const made: Record<string, tf.Tensor2D | Embedding> = {};
    try {
      for (const [t, f] of Object.entries(this.graph.features)) {
        const rows = this.graph.numNodes[t];
        const native = f instanceof NativeFeatures;
        if (!native && (!s || (s.memory === undefined && s.dtype === undefined && s.cache === undefined))) {
          made[t] = tf.tensor2d(f.values, [rows, f.dim]);
          continue;
        }
        // Native rows are read into the table a window at a time (no array of the whole table in JavaScript).
        const say = s?.onProgress;
        const o = {
          memory: s?.memory,
          dtype: s?.dtype,
          communicator: s?.communicator,
          ...(say ? {onProgress: (line: string) => say(`${t} ${line}`)} : {}),
        };
        const table = (made[t] = native ? featureTable(f, o) : featureTable(f.values, rows, f.dim, o));
        if (s?.cache !== undefined) {
          const t0 = Date.now();
          table.cache({rows: hottestRows(this.linksOf(t), rows), fraction: s.cache});
          say?.(`${t} feature table: a cache of its ${s.cache} most linked rows filled in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
        }
      }
    } catch (e) {
      for (const x of Object.values(made)) x.dispose();
      throw e;
    }
    return made;
  }

  // How often each vertex of `type` is a sampled source: its rows' degrees over the relations into the type (with
  // reverse relations, what it has out).
  private linksOf(type: string): Int32Array {
    const counts = new Int32Array(this.graph.numNodes[type]);
    for (const r of this.graph.relations.values())
      if (r.type[2] === type) {
        // Every row's degree; a relation's rows past its destination type's count (the source type's larger) are empty.
        const d = r.graph.degrees();
        for (let v = 0; v < counts.length; ++v) counts[v] += d[v];
      }
    return counts;
  }

  dispose(): void {
    if (this.tables) for (const x of Object.values(this.tables)) x.dispose();
    this.tables = undefined;
  }
}

/** @internal The tables `features` says: a caller's FeatureTables of `graph` (shared), or new ones of that storage (owned). */
export function featureTablesFor(
  graph: HeteroGraph,
  features?: TypedFeatureStorage | FeatureTables,
): {tables: FeatureTables; owned: boolean} {
  if (!(features instanceof FeatureTables)) return {tables: new FeatureTables(graph, features), owned: true};
  if (features.graph !== graph) throw new RangeError('features: the FeatureTables given are those of another typed graph');
  return {tables: features, owned: false};
}

export class TypedNeighborLoader {
  readonly seedType: string;
  readonly seeds: Int32Array;
  private epoch = 0;
  private readonly features: FeatureTables;
  private readonly ownsFeatures: boolean;
  private readonly share: LoaderShare;

  /** The typed graph (counts, features, labels); its batches are sampled where `sampled` lives. */
  readonly graph: HeteroGraph;
  private readonly sampled: TypedGraph;

  /** graph: a HeteroGraph (sampled on the host) or a DeviceHeteroGraph (sampled on the GPU, the same batches). */
  constructor(
    typed: TypedGraph,
    private readonly o: TypedNeighborLoaderOptions,
  ) {
    const graph = (this.graph = hostTypedGraph(typed));
    this.sampled = typed;
    const l = graph.labels;
    this.seedType = o.seedType ?? l?.type ?? '';
    if (!(this.seedType in graph.numNodes))
      throw new RangeError(`TypedNeighborLoader: seedType '${this.seedType}' is not a vertex type (${graph.nodeTypes.join(', ')})`);
    const given = o.seeds ?? (l?.type === this.seedType ? l.split?.train : undefined);
    if (!given) throw new RangeError('TypedNeighborLoader: no seeds given, and the seed type has no training split');
    this.seeds = int32Ids(given, 'TypedNeighborLoader: seeds').slice();
    if (!Number.isInteger(o.batchSize) || o.batchSize < 1)
      throw new RangeError(`TypedNeighborLoader: batchSize must be a positive integer, got ${o.batchSize}`);
    checkSeed('TypedNeighborLoader', o.seed ?? 0);
    this.share = checkShare('TypedNeighborLoader', o.share);
    ({tables: this.features, owned: this.ownsFeatures} = featureTablesFor(graph, o.features));
  }

  /** Batches per pass over the seeds. */
  get length(): number {
    return Math.ceil(this.seeds.length / this.o.batchSize);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<TypedBatch> {
    const epoch = this.epoch++;
    const order = this.o.shuffle ? shuffle(this.seeds.slice(), seededRng((this.o.seed ?? 0) * 7919 + epoch)) : this.seeds;
    for (let b = 0, k = 0; b < order.length; b += this.o.batchSize, ++k) {
      const stream = (this.o.seed ?? 0) * 1000003 + epoch * 65537 + k;
      // One rank keeps the batch's own stream (shareStream would wrap it past 2^31).
      const part = sharePart(order.subarray(b, b + this.o.batchSize), this.share).slice();
      yield this.batch(part, this.share.size === 1 ? stream : shareStream(stream, this.share));
    }
  }

  /** The batch of `seeds` (of the seed type), their layers sampled with `sampleSeed`; the caller disposes it. */
  batch(seeds: Int32Array, sampleSeed: number): TypedBatch {
    const l = this.graph.labels;
    const sub = sampleTypedSubgraph(this.sampled, this.seedType, seeds, this.o.fanouts, {seed: sampleSeed, replace: this.o.replace});
    const x = this.features.inputs(sub.layers[0]?.src ?? {[this.seedType]: seeds}, sub.inputIds);
    const y =
      l && l.type === this.seedType
        ? tf.tensor1d(
            int32Of(seeds.length, (i) => l.labels[seeds[i]]),
            'int32',
          )
        : undefined;
    return {
      seeds,
      sub,
      x,
      y,
      dispose: () => {
        sub.dispose();
        tf.dispose([...Object.values(x), ...(y ? [y] : [])]);
      },
    };
  }

  /** The input width every type's rows have. */
  get width(): number {
    return this.features.width;
  }

  /** Frees the feature tables the loader holds on the device. */
  dispose(): void {
    if (this.ownsFeatures) this.features.dispose();
  }
}

// Mini-batches for sampled GNN training, as PyG's NeighborLoader and LinkNeighborLoader give them: the
// seeds (or edges) in shuffled batches, each batch's sampled layers over the graph (fan-outs per hop,
// the seeds' own first), the features of the rows its first layer reads, and the seeds' labels (or the
// edges' endpoints with negative pairs). Async iterators: each `for await` is one epoch, and while a
// batch trains the next one is sampled (on the CPU's native samplers, when the training loop awaits the
// GPU), so a step does not wait for its sampling.
import * as tf from '@tensorflow/tfjs-core';

import type {HostGraph} from '../graph/graph_store';
import {sampleNegativePairs} from '../graph/negative_pairs';
import {sampleSubgraph, SampledSubgraph, SubgraphLayer, uniqueAndRelabel} from '../graph/subgraph';
import {Ids, int32Ids} from '../util/arrays';
import {checkSeed, randInt, seededRng} from '../util/random';

/** What gives a batch its input rows: an embedding or feature table, NodeInputs, anything with read(ids). */
export interface RowSource {
  read(ids: Int32Array): tf.Tensor;
}

/** What every loader takes. */
export interface LoaderOptions {
  /** Neighbours sampled per vertex at each hop, the seeds' hop first (PyG's num_neighbors). */
  fanouts: number[];
  batchSize: number;
  /** A new order every epoch (default true). */
  shuffle?: boolean;
  /** Seeds the order and the sampling (default 0): the same seed, the same batches. */
  seed?: number;
  /** Sampling with replacement (default false: up to fan-out distinct neighbours). */
  replace?: boolean;
  /** Leaves out a last batch smaller than batchSize (default false). */
  dropLast?: boolean;
  /** Rows of the first layer's inputs, gathered into each batch's x. */
  features?: RowSource;
}

export interface NeighborLoaderOptions extends LoaderOptions {
  /** A label per vertex; each batch's y holds its seeds'. */
  labels?: Ids;
}

/** What every batch holds. */
export interface SampledBatch {
  /** The epoch and this batch's position in it. */
  epoch: number;
  index: number;
  /** The input layer first: layers[0].src are the rows x holds; the last layer's dst are the seeds. */
  layers: SubgraphLayer[];
  /** features.read(layers[0].src) [layers[0].src.length, width], with features. */
  x?: tf.Tensor2D;
  /** Frees the batch's tensors and blocks (the loop that takes a batch owns it). */
  dispose(): void;
}

export interface NeighborBatch extends SampledBatch {
  seeds: Int32Array;
  /** The seeds' labels (int32), with labels. */
  y?: tf.Tensor1D;
}

// The epochs, orders, prefetching and sampling every loader shares; `items` are what is batched.
abstract class SampledLoader<B extends SampledBatch> implements AsyncIterable<B> {
  protected readonly o: Required<Omit<LoaderOptions, 'features'>> & Pick<LoaderOptions, 'features'>;
  private epochs = 0;

  constructor(
    protected readonly graph: HostGraph,
    private readonly items: number,
    o: LoaderOptions,
    what: string,
  ) {
    if (!Array.isArray(o.fanouts) || o.fanouts.length === 0 || o.fanouts.some((f) => !Number.isInteger(f) || f < 0))
      throw new RangeError(`${what}: fanouts must be a non-empty array of non-negative integers, got ${JSON.stringify(o.fanouts)}`);
    if (!Number.isInteger(o.batchSize) || o.batchSize < 1)
      throw new RangeError(`${what}: batchSize must be a positive integer, got ${o.batchSize}`);
    this.o = {
      fanouts: [...o.fanouts],
      batchSize: o.batchSize,
      shuffle: o.shuffle ?? true,
      seed: checkSeed(what, o.seed ?? 0),
      replace: o.replace ?? false,
      dropLast: o.dropLast ?? false,
      features: o.features,
    };
  }

  /** Batches in an epoch. */
  get length(): number {
    const whole = Math.floor(this.items / this.o.batchSize);
    return this.o.dropLast || this.items % this.o.batchSize === 0 ? whole : whole + 1;
  }

  /** The next epoch's batches (each `for await` over the loader is one epoch). */
  [Symbol.asyncIterator](): AsyncIterator<B> {
    return this.epoch(this.epochs++);
  }

  /** Epoch `e`'s batches: the same for the same loader options, whenever asked for. */
  async *epoch(e: number): AsyncGenerator<B> {
    if (!Number.isInteger(e) || e < 0) throw new RangeError(`epoch: e must be a non-negative integer, got ${e}`);
    const order = this.order(e);
    const count = this.length;
    let next: B | undefined = count > 0 ? this.batchOf(order, e, 0) : undefined;
    let pending: Promise<B> | undefined;
    try {
      for (let b = 0; b < count; ++b) {
        const current = next!;
        next = undefined;
        // Sampled once the loop gives the event loop a turn (awaiting the GPU), else when asked for.
        pending = b + 1 < count ? this.later(order, e, b + 1) : undefined;
        // Handled now: a batch that fails while the loop still trains on this one is reported at the await below,
        // not as an unhandled rejection.
        pending?.catch(() => undefined);
        yield current;
        if (pending) next = await pending;
        pending = undefined;
      }
    } finally {
      // A loop that stops early leaves the prepared batch here.
      next?.dispose();
      if (pending)
        pending.then(
          (p) => p.dispose(),
          () => undefined,
        );
    }
  }

  /** Batch b of epoch e over `part`, its share of the epoch's order; `seed` its sampling stream. */
  protected abstract make(part: Int32Array, e: number, b: number, seed: number): B;

  /** The layers sampled from `seeds` and their input rows' features. */
  protected sampled(seeds: Int32Array, seed: number): {sub: SampledSubgraph; x?: tf.Tensor2D} {
    const sub = sampleSubgraph(this.graph, seeds, this.o.fanouts, {seed, replace: this.o.replace});
    try {
      return {sub, x: this.o.features ? (this.o.features.read(sub.layers[0].src) as tf.Tensor2D) : undefined};
    } catch (err) {
      sub.dispose();
      throw err;
    }
  }

  private later(order: Int32Array, e: number, b: number): Promise<B> {
    return new Promise((resolve, reject) =>
      setImmediate(() => {
        try {
          resolve(this.batchOf(order, e, b));
        } catch (err) {
          reject(err);
        }
      }),
    );
  }

  private batchOf(order: Int32Array, e: number, b: number): B {
    const part = order.subarray(b * this.o.batchSize, Math.min(order.length, (b + 1) * this.o.batchSize));
    // Each batch of each epoch draws from its own stream.
    return this.make(part, e, b, (this.o.seed * 1_000_003 + e * 7_919 + b) % 2 ** 31);
  }

  // Epoch e's order of the items: a seeded shuffle of 0 .. items - 1, or in order.
  private order(e: number): Int32Array {
    const order = Int32Array.from({length: this.items}, (_, i) => i);
    if (!this.o.shuffle) return order;
    const rng = seededRng((this.o.seed * 0x9e3779b1 + e * 0x85ebca6b) % 2 ** 32);
    for (let i = order.length - 1; i > 0; --i) {
      const j = randInt(rng, i + 1);
      [order[i], order[j]] = [order[j], order[i]];
    }
    return order;
  }
}

function checkVertices(what: string, name: string, ids: Int32Array, n: number): void {
  ids.forEach((v, i) => {
    if (!(v >= 0 && v < n)) throw new RangeError(`${what}: ${name}[${i}] = ${v} is not a vertex of the graph (it has ${n})`);
  });
}

/** Node-level batches: seeds, their sampled layers, features and labels. */
export class NeighborLoader extends SampledLoader<NeighborBatch> {
  private readonly seeds: Int32Array;
  private readonly labels?: Int32Array;

  constructor(graph: HostGraph, seeds: Ids, o: NeighborLoaderOptions) {
    const what = 'NeighborLoader';
    const ids = int32Ids(seeds, `${what}: seeds`).slice();
    super(graph, ids.length, o, what);
    this.seeds = ids;
    const n = graph.numVertices;
    checkVertices(what, 'seeds', ids, n);
    if (uniqueAndRelabel(ids).unique.length !== ids.length) throw new RangeError(`${what}: seeds must be distinct`);
    if (o.labels !== undefined) {
      this.labels = int32Ids(o.labels, `${what}: labels`);
      if (this.labels.length !== n) throw new RangeError(`${what}: labels has ${this.labels.length} entries, the graph ${n} vertices`);
    }
  }

  protected make(part: Int32Array, e: number, b: number, seed: number): NeighborBatch {
    const seeds = Int32Array.from(part, (i) => this.seeds[i]);
    const {sub, x} = this.sampled(seeds, seed);
    const labels = this.labels;
    const y = labels
      ? tf.tensor1d(
          Int32Array.from(seeds, (v) => labels[v]),
          'int32',
        )
      : undefined;
    return {epoch: e, index: b, seeds, layers: sub.layers, x, y, dispose: () => (sub.dispose(), tf.dispose([x ?? [], y ?? []].flat()))};
  }
}

export interface LinkNeighborLoaderOptions extends LoaderOptions {
  /** Negative pairs per positive edge (default 1): uniform pairs that are not edges (sampleNegativePairs). */
  negatives?: number;
}

export interface LinkBatch extends SampledBatch {
  /** The batch's edges (positive) then its negative pairs, as vertex ids. */
  src: Int32Array;
  dst: Int32Array;
  /** 1 for the positive edges, 0 for the negative pairs. */
  label: tf.Tensor1D;
  /** Each pair's endpoints as rows of the last layer's outputs (positions among its dst), int32. */
  srcRow: tf.Tensor1D;
  dstRow: tf.Tensor1D;
}

/** Link-level batches: edges and negative pairs, the sampled layers of their endpoints, and features. */
/** Pairs (edges and negatives) one link batch may hold: 2^27, 1 GiB of int32 endpoints and their relabelled rows. */
const MAX_BATCH_PAIRS = 2 ** 27;

export class LinkNeighborLoader extends SampledLoader<LinkBatch> {
  private readonly src: Int32Array;
  private readonly dst: Int32Array;
  private readonly negatives: number;

  constructor(graph: HostGraph, edges: {src: Ids; dst: Ids}, o: LinkNeighborLoaderOptions) {
    const what = 'LinkNeighborLoader';
    const src = int32Ids(edges.src, `${what}: src`),
      dst = int32Ids(edges.dst, `${what}: dst`);
    if (src.length !== dst.length) throw new RangeError(`${what}: src and dst differ in length (${src.length} and ${dst.length})`);
    super(graph, src.length, o, what);
    checkVertices(what, 'src', src, graph.numVertices);
    checkVertices(what, 'dst', dst, graph.numVertices);
    const k = o.negatives ?? 1;
    if (!Number.isInteger(k) || k < 0) throw new RangeError(`${what}: negatives must be a non-negative integer, got ${k}`);
    // A batch holds (1 + negatives) pairs per edge, each endpoint an int32 id: bounded before anything is drawn.
    const pairs = (1 + k) * Math.min(o.batchSize, src.length);
    if (pairs > MAX_BATCH_PAIRS)
      throw new RangeError(
        `${what}: negatives (${k}) with batchSize ${o.batchSize} make ${pairs} pairs a batch, past the ${MAX_BATCH_PAIRS} a batch may hold; ` +
          'lower negatives or batchSize',
      );
    if (k > 0) graph.requireSortedRows(what);
    [this.src, this.dst, this.negatives] = [src, dst, k];
  }

  protected make(part: Int32Array, e: number, b: number, seed: number): LinkBatch {
    const m = part.length,
      neg = this.negatives * m;
    const pairs = neg > 0 ? sampleNegativePairs(this.graph, neg, {seed}) : {src: new Int32Array(0), dst: new Int32Array(0)};
    const src = new Int32Array(m + neg),
      dst = new Int32Array(m + neg);
    part.forEach((i, k) => ((src[k] = this.src[i]), (dst[k] = this.dst[i])));
    src.set(pairs.src, m);
    dst.set(pairs.dst, m);
    // The endpoints once each are the seeds; each pair's rows are their positions among them.
    const both = new Int32Array(2 * (m + neg));
    both.set(src);
    both.set(dst, m + neg);
    const {unique, inverse} = uniqueAndRelabel(both);
    const {sub, x} = this.sampled(unique, seed);
    const made = tf.tidy(() => ({
      label: tf.keep(tf.concat([tf.ones([m]), tf.zeros([neg])]) as tf.Tensor1D),
      srcRow: tf.keep(tf.tensor1d(inverse.subarray(0, m + neg), 'int32')),
      dstRow: tf.keep(tf.tensor1d(inverse.subarray(m + neg), 'int32')),
    }));
    return {
      epoch: e,
      index: b,
      src,
      dst,
      layers: sub.layers,
      x,
      ...made,
      dispose: () => (sub.dispose(), tf.dispose([x ?? [], made.label, made.srcRow, made.dstRow].flat())),
    };
  }
}

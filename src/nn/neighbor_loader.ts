// Mini-batches for sampled GNN training, as PyG's NeighborLoader and LinkNeighborLoader give them: the
// seeds (or edges) in shuffled batches, each batch a sampled subgraph over the graph (fan-outs per hop,
// the seeds' own first), the features of its input rows, and the seeds' labels (or the edges' endpoints
// with negative pairs). The one place a sampler is picked for a graph: a host graph's compact subgraphs
// are sampled by the C++ core, a GPU graph's (DeviceCsr, WholeMemoryCsr) on the GPU with a fixed fan-out (or,
// with replace: false, as compact subgraphs of CSR blocks);
// `sampler: 'tree'` samples GraphSAGE's trees instead. Async iterators: each `for await` is one epoch, and
// while a batch trains the next one is sampled, so a step does not wait for its sampling. With `share`,
// each data-parallel rank takes its part of every batch of one order.
import * as tf from '@tensorflow/tfjs-core';

import type {DeviceCsr} from '../graph/device_csr';
import {onSideStream} from '../backend/side_stream';
import {DeferInputs, sampleFixedSubgraph} from '../graph/fixed_subgraph';
import {sampleSubgraphInPlace} from '../graph/in_place_subgraph';
import type {HostGraph} from '../graph/graph_store';
import {sampleNegativePairs} from '../graph/negative_pairs';
import type {RowSource, SampledSubgraph} from '../graph/sampled_subgraph';
import {sampleTree} from '../graph/sample_tree';
import {uniqueAndRelabel} from '../graph/relabel';
import {sampleSubgraph} from '../graph/subgraph';
import type {WholeMemoryCsr} from '../graph/whole_memory_csr';
import {Ids, int32Ids, int32Of} from '../util/arrays';
import {checkSeed, seededRng, shuffle} from '../util/random';
import {checkShare, LoaderShare, sharePart, shareStream} from './loader_share';

export type {RowSource} from '../graph/sampled_subgraph';

/** A graph a loader samples: in host memory (CsrGraph, NativeCsr) or on the GPU (DeviceCsr, WholeMemoryCsr). */
export type LoaderGraph = HostGraph | DeviceCsr | WholeMemoryCsr;

export type {LoaderShare} from './loader_share';

/** What every loader takes. */
export interface LoaderOptions {
  /** Neighbours sampled per vertex at each hop, the seeds' hop first (PyG's num_neighbors). */
  fanouts: number[];
  batchSize: number;
  /** A new order every epoch (default true). */
  shuffle?: boolean;
  /** Seeds the order and the sampling (default 0): the same seed, the same batches. */
  seed?: number;
  /**
   * Sampling with replacement: exactly fan-out draws per vertex, a fixed fan-out (the default on a graph on the
   * GPU); false: up to fan-out distinct neighbours, each layer a CSR block (the default on a host graph).
   */
  replace?: boolean;
  /**
   * 'subgraph' (default): compact subgraphs, each vertex once per layer. 'tree': GraphSAGE's sampling
   * trees (every draw its own row, nothing relabelled; with replacement), for GraphSAGE.
   */
  sampler?: 'subgraph' | 'tree';
  /**
   * 'position' (default): draws keyed by a seed's position in its batch. 'vertex': keyed by the vertex,
   * so a vertex gets the same neighbours whichever rank samples it (exact data parallelism).
   */
  keyBy?: 'position' | 'vertex';
  /** A data-parallel rank's share: every rank walks the same order and takes its part of each batch. */
  share?: LoaderShare;
  /** Leaves out a last batch smaller than batchSize (default false). */
  dropLast?: boolean;
  /**
   * Rows of the first layer's inputs, gathered into each batch's x (a model's forward then reads x, not its own
   * table). Input features: over a graph on the GPU, a source that reads ahead (an Embedding) is read for the
   * next batch while the current one trains, so its rows must not be written while an epoch runs.
   */
  features?: RowSource;
}

export interface NeighborLoaderOptions extends LoaderOptions {
  /** A label per vertex; each batch's y holds its seeds'. */
  labels?: Ids;
}

/**
 * What every batch holds: a sampled subgraph (inputIds, then one layer per hop: what every model's
 * forward(sub) takes) with its place in the epoch. dispose() frees its tensors and blocks (the loop that
 * takes a batch owns it).
 */
export interface SampledBatch extends SampledSubgraph {
  /** The epoch and this batch's position in it. */
  epoch: number;
  index: number;
  /** The batch's random stream (its sampling seed): a training step derives its dropout seed from it. */
  seed: number;
}

export interface NeighborBatch extends SampledBatch {
  seeds: Int32Array;
  /** The seeds' labels (int32), with labels. */
  y?: tf.Tensor1D;
}

// The epochs, orders, prefetching and sampling every loader shares; `items` are what is batched: their
// count (batches hold positions 0 .. items - 1) or the values themselves (batches hold them, copied in a run).
abstract class SampledLoader<B extends SampledBatch> implements AsyncIterable<B> {
  protected readonly o: Required<Omit<LoaderOptions, 'features'>> & Pick<LoaderOptions, 'features'>;
  private epochs = 0;
  // Whether the loop has asked for a batch's x: until it has, a batch's x is read only when asked for.
  private xAsked = false;
  // Whether the loop has asked for a batch's input ids or input layer: until it has, a GPU sampler's last hop is
  // relabelled only when asked for (deferred_inputs.ts); a GraphSAGE reading its table in place never asks.
  private readonly deferInputs = {deferring: true, asked: () => void (this.deferInputs.deferring = false)};

  constructor(
    protected readonly graph: LoaderGraph,
    private readonly items: number | Int32Array,
    o: LoaderOptions,
    what: string,
  ) {
    if (!graph || typeof graph !== 'object' || !('samples' in graph) || !('numVertices' in graph))
      throw new TypeError(`${what}: graph must be a CsrGraph, NativeCsr, DeviceCsr or WholeMemoryCsr`);
    const onGpu = graph.samples === 'tensors';
    const positiveFanouts = onGpu || o.sampler === 'tree';
    if (!Array.isArray(o.fanouts) || o.fanouts.length === 0 || o.fanouts.some((f) => !Number.isInteger(f) || f < (positiveFanouts ? 1 : 0)))
      throw new RangeError(
        `${what}: fanouts must be a non-empty array of ${positiveFanouts ? 'positive' : 'non-negative'} integers, got ${JSON.stringify(o.fanouts)}`,
      );
    if (!Number.isInteger(o.batchSize) || o.batchSize < 1)
      throw new RangeError(`${what}: batchSize must be a positive integer, got ${o.batchSize}`);
    const sampler = o.sampler ?? 'subgraph';
    if (sampler !== 'subgraph' && sampler !== 'tree')
      throw new RangeError(`${what}: sampler must be 'subgraph' or 'tree', got '${sampler}'`);
    const keyBy = o.keyBy ?? 'position';
    if (keyBy !== 'position' && keyBy !== 'vertex') throw new RangeError(`${what}: keyBy must be 'position' or 'vertex', got '${keyBy}'`);
    // A fixed fan-out (the trees, and the GPU's sampler unless told otherwise) draws with replacement.
    const fixed = onGpu || sampler === 'tree';
    if (sampler === 'tree' && o.replace === false)
      throw new RangeError(`${what}: sampler 'tree' samples a fixed fan-out with replacement: leave replace unset or true`);
    const share = checkShare(what, o.share);
    this.o = {
      fanouts: [...o.fanouts],
      batchSize: o.batchSize,
      shuffle: o.shuffle ?? true,
      seed: checkSeed(what, o.seed ?? 0),
      replace: o.replace ?? fixed,
      dropLast: o.dropLast ?? false,
      sampler,
      keyBy,
      share,
      features: o.features,
    };
  }

  /** The host graph, or an error naming what needs one. */
  protected hostGraph(what: string): HostGraph {
    if (this.graph.samples !== 'arrays')
      throw new TypeError(`${what}: needs a graph in host memory (a CsrGraph or NativeCsr), got a graph on the GPU`);
    return this.graph;
  }

  /** Batches in an epoch. */
  get length(): number {
    const items = typeof this.items === 'number' ? this.items : this.items.length;
    const whole = Math.floor(items / this.o.batchSize);
    return this.o.dropLast || items % this.o.batchSize === 0 ? whole : whole + 1;
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
    // The batch after the one the loop holds: made once the loop gives the event loop a turn (awaiting the
    // GPU, a file), else when the loop asks for it; a loop that never yields the event loop (one queueing
    // GPU work step after step) gets it made right then, after the step it queued, with no turn to wait for.
    let ahead: {made?: B; failed?: unknown; handle?: NodeJS.Immediate} = {};
    try {
      for (let b = 0; b < count; ++b) {
        const current = next!;
        next = undefined;
        const slot: typeof ahead = (ahead = {});
        if (b + 1 < count)
          slot.handle = setImmediate(() => {
            slot.handle = undefined;
            try {
              slot.made = this.batchOf(order, e, b + 1);
            } catch (err) {
              slot.failed = err; // reported at the loop, when it asks for this batch
            }
          });
        yield current;
        if (b + 1 === count) break;
        if (slot.handle) clearImmediate(slot.handle);
        slot.handle = undefined;
        if (slot.failed !== undefined) throw slot.failed;
        next = slot.made ?? this.batchOf(order, e, b + 1);
        slot.made = undefined;
      }
    } finally {
      // A loop that stops early leaves the prepared batch here, and nothing scheduled.
      next?.dispose();
      if (ahead.handle) clearImmediate(ahead.handle);
      ahead.made?.dispose();
    }
  }

  /** Batch b of epoch e over `part`, this rank's share of the epoch's order; `seed` its sampling stream. */
  protected abstract make(part: Int32Array, e: number, b: number, seed: number): B;

  /**
   * The subgraph sampled from `seeds` by the graph's sampler, and its input rows' features; `ahead`: made while
   * the previous batch of the epoch trains (its rows then read beside that training where the source allows).
   */
  protected sampled(seeds: Int32Array, seed: number, ahead: boolean): {sub: SampledSubgraph; rows?: BatchRows} {
    const {fanouts, replace, keyBy, sampler} = this.o;
    const g = this.graph;
    const sub =
      sampler === 'tree'
        ? sampleTree(g, seeds, fanouts, {seed, keyBy})
        : g.samples === 'arrays'
          ? sampleSubgraph(g, seeds, fanouts, {seed, replace, keyBy})
          : replace
            ? sampleFixedSubgraph(g, seeds, fanouts, {seed, keyBy}, this.deferring())
            : sampleSubgraphInPlace(g, seeds, fanouts, {seed, keyBy}, this.deferring());
    const features = this.o.features;
    if (!features) return {sub};
    const read = () => features.read(sub.inputIds) as tf.Tensor2D;
    try {
      // Read when the batch is made once the loop has asked for a batch's x (a model that reads the table in place
      // never does); beside the training on the GPU: the epoch's first batch waits for what the main stream queued
      // before it (a table's fill, writes between epochs), later ones read rows nothing writes during the epoch.
      let now: tf.Tensor2D | undefined;
      if (this.xAsked) now = g.samples === 'tensors' && features.readsAhead ? onSideStream(read, {waitForMain: !ahead}) : read();
      return {sub, rows: new BatchRows(features, now, read, () => (this.xAsked = true))};
    } catch (err) {
      sub.dispose();
      throw err;
    }
  }

  // What a GPU sampler is given to leave the last hop as drawn, while the loop has not asked for a batch's inputs.
  private deferring(): DeferInputs | undefined {
    return this.deferInputs.deferring && !this.xAsked ? this.deferInputs : undefined;
  }

  private batchOf(order: Int32Array, e: number, b: number): B {
    const whole = order.subarray(b * this.o.batchSize, Math.min(order.length, (b + 1) * this.o.batchSize));
    const part = sharePart(whole, this.o.share);
    // Each batch of each epoch draws from its own stream; each rank too, unless draws are keyed by vertex
    // (then every rank draws a vertex's neighbours alike).
    const stream = (this.o.seed * 1_000_003 + e * 7_919 + b) % 2 ** 31;
    return this.make(part, e, b, this.o.keyBy === 'vertex' ? stream : shareStream(stream, this.o.share));
  }

  // Epoch e's order of the items: a seeded shuffle of them (or of 0 .. items - 1), or as they are.
  private order(e: number): Int32Array {
    let order: Int32Array;
    if (typeof this.items === 'number') {
      order = new Int32Array(this.items);
      for (let i = 0; i < order.length; ++i) order[i] = i;
    } else {
      order = this.items.slice();
    }
    return this.o.shuffle ? shuffle(order, seededRng((this.o.seed * 0x9e3779b1 + e * 0x85ebca6b) % 2 ** 32)) : order;
  }
}

// A batch's x from `source`: read when the batch was made, else when first asked for (`asked` told each time).
class BatchRows {
  private disposed = false;

  constructor(
    readonly source: RowSource,
    private x: tf.Tensor2D | undefined,
    private readonly read: () => tf.Tensor2D,
    private readonly asked: () => void,
  ) {}

  get(): tf.Tensor2D {
    if (this.disposed) throw new Error('batch.x: the batch is disposed');
    this.asked();
    if (!this.x) this.x = this.read();
    return this.x;
  }

  dispose(): void {
    this.disposed = true;
    this.x?.dispose();
    this.x = undefined;
  }
}

// The batch with its x read through `rows` and its xSource. The source is not enumerable: a copy of the batch
// (`{...batch, x}`) holds the x it is given, and a model reads that.
function withRows<T extends SampledSubgraph>(rows: BatchRows | undefined, batch: T): T {
  if (!rows) return batch;
  Object.defineProperty(batch, 'x', {get: () => rows.get(), enumerable: true, configurable: true});
  Object.defineProperty(batch, 'xSource', {value: rows.source, enumerable: false});
  return batch;
}

// The batch with its subgraph's inputIds (read through, so a deferred last hop is relabelled only when asked for),
// layers and input vertices.
function withSubgraph<T extends object>(
  sub: SampledSubgraph,
  batch: T,
): T & Pick<SampledSubgraph, 'inputIds' | 'layers' | 'inputVertices'> {
  Object.defineProperty(batch, 'inputIds', {get: () => sub.inputIds, enumerable: true, configurable: true});
  const out = Object.assign(batch, {layers: sub.layers});
  if (sub.inputVertices) Object.defineProperty(out, 'inputVertices', {value: sub.inputVertices, enumerable: false});
  return out as T & Pick<SampledSubgraph, 'inputIds' | 'layers' | 'inputVertices'>;
}

function checkVertices(what: string, name: string, ids: Int32Array, n: number): void {
  ids.forEach((v, i) => {
    if (!(v >= 0 && v < n)) throw new RangeError(`${what}: ${name}[${i}] = ${v} is not a vertex of the graph (it has ${n})`);
  });
}

/** Node-level batches: seeds, their sampled layers, features and labels. */
export class NeighborLoader extends SampledLoader<NeighborBatch> {
  private readonly labels?: Int32Array;

  constructor(graph: LoaderGraph, seeds: Ids, o: NeighborLoaderOptions) {
    const what = 'NeighborLoader';
    const ids = int32Ids(seeds, `${what}: seeds`).slice();
    super(graph, ids, o, what);
    const n = graph.numVertices;
    checkVertices(what, 'seeds', ids, n);
    if (uniqueAndRelabel(ids).unique.length !== ids.length) throw new RangeError(`${what}: seeds must be distinct`);
    if (o.labels !== undefined) {
      this.labels = int32Ids(o.labels, `${what}: labels`);
      if (this.labels.length !== n) throw new RangeError(`${what}: labels has ${this.labels.length} entries, the graph ${n} vertices`);
    }
  }

  /**
   * The batch of `seeds` (distinct vertices of the graph, of the caller's choosing), sampled with
   * `sampleSeed` as an epoch's batches are (epoch and index -1); the caller disposes it.
   */
  batch(seeds: Ids, sampleSeed: number): NeighborBatch {
    const what = 'NeighborLoader.batch';
    const ids = int32Ids(seeds, `${what}: seeds`);
    checkVertices(what, 'seeds', ids, this.graph.numVertices);
    return this.seedBatch(ids, -1, -1, checkSeed(what, sampleSeed));
  }

  protected make(part: Int32Array, e: number, b: number, seed: number): NeighborBatch {
    return this.seedBatch(part.slice(), e, b, seed); // the order holds the seeds themselves
  }

  private seedBatch(seeds: Int32Array, e: number, b: number, seed: number): NeighborBatch {
    const {sub, rows} = this.sampled(seeds, seed, b > 0);
    const labels = this.labels;
    const y = labels
      ? tf.tensor1d(
          int32Of(seeds.length, (i) => labels[seeds[i]]),
          'int32',
        )
      : undefined;
    return withRows(
      rows,
      withSubgraph(sub, {epoch: e, index: b, seed, seeds, y, dispose: () => (sub.dispose(), rows?.dispose(), y?.dispose())}),
    );
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

  constructor(graph: LoaderGraph, edges: {src: Ids; dst: Ids}, o: LinkNeighborLoaderOptions) {
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
    if (k > 0) this.hostGraph(what).requireSortedRows(what);
    [this.src, this.dst, this.negatives] = [src, dst, k];
  }

  protected make(part: Int32Array, e: number, b: number, seed: number): LinkBatch {
    const m = part.length,
      neg = this.negatives * m;
    const pairs =
      neg > 0 ? sampleNegativePairs(this.hostGraph('LinkNeighborLoader'), neg, {seed}) : {src: new Int32Array(0), dst: new Int32Array(0)};
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
    const {sub, rows} = this.sampled(unique, seed, b > 0);
    const made = tf.tidy(() => ({
      label: tf.keep(tf.concat([tf.ones([m]), tf.zeros([neg])]) as tf.Tensor1D),
      srcRow: tf.keep(tf.tensor1d(inverse.subarray(0, m + neg), 'int32')),
      dstRow: tf.keep(tf.tensor1d(inverse.subarray(m + neg), 'int32')),
    }));
    return withRows(
      rows,
      withSubgraph(sub, {
        epoch: e,
        index: b,
        seed,
        src,
        dst,
        ...made,
        dispose: () => (sub.dispose(), rows?.dispose(), tf.dispose([made.label, made.srcRow, made.dstRow])),
      }),
    );
  }
}

// Mini-batches for sampled GNN training, as PyG's NeighborLoader gives them: the seeds in (shuffled)
// batches, each batch's sampled layers over the graph (fan-outs per hop, the seeds' own first), the
// features of the rows its first layer reads and the labels of its seeds. An async iterator: each
// `for await` is one epoch, and while a batch trains the next one is sampled (on the CPU's native
// samplers, when the training loop awaits the GPU), so a step does not wait for its sampling.
import * as tf from '@tensorflow/tfjs-core';

import type {CsrGraph} from '../graph/csr';
import type {NativeCsr} from '../graph/native_csr';
import {sampleSubgraph, SubgraphLayer, uniqueAndRelabel} from '../graph/subgraph';
import {int32Ids} from '../util/arrays';
import {checkSeed, randInt, seededRng} from '../util/random';

/** What gives a batch its input rows: an embedding or feature table, NodeInputs, anything with read(ids). */
export interface RowSource {
  read(ids: Int32Array): tf.Tensor;
}

export interface NeighborLoaderOptions {
  /** Neighbours sampled per vertex at each hop, the seeds' hop first (PyG's num_neighbors). */
  fanouts: number[];
  batchSize: number;
  /** A new order of the seeds every epoch (default true). */
  shuffle?: boolean;
  /** Seeds the order and the sampling (default 0): the same seed, the same batches. */
  seed?: number;
  /** Sampling with replacement (default false: up to fan-out distinct neighbours). */
  replace?: boolean;
  /** Leaves out a last batch smaller than batchSize (default false). */
  dropLast?: boolean;
  /** Rows of the first layer's inputs, gathered into each batch's x. */
  features?: RowSource;
  /** A label per vertex; each batch's y holds its seeds'. */
  labels?: Int32Array | ArrayLike<number>;
}

export interface NeighborBatch {
  /** The epoch and this batch's position in it. */
  epoch: number;
  index: number;
  seeds: Int32Array;
  /** The input layer first: layers[0].src are the rows x holds; the last layer's dst are the seeds. */
  layers: SubgraphLayer[];
  /** features.read(layers[0].src) [layers[0].src.length, width], with features. */
  x?: tf.Tensor2D;
  /** The seeds' labels (int32), with labels. */
  y?: tf.Tensor1D;
  /** Frees the batch's tensors and blocks (the loop that takes a batch owns it). */
  dispose(): void;
}

export class NeighborLoader implements AsyncIterable<NeighborBatch> {
  private readonly seeds: Int32Array;
  private readonly labels?: Int32Array;
  private readonly o: Required<Omit<NeighborLoaderOptions, 'features' | 'labels'>> & Pick<NeighborLoaderOptions, 'features'>;
  private epochs = 0;

  constructor(
    private readonly graph: CsrGraph | NativeCsr,
    seeds: Int32Array | ArrayLike<number>,
    o: NeighborLoaderOptions,
  ) {
    const what = 'NeighborLoader';
    this.seeds = int32Ids(seeds, `${what}: seeds`).slice();
    const n = graph.numVertices;
    this.seeds.forEach((v, i) => {
      if (!(v >= 0 && v < n)) throw new RangeError(`${what}: seeds[${i}] = ${v} is not a vertex of the graph (it has ${n})`);
    });
    if (uniqueAndRelabel(this.seeds).unique.length !== this.seeds.length) throw new RangeError(`${what}: seeds must be distinct`);
    if (!Array.isArray(o.fanouts) || o.fanouts.length === 0 || o.fanouts.some((f) => !Number.isInteger(f) || f < 0))
      throw new RangeError(`${what}: fanouts must be a non-empty array of non-negative integers, got ${JSON.stringify(o.fanouts)}`);
    if (!Number.isInteger(o.batchSize) || o.batchSize < 1)
      throw new RangeError(`${what}: batchSize must be a positive integer, got ${o.batchSize}`);
    if (o.labels !== undefined) {
      this.labels = int32Ids(o.labels, `${what}: labels`);
      if (this.labels.length !== n) throw new RangeError(`${what}: labels has ${this.labels.length} entries, the graph ${n} vertices`);
    }
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
    const whole = Math.floor(this.seeds.length / this.o.batchSize);
    return this.o.dropLast || this.seeds.length % this.o.batchSize === 0 ? whole : whole + 1;
  }

  /** The next epoch's batches (each `for await` over the loader is one epoch). */
  [Symbol.asyncIterator](): AsyncIterator<NeighborBatch> {
    return this.epoch(this.epochs++);
  }

  /** Epoch `e`'s batches: the same for the same loader options, whenever asked for. */
  async *epoch(e: number): AsyncGenerator<NeighborBatch> {
    if (!Number.isInteger(e) || e < 0) throw new RangeError(`NeighborLoader.epoch: e must be a non-negative integer, got ${e}`);
    const order = this.order(e);
    const count = this.length;
    let next: NeighborBatch | undefined = count > 0 ? this.batch(order, e, 0) : undefined;
    let pending: Promise<NeighborBatch> | undefined;
    try {
      for (let b = 0; b < count; ++b) {
        const current = next!;
        next = undefined;
        // Sampled once the loop gives the event loop a turn (awaiting the GPU), else when asked for.
        pending =
          b + 1 < count ? new Promise((resolve, reject) => setImmediate(() => this.settle(order, e, b + 1, resolve, reject))) : undefined;
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

  private settle(order: Int32Array, e: number, b: number, resolve: (x: NeighborBatch) => void, reject: (x: unknown) => void): void {
    try {
      resolve(this.batch(order, e, b));
    } catch (err) {
      reject(err);
    }
  }

  // Epoch e's order of the seeds: a seeded shuffle, or as given.
  private order(e: number): Int32Array {
    const order = this.seeds.slice();
    if (!this.o.shuffle) return order;
    const rng = seededRng((this.o.seed * 0x9e3779b1 + e * 0x85ebca6b) % 2 ** 32);
    for (let i = order.length - 1; i > 0; --i) {
      const j = randInt(rng, i + 1);
      [order[i], order[j]] = [order[j], order[i]];
    }
    return order;
  }

  private batch(order: Int32Array, e: number, b: number): NeighborBatch {
    const seeds = order.slice(b * this.o.batchSize, Math.min(order.length, (b + 1) * this.o.batchSize));
    // Each batch of each epoch draws from its own stream.
    const seed = (this.o.seed * 1_000_003 + e * 7_919 + b) % 2 ** 31;
    const sub = sampleSubgraph(this.graph, seeds, this.o.fanouts, {seed, replace: this.o.replace});
    let x: tf.Tensor2D | undefined, y: tf.Tensor1D | undefined;
    try {
      if (this.o.features) x = this.o.features.read(sub.layers[0].src) as tf.Tensor2D;
      if (this.labels) {
        const labels = this.labels;
        y = tf.tensor1d(
          Int32Array.from(seeds, (v) => labels[v]),
          'int32',
        );
      }
    } catch (err) {
      sub.dispose();
      x?.dispose();
      throw err;
    }
    return {epoch: e, index: b, seeds, layers: sub.layers, x, y, dispose: () => (sub.dispose(), tf.dispose([x ?? [], y ?? []].flat()))};
  }
}

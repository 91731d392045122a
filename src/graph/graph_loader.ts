// Small graphs in batches (PyG's DataLoader over a list of Data): each pass shuffles them (seeded, a new
// order per pass) or keeps their order, and yields one GraphBatch per batchSize graphs, the last one shorter.
// With `prefetch` (the default) a worker thread makes the next batches' arrays while the loop trains on this
// one; the batches are the same either way. The caller disposes each batch.
import * as fs from 'fs';
import * as path from 'path';
import {Worker} from 'worker_threads';

import {checkSeed, seededRng, shuffle} from '../util/random';
import {BatchArrays, batchArrays, packGraphs} from './batch_arrays';
import {batchOf, checkGraphs, GraphBatch, nativeRows, SmallGraph} from './graph_batch';

export interface GraphLoaderOptions {
  batchSize: number;
  shuffle?: boolean;
  seed?: number;
  /** Each edge made two-way (default true). */
  symmetric?: boolean;
  /**
   * Batches made ahead in a worker thread (default true; a pass of one batch, or sources run as TypeScript, made in
   * place). The thread reads the graphs as they were at the first pass that used it.
   */
  prefetch?: boolean;
}

// The worker thread's script, compiled beside this one (sources run as TypeScript have none: batches made in place).
const WORKER = path.join(__dirname, 'graph_batch_worker.js');

/** Batches the worker thread holds ready, or is making, ahead of the loop. */
const AHEAD = 2;

export class GraphLoader {
  private pass = 0;
  private thread?: BatchThread;

  constructor(
    readonly graphs: SmallGraph[],
    private readonly o: GraphLoaderOptions,
  ) {
    if (!Array.isArray(graphs) || graphs.length === 0) throw new RangeError('GraphLoader: graphs must be a non-empty array');
    if (!Number.isInteger(o.batchSize) || o.batchSize < 1)
      throw new RangeError(`GraphLoader: batchSize must be a positive integer, got ${o.batchSize}`);
    if (o.prefetch !== undefined && typeof o.prefetch !== 'boolean')
      throw new TypeError(`GraphLoader: prefetch must be true or false, got ${String(o.prefetch)}`);
    checkSeed('GraphLoader', o.seed ?? 0);
    checkGraphs(graphs); // every graph checked now, not in the middle of a pass
  }

  /** @internal Whether the loader's worker thread is started (its passes made there). */
  get threaded(): boolean {
    return this.thread !== undefined;
  }

  /** Batches per pass. */
  get length(): number {
    return Math.ceil(this.graphs.length / this.o.batchSize);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<GraphBatch & {indices: Int32Array}> {
    const pass = this.pass++;
    const all = Int32Array.from(this.graphs, (_, i) => i);
    const order = this.o.shuffle ? shuffle(all, seededRng((this.o.seed ?? 0) * 7919 + pass)) : all;
    const symmetric = this.o.symmetric ?? true;
    const indicesOf = (k: number) => order.slice(k * this.o.batchSize, (k + 1) * this.o.batchSize);
    const count = this.length;
    const thread = (this.o.prefetch ?? true) && count > 1 && fs.existsSync(WORKER) ? this.started() : undefined;
    // With a thread, AHEAD batches asked for ahead of the one the loop holds; else each made in place when its turn comes.
    const asked: Promise<BatchArrays>[] = [];
    const ask = (k: number) => {
      if (!thread || k >= count) return;
      const p = thread.ask(indicesOf(k), symmetric);
      p.catch(() => {}); // awaited in turn below; a loop that stops early never awaits it
      asked.push(p);
    };
    for (let k = 0; k < AHEAD; ++k) ask(k);
    for (let k = 0; k < count; ++k) {
      const indices = indicesOf(k);
      const arrays = thread
        ? await asked.shift()!
        : batchArrays(
            Array.from(indices, (i) => this.graphs[i]),
            symmetric,
            nativeRows,
          );
      ask(k + AHEAD);
      // (assigned, not spread: a spread would make the batch's graph, which is made when asked for)
      yield Object.assign(batchOf(arrays), {indices});
    }
  }

  // The worker thread, started at the first pass that uses it; one that failed (or was stopped) replaced.
  private started(): BatchThread {
    if (this.thread?.failed) this.dispose();
    if (!this.thread) {
      this.thread = new BatchThread(packGraphs(this.graphs));
      // A loader dropped without dispose() stops its thread when it is collected.
      threads.register(this, this.thread, this);
    }
    return this.thread;
  }

  /** Stops the loader's worker thread (a loader left undisposed keeps no process alive: the thread waits unreferenced). */
  dispose(): void {
    this.thread?.stop();
    threads.unregister(this);
    this.thread = undefined;
  }
}

const threads = new FinalizationRegistry<BatchThread>((t) => t.stop());

// The worker thread (graph_batch_worker.ts) and the batches asked of it, answered in the order asked.
class BatchThread {
  private readonly worker: Worker;
  private next = 0;
  private readonly waiting = new Map<number, {resolve: (a: BatchArrays) => void; reject: (e: Error) => void}>();
  failed?: Error;

  constructor(packed: ReturnType<typeof packGraphs>) {
    this.worker = new Worker(WORKER, {workerData: packed});
    this.worker.unref();
    this.worker.on('message', (m: {id: number; arrays?: BatchArrays; error?: string}) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) this.worker.unref();
      if (m.error !== undefined) w?.reject(new Error(`GraphLoader: batching failed: ${m.error}`));
      else w?.resolve(m.arrays!);
    });
    this.worker.on('error', (e) => this.fail(new Error(`GraphLoader: the batching thread failed: ${e.message}`)));
    this.worker.on('exit', (code) => this.fail(new Error(`GraphLoader: the batching thread stopped (exit code ${code})`)));
  }

  ask(indices: Int32Array, symmetric: boolean): Promise<BatchArrays> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, {resolve, reject});
      this.worker.ref(); // a loop awaiting a batch keeps the process alive
      this.worker.postMessage({id, indices, symmetric});
    });
  }

  stop(): void {
    this.fail(new Error('GraphLoader: disposed'));
    void this.worker.terminate();
  }

  private fail(e: Error): void {
    this.failed ??= e;
    for (const w of this.waiting.values()) w.reject(this.failed);
    this.waiting.clear();
    this.worker.unref();
  }
}

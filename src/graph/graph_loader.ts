// Small graphs in batches (PyG's DataLoader over a list of Data): each pass shuffles them (seeded, a new
// order per pass) or keeps their order, and yields one GraphBatch per batchSize graphs, the last one shorter.
// The caller disposes each batch.
import {checkSeed, seededRng, shuffle} from '../util/random';
import {batchGraphs, checkGraphs, GraphBatch, SmallGraph} from './graph_batch';

export interface GraphLoaderOptions {
  batchSize: number;
  shuffle?: boolean;
  seed?: number;
  /** Each edge made two-way (default true). */
  symmetric?: boolean;
}

export class GraphLoader {
  private pass = 0;

  constructor(
    readonly graphs: SmallGraph[],
    private readonly o: GraphLoaderOptions,
  ) {
    if (!Array.isArray(graphs) || graphs.length === 0) throw new RangeError('GraphLoader: graphs must be a non-empty array');
    if (!Number.isInteger(o.batchSize) || o.batchSize < 1)
      throw new RangeError(`GraphLoader: batchSize must be a positive integer, got ${o.batchSize}`);
    checkSeed('GraphLoader', o.seed ?? 0);
    checkGraphs(graphs); // every graph checked now, not in the middle of a pass
  }

  /** Batches per pass. */
  get length(): number {
    return Math.ceil(this.graphs.length / this.o.batchSize);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<GraphBatch & {indices: Int32Array}> {
    const pass = this.pass++;
    const all = Int32Array.from(this.graphs, (_, i) => i);
    const order = this.o.shuffle ? shuffle(all, seededRng((this.o.seed ?? 0) * 7919 + pass)) : all;
    for (let at = 0; at < order.length; at += this.o.batchSize) {
      const indices = order.slice(at, at + this.o.batchSize);
      // (assigned, not spread: a spread would make the batch's graph, which is made when asked for)
      yield Object.assign(
        batchGraphs(
          Array.from(indices, (i) => this.graphs[i]),
          {symmetric: this.o.symmetric},
        ),
        {indices},
      );
    }
  }
}

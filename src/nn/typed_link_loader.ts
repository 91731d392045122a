// PyG's LinkNeighborLoader over HeteroData, for one edge type (user-item recommendation, papers' authors):
// the relation's edges in (shuffled) batches, each positive with `negatives` corrupted ones (its source with
// a uniform destination of the destination type), both ends' neighbourhoods sampled together (each type's
// ends made unique and used as seeds), every type's input rows, and each pair's rows among the last
// layer's outputs of its two types.
import * as tf from '@tensorflow/tfjs-core';

import {EdgeType, edgeTypeKey, HeteroGraph, TypedEdges} from '../graph/hetero_graph';
import {hostTypedGraph, sampleTypedSeeds, TypedFanouts, TypedGraph, TypedSubgraph} from '../graph/typed_sampling';
import {uniqueAndRelabel} from '../graph/relabel';
import {checkSeed, randInt, seededRng, shuffle} from '../util/random';
import {FeatureTables, featureTablesFor, TypedFeatureStorage} from './typed_neighbor_loader';

export interface TypedLinkLoaderOptions {
  edgeType: EdgeType | string;
  /** The positive edges (default: every edge of the relation). */
  edges?: TypedEdges;
  fanouts: TypedFanouts;
  batchSize: number;
  /** Corrupted pairs per positive (default 1). */
  negatives?: number;
  shuffle?: boolean;
  seed?: number;
  /** How each type's features are kept, or the FeatureTables another loader reads (see TypedNeighborLoaderOptions). */
  features?: TypedFeatureStorage | FeatureTables;
}

export interface TypedLinkBatch {
  sub: TypedSubgraph;
  x: Record<string, tf.Tensor2D>;
  srcType: string;
  dstType: string;
  /** The pairs' ends (positives first, then negatives) as ids of their types. */
  src: Int32Array;
  dst: Int32Array;
  /** Each pair's row among the last layer's outputs of srcType and of dstType. */
  srcRow: tf.Tensor1D;
  dstRow: tf.Tensor1D;
  /** 1 for a positive, 0 for a negative. */
  label: tf.Tensor1D;
  dispose(): void;
}

export class TypedLinkLoader {
  readonly srcType: string;
  readonly dstType: string;
  private readonly edges: TypedEdges;
  private readonly features: FeatureTables;
  private readonly ownsFeatures: boolean;
  private epoch = 0;

  /** The typed graph (counts, features); its batches are sampled where `sampled` lives. */
  readonly graph: HeteroGraph;
  private readonly sampled: TypedGraph;

  /** graph: a HeteroGraph (sampled on the host) or a DeviceHeteroGraph (sampled on the GPU). */
  constructor(
    typed: TypedGraph,
    private readonly o: TypedLinkLoaderOptions,
  ) {
    const graph = (this.graph = hostTypedGraph(typed));
    this.sampled = typed;
    const r = graph.relation(o.edgeType);
    [this.srcType, , this.dstType] = r.type;
    this.edges = o.edges ?? graph.edgesOf(edgeTypeKey(r.type));
    const {src, dst} = this.edges;
    if (!(src instanceof Int32Array) || !(dst instanceof Int32Array) || src.length !== dst.length)
      throw new RangeError('TypedLinkLoader: edges must be two Int32Arrays of one length (src, dst)');
    for (const [ids, t, end] of [
      [src, this.srcType, 'src'],
      [dst, this.dstType, 'dst'],
    ] as const)
      for (let i = 0; i < ids.length; ++i)
        if (ids[i] < 0 || ids[i] >= graph.numNodes[t])
          throw new RangeError(`TypedLinkLoader: edges.${end}[${i}] = ${ids[i]} is not a '${t}' id in [0, ${graph.numNodes[t]})`);
    if (!Number.isInteger(o.batchSize) || o.batchSize < 1)
      throw new RangeError(`TypedLinkLoader: batchSize must be a positive integer, got ${o.batchSize}`);
    const k = o.negatives ?? 1;
    if (!Number.isInteger(k) || k < 0)
      throw new RangeError(`TypedLinkLoader: negatives must be a non-negative integer, got ${o.negatives}`);
    checkSeed('TypedLinkLoader', o.seed ?? 0);
    ({tables: this.features, owned: this.ownsFeatures} = featureTablesFor(graph, o.features));
  }

  get length(): number {
    return Math.ceil(this.edges.src.length / this.o.batchSize);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<TypedLinkBatch> {
    const epoch = this.epoch++;
    const rng = seededRng((this.o.seed ?? 0) * 7919 + epoch);
    const m = this.edges.src.length;
    const order = this.o.shuffle
      ? shuffle(
          Int32Array.from({length: m}, (_, i) => i),
          rng,
        )
      : Int32Array.from({length: m}, (_, i) => i);
    const k = this.o.negatives ?? 1,
      nDst = this.graph.numNodes[this.dstType];
    for (let b = 0, step = 0; b < m; b += this.o.batchSize, ++step) {
      const at = order.subarray(b, b + this.o.batchSize),
        p = at.length;
      const src = new Int32Array(p * (1 + k)),
        dst = new Int32Array(p * (1 + k));
      at.forEach((e, i) => {
        src[i] = this.edges.src[e];
        dst[i] = this.edges.dst[e];
        for (let j = 0; j < k; ++j) {
          src[p + i * k + j] = this.edges.src[e];
          dst[p + i * k + j] = randInt(rng, nDst);
        }
      });
      // Each type's ends, unique, are the seeds; a pair's rows are their positions.
      const same = this.srcType === this.dstType;
      const ends = same ? uniqueAndRelabel(Int32Array.from([...src, ...dst])) : undefined;
      const us = same ? undefined : uniqueAndRelabel(src),
        ud = same ? undefined : uniqueAndRelabel(dst);
      const seeds = same ? {[this.srcType]: ends!.unique} : {[this.srcType]: us!.unique, [this.dstType]: ud!.unique};
      const sub = sampleTypedSeeds(this.sampled, seeds, this.o.fanouts, {seed: (this.o.seed ?? 0) * 1000003 + epoch * 65537 + step});
      const x = this.features.inputs(sub.layers[0]?.src ?? seeds, sub.inputIds);
      const srcRow = tf.tensor1d(same ? ends!.inverse.subarray(0, src.length) : us!.inverse, 'int32');
      const dstRow = tf.tensor1d(same ? ends!.inverse.subarray(src.length) : ud!.inverse, 'int32');
      const label = tf.tensor1d(Float32Array.from({length: src.length}, (_, i) => (i < p ? 1 : 0)));
      yield {
        sub,
        x,
        srcType: this.srcType,
        dstType: this.dstType,
        src,
        dst,
        srcRow,
        dstRow,
        label,
        dispose: () => {
          sub.dispose();
          tf.dispose([...Object.values(x), srcRow, dstRow, label]);
        },
      };
    }
  }

  /** Frees the feature tables the loader holds on the device. */
  dispose(): void {
    if (this.ownsFeatures) this.features.dispose();
  }
}

// R-GCN (Schlichtkrull et al., 2018; PyG's RGCNConv and FastRGCNConv) over a typed sampled layer: each
// destination vertex gets x_i W_root + sum over relations r of the mean (or sum) of its sampled
// r-sources x_j W_r, plus a bias. W_r is a relation's own matrix, or with `numBases` a mix of shared bases
// (W_r = sum_b a_rb V_b), or with `numBlocks` block-diagonal. Every vertex type's inputs are one width
// (project types first, as PyG's RGCN examples do). Aggregation is the native mean over each relation's
// block; then, for own matrices and bases, each destination type's aggregates (and its own rows, for the
// root) are joined side by side and multiplied once by the matching relation matrices stacked (PyG's
// FastRGCNConv groups the same way): a handful of launches per type, however many relations reach it.
// Block-diagonal matrices take one product per relation.
import * as tf from '@tensorflow/tfjs-core';

import {aggregate} from '../../graph/aggregate';
import type {TypedLayer} from '../../graph/typed_sampling';
import {firstRows} from '../conv/graph_input';
import {glorot} from '../node_model';
import {checkTypedInputs, layerRelations, relationsBy} from './typed_inputs';

export interface RgcnConvOptions {
  /** Input width (every vertex type's). */
  inDim: number;
  units: number;
  /** The edge type keys the layer has weights for (a layer's relations without weights are refused). */
  relations: string[];
  /** Basis decomposition: each relation's matrix a mix of this many shared ones. */
  numBases?: number;
  /** Block-diagonal decomposition: each relation's matrix this many diagonal blocks (inDim and units divisible). */
  numBlocks?: number;
  aggr?: 'mean' | 'sum';
  /** x_i W_root (default true). */
  rootWeight?: boolean;
  bias?: boolean;
  seed?: number;
}

export class RgcnConv {
  readonly config: Required<Omit<RgcnConvOptions, 'numBases' | 'numBlocks'>> & {numBases?: number; numBlocks?: number};
  /** The trainable variables: bases or relation matrices, coefficients, root, bias. */
  readonly variables: tf.Variable[] = [];
  private readonly weight: tf.Variable; // [R, in, out] or [B, in, out] (bases) or [R, blocks, in/blocks, out/blocks]
  private readonly comp?: tf.Variable; // [R, B]
  private readonly root?: tf.Variable;
  private readonly biasVar?: tf.Variable;
  private readonly index: Map<string, number>;

  constructor(o: RgcnConvOptions) {
    for (const k of ['inDim', 'units'] as const)
      if (!Number.isInteger(o[k]) || o[k] < 1) throw new RangeError(`rgcnConv: ${k} must be a positive integer, got ${o[k]}`);
    if (!Array.isArray(o.relations) || o.relations.length === 0 || new Set(o.relations).size !== o.relations.length)
      throw new RangeError('rgcnConv: relations must be a non-empty list of distinct edge type keys');
    if (o.numBases !== undefined && o.numBlocks !== undefined) throw new RangeError('rgcnConv: numBases and numBlocks exclude each other');
    if (o.numBases !== undefined && (!Number.isInteger(o.numBases) || o.numBases < 1))
      throw new RangeError(`rgcnConv: numBases must be a positive integer, got ${o.numBases}`);
    if (
      o.numBlocks !== undefined &&
      (!Number.isInteger(o.numBlocks) || o.numBlocks < 1 || o.inDim % o.numBlocks !== 0 || o.units % o.numBlocks !== 0)
    )
      throw new RangeError(
        `rgcnConv: numBlocks must be a positive integer dividing inDim (${o.inDim}) and units (${o.units}), got ${o.numBlocks}`,
      );
    const aggr = o.aggr ?? 'mean';
    if (aggr !== 'mean' && aggr !== 'sum') throw new RangeError(`rgcnConv: aggr must be 'mean' or 'sum', got ${o.aggr}`);
    this.config = {...o, aggr, rootWeight: o.rootWeight ?? true, bias: o.bias ?? true, seed: o.seed ?? 0};
    const {inDim, units, seed} = this.config;
    const R = o.relations.length;
    this.index = new Map(o.relations.map((k, i) => [k, i]));
    const v = (t: tf.Tensor, name: string) => {
      const x = tf.variable(t, true, `rgcn_${name}_${RgcnConv.count}`);
      this.variables.push(x);
      t.dispose();
      return x;
    };
    if (o.numBlocks !== undefined) {
      const b = o.numBlocks;
      this.weight = v(glorot([R, b, inDim / b, units / b], inDim / b, units / b, seed), 'blocks');
    } else if (o.numBases !== undefined) {
      this.weight = v(glorot([o.numBases, inDim, units], inDim, units, seed), 'bases');
      this.comp = v(glorot([R, o.numBases], R, o.numBases, seed + 1), 'comp');
    } else {
      this.weight = v(glorot([R, inDim, units], inDim, units, seed), 'weight');
    }
    if (this.config.rootWeight) this.root = v(glorot([inDim, units], inDim, units, seed + 2), 'root');
    if (this.config.bias) this.biasVar = v(tf.zeros([units]), 'bias');
    ++RgcnConv.count;
  }

  private static count = 0;

  /** Relation r's x -> x W_r for rows x [n, in], W_r block-diagonal. */
  private transform(x: tf.Tensor2D, r: number): tf.Tensor2D {
    const {inDim, units, numBlocks} = this.config;
    const w = tf.squeeze(tf.slice(this.weight, [r, 0, 0, 0], [1, -1, -1, -1]), [0]) as tf.Tensor3D; // [b, in/b, out/b]
    const xb = tf.transpose(tf.reshape(x, [-1, numBlocks!, inDim / numBlocks!]), [1, 0, 2]) as tf.Tensor3D; // [b, n, in/b]
    return tf.reshape(tf.transpose(tf.matMul(xb, w), [1, 0, 2]), [-1, units]) as tf.Tensor2D;
  }

  /** Every relation's matrix [R, in, out]: the relations' own, or their mixes of the bases. */
  private matrices(): tf.Tensor3D {
    const {inDim, units, numBases} = this.config;
    return this.comp
      ? (tf.reshape(tf.matMul(this.comp, tf.reshape(this.weight, [numBases!, -1])), [-1, inDim, units]) as tf.Tensor3D)
      : (this.weight as unknown as tf.Tensor3D);
  }

  /**
   * One layer: x holds each vertex type's input rows (layer.src's order; every type the layer's blocks
   * read), the result each type's output rows (layer.dst's order) for the types that have outputs.
   */
  apply(x: Record<string, tf.Tensor2D>, layer: TypedLayer): Record<string, tf.Tensor2D> {
    const {inDim, units} = this.config;
    checkTypedInputs('rgcnConv', x, layer, inDim);
    const into = relationsBy(layerRelations('rgcnConv', layer, this.index), 'd');
    const out: Record<string, tf.Tensor2D> = {};
    return tf.tidy(() => {
      const grouped = this.config.numBlocks === undefined;
      const all = grouped ? this.matrices() : undefined;
      for (const [t, rows] of Object.entries(layer.dst)) {
        if (rows.length === 0) continue;
        const rels = into.get(t) ?? [];
        const aggs = rels.map(({key, s}) => aggregate(x[s], layer.blocks[key], this.config.aggr));
        const xd = firstRows(x[t], rows.length);
        const own = this.root ? [xd] : [];
        let h: tf.Tensor2D;
        if (own.length + aggs.length === 0) h = tf.zeros([rows.length, units]);
        else if (grouped) {
          // [own | agg_1 | ... | agg_k] [rows, (k + 1) in] times [root; W_r1; ...; W_rk] [(k + 1) in, out].
          const mats = rels.length
            ? [
                tf.reshape(
                  tf.gather(
                    all!,
                    rels.map((x) => x.r),
                  ),
                  [-1, units],
                ),
              ]
            : [];
          const w = [...(this.root ? [this.root] : []), ...mats];
          const parts = [...own, ...aggs];
          h = tf.matMul(parts.length === 1 ? parts[0] : tf.concat(parts, 1), w.length === 1 ? w[0] : tf.concat(w, 0));
        } else {
          h = own.length ? tf.matMul(own[0], this.root!) : tf.zeros([rows.length, units]);
          rels.forEach(({r}, i) => (h = tf.add(h, this.transform(aggs[i], r))));
        }
        out[t] = (this.biasVar ? tf.add(h, this.biasVar) : h) as tf.Tensor2D;
      }
      return out;
    });
  }

  dispose(): void {
    this.variables.forEach((v) => v.dispose());
  }
}

export function rgcnConv(o: RgcnConvOptions): RgcnConv {
  return new RgcnConv(o);
}

// R-GAT (graph attention per relation, summed: the MLPerf GNN benchmark's model, PyG's HeteroConv of
// GATConv with aggr 'sum', WholeGraph's R-GAT) over a typed sampled layer: for relation r from type s to
// type d, z = x W_r split into heads, each destination row attends over its sampled r-sources with
// weights softmax(leakyRelu(z_src . a_src_r + z_dst . a_dst_r)) (the native gatAggregate, bipartite:
// sources and destinations of different types), the relations' results summed, plus x_dst W_root and a
// bias. Heads are concatenated (units x heads wide) or averaged.
import * as tf from '@tensorflow/tfjs-core';

import {parseEdgeTypeKey} from '../../graph/hetero_graph';
import type {TypedLayer} from '../../graph/typed_sampling';
import {gatAggregate} from '../gat';
import {glorot} from '../node_model';
import {checkTypedInputs} from './typed_inputs';

export interface RgatConvOptions {
  inDim: number;
  /** Width per head. */
  units: number;
  heads?: number;
  relations: string[];
  /** Concatenate the heads (default) or average them. */
  concat?: boolean;
  rootWeight?: boolean;
  bias?: boolean;
  negativeSlope?: number;
  seed?: number;
}

export class RgatConv {
  readonly config: Required<RgatConvOptions>;
  readonly variables: tf.Variable[] = [];
  private readonly w: tf.Variable; // [R, in, heads * units]
  private readonly attSrc: tf.Variable; // [R, heads, units]
  private readonly attDst: tf.Variable;
  private readonly root?: tf.Variable;
  private readonly biasVar?: tf.Variable;
  private readonly index: Map<string, number>;
  private static count = 0;

  constructor(o: RgatConvOptions) {
    for (const k of ['inDim', 'units'] as const)
      if (!Number.isInteger(o[k]) || o[k] < 1) throw new RangeError(`rgatConv: ${k} must be a positive integer, got ${o[k]}`);
    const heads = o.heads ?? 1;
    if (!Number.isInteger(heads) || heads < 1) throw new RangeError(`rgatConv: heads must be a positive integer, got ${o.heads}`);
    if (!Array.isArray(o.relations) || o.relations.length === 0 || new Set(o.relations).size !== o.relations.length)
      throw new RangeError('rgatConv: relations must be a non-empty list of distinct edge type keys');
    this.config = {
      ...o,
      heads,
      concat: o.concat ?? true,
      rootWeight: o.rootWeight ?? true,
      bias: o.bias ?? true,
      negativeSlope: o.negativeSlope ?? 0.2,
      seed: o.seed ?? 0,
    };
    const {inDim, units, seed} = this.config;
    const R = o.relations.length,
      out = this.outDim;
    this.index = new Map(o.relations.map((k, i) => [k, i]));
    const v = (t: tf.Tensor, name: string) => {
      const x = tf.variable(t, true, `rgat_${name}_${RgatConv.count}`);
      this.variables.push(x);
      t.dispose();
      return x;
    };
    this.w = v(glorot([R, inDim, heads * units], inDim, heads * units, seed), 'weight');
    this.attSrc = v(glorot([R, heads, units], heads, units, seed + 1), 'att_src');
    this.attDst = v(glorot([R, heads, units], heads, units, seed + 2), 'att_dst');
    if (this.config.rootWeight) this.root = v(glorot([inDim, out], inDim, out, seed + 3), 'root');
    if (this.config.bias) this.biasVar = v(tf.zeros([out]), 'bias');
    ++RgatConv.count;
  }

  /** The output width: units x heads concatenated, or units averaged. */
  get outDim(): number {
    return this.config.concat ? this.config.units * this.config.heads : this.config.units;
  }

  apply(x: Record<string, tf.Tensor2D>, layer: TypedLayer): Record<string, tf.Tensor2D> {
    const {inDim, units, heads, concat, negativeSlope} = this.config;
    checkTypedInputs('rgatConv', x, layer, inDim);
    return tf.tidy(() => {
      // Each relation's matrix and its attention logits' matrices, made once a call for all relations (a few ops,
      // not a few per relation): a row's logit per head is z . a = x (W a), W folded with a first ([inDim, heads]),
      // so the logits are one narrow product each side rather than a pass over the [rows, heads, units] projections.
      const R = this.config.relations.length;
      const weights = tf.unstack(this.w) as tf.Tensor2D[];
      const wHeads = tf.reshape(this.w, [R, inDim, heads, units]);
      const fold = (att: tf.Variable) => tf.unstack(tf.sum(tf.mul(wHeads, tf.expandDims(att, 1)), 3)) as tf.Tensor2D[]; // R x [inDim, heads]
      const foldedSrc = fold(this.attSrc),
        foldedDst = fold(this.attDst);
      const out: Record<string, tf.Tensor2D> = {};
      for (const [t, rows] of Object.entries(layer.dst)) {
        const n = rows.length;
        if (n === 0) continue;
        const xd = (x[t].shape[0] === n ? x[t] : tf.slice(x[t], [0, 0], [n, inDim])) as tf.Tensor2D;
        let h: tf.Tensor2D = this.root ? tf.matMul(xd, this.root) : tf.zeros([n, this.outDim]);
        for (const [key, block] of Object.entries(layer.blocks)) {
          const [s, , d] = parseEdgeTypeKey(key, "rgatConv: the layer's blocks");
          if (d !== t || block.arrays.colIdx.length === 0) continue;
          const r = this.index.get(key);
          if (r === undefined) throw new RangeError(`rgatConv: the layer has edge type ${key}, the conv has no weights for it`);
          const zs = tf.reshape(tf.matMul(x[s], weights[r]), [-1, heads, units]) as tf.Tensor3D;
          const agg = gatAggregate(block, zs, tf.matMul(x[s], foldedSrc[r]), tf.matMul(xd, foldedDst[r]), {negativeSlope});
          h = tf.add(h, concat ? tf.reshape(agg, [n, heads * units]) : tf.mean(agg, 1));
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

export function rgatConv(o: RgatConvOptions): RgatConv {
  return new RgatConv(o);
}

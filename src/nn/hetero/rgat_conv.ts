// R-GAT (graph attention per relation, summed: the MLPerf GNN benchmark's model, PyG's HeteroConv of
// GATConv with aggr 'sum', WholeGraph's R-GAT) over a typed sampled layer: for relation r from type s to
// type d, z = x W_r split into heads, each destination row attends over its sampled r-sources with
// weights softmax(leakyRelu(z_src . a_src_r + z_dst . a_dst_r)) (the native gatAggregate, bipartite:
// sources and destinations of different types), the relations' results summed, plus x_dst W_root and a
// bias. Heads are concatenated (units x heads wide) or averaged.
import * as tf from '@tensorflow/tfjs-core';

import type {TypedLayer} from '../../graph/typed_sampling';
import {nativeBackend} from '../../backend/backend_wholememory';
import {gatAggregate} from '../gat';
import {firstRows} from '../conv/graph_input';
import {glorot} from '../node_model';
import {foldAttention, rgatPass, sideBySide} from './rgat_pass';
import {checkTypedInputs, LayerRelation, layerRelations, relationsBy} from './typed_inputs';

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
    // The relations with entries (a destination type without rows has none).
    const used = layerRelations('rgatConv', layer, this.index);
    const weights = {w: this.w, attSrc: this.attSrc, attDst: this.attDst, root: this.root, bias: this.biasVar};
    const b = nativeBackend();
    const shape = {inDim, units, heads, concat, negativeSlope, relations: this.config.relations.length};
    // On the native backend: one op each way (rgat_pass.ts); elsewhere the same arithmetic from taped tfjs ops.
    return b ? tf.tidy(() => rgatPass(b, shape, weights, x, layer, used)) : tf.tidy(() => this.taped(x, layer, used));
  }

  private taped(x: Record<string, tf.Tensor2D>, layer: TypedLayer, used: LayerRelation[]): Record<string, tf.Tensor2D> {
    const {inDim, units, heads, concat, negativeSlope} = this.config;
    const wide = heads * units;
    const R = this.config.relations.length;
    const wHeads = tf.reshape(this.w, [R, inDim, heads, units]) as tf.Tensor4D;
    const srcCols = tf.concat([this.w, foldAttention(wHeads, this.attSrc)], 2) as tf.Tensor3D; // [R, inDim, wide + heads]
    const dstCols = foldAttention(wHeads, this.attDst);
    const bySource = relationsBy(used, 's');
    const sourceCols = bySource.size ? sideBySide(srcCols, bySource) : new Map<string, tf.Tensor2D>();
    const fromSource = new Map<string, {z: tf.Tensor3D; logits: tf.Tensor2D}>();
    for (const [s, rels] of bySource) {
      const parts = tf.split(
        tf.matMul(x[s], sourceCols.get(s)!),
        rels.flatMap(() => [wide, heads]),
        1,
      );
      rels.forEach((u, i) =>
        fromSource.set(u.key, {z: tf.reshape(parts[2 * i], [-1, heads, units]) as tf.Tensor3D, logits: parts[2 * i + 1] as tf.Tensor2D}),
      );
    }
    const into = relationsBy(used, 'd');
    const destCols = into.size ? sideBySide(dstCols, into) : new Map<string, tf.Tensor2D>();
    const out: Record<string, tf.Tensor2D> = {};
    for (const [t, rows] of Object.entries(layer.dst)) {
      const n = rows.length;
      if (n === 0) continue;
      const xd = firstRows(x[t], n);
      const rels = into.get(t) ?? [];
      const cols: tf.Tensor2D[] = [...(this.root ? [this.root as tf.Tensor2D] : []), ...(rels.length ? [destCols.get(t)!] : [])];
      const sizes = [...(this.root ? [this.outDim] : []), ...rels.map(() => heads)];
      const product = cols.length ? tf.matMul(xd, cols.length === 1 ? cols[0] : (tf.concat(cols, 1) as tf.Tensor2D)) : undefined;
      // (a split into one part has no gradient in tfjs: the product as it is)
      const parts = !product ? [] : sizes.length === 1 ? [product] : tf.split(product, sizes, 1);
      // The root's part and every relation's attention, summed in one op.
      const terms: tf.Tensor2D[] = this.root ? [parts[0] as tf.Tensor2D] : [];
      rels.forEach((u, i) => {
        const {z, logits} = fromSource.get(u.key)!;
        const agg = gatAggregate(layer.blocks[u.key], z, logits, parts[(this.root ? 1 : 0) + i] as tf.Tensor2D, {negativeSlope});
        terms.push((concat ? tf.reshape(agg, [n, wide]) : tf.mean(agg, 1)) as tf.Tensor2D);
      });
      const h =
        terms.length === 0 ? (tf.zeros([n, this.outDim]) as tf.Tensor2D) : terms.length === 1 ? terms[0] : (tf.addN(terms) as tf.Tensor2D);
      out[t] = (this.biasVar ? tf.add(h, this.biasVar) : h) as tf.Tensor2D;
    }
    return out;
  }

  dispose(): void {
    this.variables.forEach((v) => v.dispose());
  }
}

export function rgatConv(o: RgatConvOptions): RgatConv {
  return new RgatConv(o);
}

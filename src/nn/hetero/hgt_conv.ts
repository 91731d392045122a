// The Heterogeneous Graph Transformer's layer (Hu et al., 2020; PyG's HGTConv) over a typed sampled layer.
// Each vertex type t maps its rows to keys, queries and values (one linear map [in_t, 3 x units], heads of
// units / heads); each relation r from type s to type d turns the source's keys and values by a matrix per
// head (k_rel, v_rel) and weighs its edges by a prior per head (p_rel). A destination row attends over all
// its incoming edges of every relation together: softmax_j(q_i . k'_j p_r / sqrt(units / heads)), and
// sums the weighted values. Then per destination type: gelu, a linear map [units, units], and, where the
// type's input is units wide, a learnt gate between that and the row's input (sigmoid(skip_t)).
import * as tf from '@tensorflow/tfjs-core';

import {parseEdgeTypeKey} from '../../graph/hetero_graph';
import type {TypedLayer} from '../../graph/typed_sampling';
import {firstRows} from '../conv/graph_input';
import {glorot} from '../node_model';

export interface HgtConvOptions {
  /** Each vertex type's input width (one number: every type's). */
  inDim: number | Record<string, number>;
  /** Output width (all heads together; a multiple of heads). */
  units: number;
  heads?: number;
  /** The vertex types and the edge type keys (wm.graph.edgeTypeKey) the layer has weights for. */
  nodeTypes: string[];
  relations: string[];
  seed?: number;
}

interface TypeWeights {
  kqv: tf.Variable; // [in, 3 units]: keys, queries, values
  kqvBias: tf.Variable;
  out: tf.Variable; // [units, units]
  outBias: tf.Variable;
  skip: tf.Variable; // scalar
}

interface RelationWeights {
  k: tf.Variable; // [heads, d, d]
  v: tf.Variable;
  p: tf.Variable; // [heads]
}

// The softmax's shift per destination row: the largest of its logits, read through `padded` [rows, width]
// (edge positions; `edges` pads). The softmax does not depend on it, so no gradient flows through it.
function segmentMax(logits: tf.Tensor2D, padded: tf.Tensor2D): tf.Tensor2D {
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const l = args[0] as tf.Tensor;
    return {
      value: tf.max(tf.gather(tf.concat([l, tf.fill([1, l.shape[1]!], -Infinity)], 0), padded), 1),
      gradFunc: () => tf.zerosLike(l),
    };
  });
  return f(logits) as tf.Tensor2D;
}

export class HgtConv {
  readonly units: number;
  readonly heads: number;
  readonly variables: tf.Variable[] = [];
  private readonly types = new Map<string, TypeWeights>();
  private readonly rels = new Map<string, RelationWeights>();
  private readonly inDims: Record<string, number>;
  private static count = 0;

  constructor(o: HgtConvOptions) {
    const heads = o.heads ?? 1;
    if (!Number.isInteger(heads) || heads < 1) throw new RangeError(`hgtConv: heads must be a positive integer, got ${o.heads}`);
    if (!Number.isInteger(o.units) || o.units < 1 || o.units % heads !== 0)
      throw new RangeError(`hgtConv: units must be a positive multiple of heads (${heads}), got ${o.units}`);
    if (!Array.isArray(o.nodeTypes) || o.nodeTypes.length === 0 || new Set(o.nodeTypes).size !== o.nodeTypes.length)
      throw new RangeError('hgtConv: nodeTypes must be a non-empty list of distinct vertex types');
    if (!Array.isArray(o.relations) || o.relations.length === 0 || new Set(o.relations).size !== o.relations.length)
      throw new RangeError('hgtConv: relations must be a non-empty list of distinct edge type keys');
    this.units = o.units;
    this.heads = heads;
    this.inDims = Object.fromEntries(o.nodeTypes.map((t) => [t, typeof o.inDim === 'number' ? o.inDim : o.inDim?.[t]]));
    for (const [t, w] of Object.entries(this.inDims))
      if (!Number.isInteger(w) || w < 1) throw new RangeError(`hgtConv: inDim of '${t}' must be a positive integer, got ${w}`);
    for (const key of o.relations) {
      const [s, , d] = parseEdgeTypeKey(key, 'hgtConv: relations');
      for (const t of [s, d]) if (!(t in this.inDims)) throw new RangeError(`hgtConv: relation ${key} names '${t}', not one of nodeTypes`);
    }
    const seed = o.seed ?? 0,
      n = HgtConv.count++,
      dh = o.units / heads;
    let k = 0;
    const v = (t: tf.Tensor, name: string) => {
      const x = tf.variable(t, true, `hgt_${name}_${n}_${k++}`);
      this.variables.push(x);
      t.dispose();
      return x;
    };
    for (const t of o.nodeTypes) {
      const w = this.inDims[t];
      this.types.set(t, {
        kqv: v(glorot([w, 3 * o.units], w, o.units, seed + k), `kqv_${t}`),
        kqvBias: v(tf.zeros([3 * o.units]), `kqv_bias_${t}`),
        out: v(glorot([o.units, o.units], o.units, o.units, seed + k), `out_${t}`),
        outBias: v(tf.zeros([o.units]), `out_bias_${t}`),
        skip: v(tf.scalar(1), `skip_${t}`),
      });
    }
    for (const key of o.relations) {
      this.rels.set(key, {
        k: v(glorot([heads, dh, dh], dh, dh, seed + k), `k_rel_${key}`),
        v: v(glorot([heads, dh, dh], dh, dh, seed + k), `v_rel_${key}`),
        p: v(tf.ones([heads]), `p_rel_${key}`),
      });
    }
  }

  apply(x: Record<string, tf.Tensor2D>, layer: TypedLayer): Record<string, tf.Tensor2D> {
    const {units, heads} = this,
      dh = units / heads;
    const incoming = new Map<string, [string, string][]>(); // destination type: [key, source type]
    for (const key of Object.keys(layer.blocks)) {
      const [s, , d] = parseEdgeTypeKey(key, "hgtConv: the layer's blocks");
      if (!this.rels.has(key)) throw new RangeError(`hgtConv: the layer has edge type ${key}, the conv has no weights for it`);
      if ((layer.dst[d]?.length ?? 0) > 0) incoming.set(d, [...(incoming.get(d) ?? []), [key, s]]);
    }
    const used = new Set([...incoming.entries()].flatMap(([d, l]) => [d, ...l.map(([, s]) => s)]));
    for (const t of used) {
      const w = this.types.get(t);
      if (!w) throw new RangeError(`hgtConv: the layer has vertex type '${t}', the conv has no weights for it`);
      const xt = x[t],
        rows = layer.src[t].length;
      if (!xt || xt.rank !== 2 || xt.shape[0] !== rows || xt.shape[1] !== this.inDims[t])
        throw new RangeError(`hgtConv: inputs of '${t}' must be [${rows}, ${this.inDims[t]}], got ${xt ? `[${xt.shape}]` : 'none'}`);
    }
    return tf.tidy(() => {
      // Keys, queries and values of every type the layer reads, [rows, heads, dh] each.
      const kqv = new Map<string, tf.Tensor3D[]>();
      for (const t of used) {
        const w = this.types.get(t)!;
        const all = tf.add(tf.matMul(x[t], w.kqv), w.kqvBias);
        kqv.set(
          t,
          tf.split(all, 3, 1).map((m) => tf.reshape(m, [-1, heads, dh]) as tf.Tensor3D),
        );
      }
      // A relation's turn of a type's rows: [rows, heads, dh] by [heads, dh, dh] per head.
      const turn = (a: tf.Tensor3D, m: tf.Variable) => tf.transpose(tf.matMul(tf.transpose(a, [1, 0, 2]), m), [1, 0, 2]) as tf.Tensor3D;
      const out: Record<string, tf.Tensor2D> = {};
      for (const [d, rels] of incoming) {
        const n = layer.dst[d].length;
        // Every incoming edge of every relation, in relation order: its destination row, its logit per head
        // (q_i . k'_j p_r / sqrt(dh)) and its turned value.
        const q = tf.slice(kqv.get(d)![1], [0, 0, 0], [n, heads, dh]);
        const dstOf: Int32Array[] = [],
          logitsOf: tf.Tensor[] = [],
          values: tf.Tensor[] = [];
        for (const [key, s] of rels) {
          const {rowPtr, colIdx} = layer.blocks[key].arrays;
          if (colIdx.length === 0) continue;
          const r = this.rels.get(key)!;
          const rowOf = new Int32Array(colIdx.length);
          for (let i = 0; i < n; ++i) rowOf.fill(i, rowPtr[i], rowPtr[i + 1]);
          const src = tf.tensor1d(colIdx, 'int32');
          const [ks, , vs] = kqv.get(s)!;
          const dots = tf.sum(tf.mul(tf.gather(q, tf.tensor1d(rowOf, 'int32')), tf.gather(turn(ks, r.k), src)), 2);
          dstOf.push(rowOf);
          logitsOf.push(tf.mul(dots, tf.div(tf.reshape(r.p, [1, heads]), Math.sqrt(dh))));
          values.push(tf.gather(turn(vs, r.v), src));
        }
        let agg: tf.Tensor2D;
        const edges = dstOf.reduce((a, e) => a + e.length, 0);
        if (edges === 0) {
          agg = tf.zeros([n, units]);
        } else {
          const rowOf = new Int32Array(edges);
          let at = 0;
          for (const e of dstOf) rowOf.set(e, (at += e.length) - e.length);
          const dstIndex = tf.tensor1d(rowOf, 'int32');
          const logits = tf.concat(logitsOf, 0) as tf.Tensor2D;
          // Each row's edges padded to the longest (the padding reads a -inf row).
          const degree = new Int32Array(n);
          for (const i of rowOf) ++degree[i];
          const width = Math.max(...degree);
          const pad = new Int32Array(n * width).fill(edges),
            fill = new Int32Array(n);
          rowOf.forEach((i, e) => (pad[i * width + fill[i]++] = e));
          const shift = segmentMax(logits, tf.tensor2d(pad, [n, width], 'int32'));
          // A row without edges has a shift of -inf, read by none of the edges.
          const ex = tf.exp(tf.sub(logits, tf.gather(shift, dstIndex)));
          const alpha = tf.div(ex, tf.gather(tf.unsortedSegmentSum(ex, dstIndex, n), dstIndex));
          const messages = tf.reshape(tf.mul(tf.expandDims(alpha, 2), tf.concat(values, 0)), [edges, units]);
          agg = tf.unsortedSegmentSum(messages, dstIndex, n) as tf.Tensor2D;
        }
        const w = this.types.get(d)!;
        const gelu = tf.mul(tf.mul(agg, 0.5), tf.add(1, tf.erf(tf.div(agg, Math.SQRT2))));
        let h = tf.add(tf.matMul(gelu as tf.Tensor2D, w.out), w.outBias) as tf.Tensor2D;
        if (this.inDims[d] === units) {
          const a = tf.sigmoid(w.skip);
          h = tf.add(tf.mul(a, h), tf.mul(tf.sub(1, a), firstRows(x[d], n))) as tf.Tensor2D;
        }
        out[d] = h;
      }
      return out;
    });
  }

  dispose(): void {
    this.variables.forEach((v) => v.dispose());
  }
}

/** PyG's HGTConv over a typed sampled layer: `hgtConv({inDim, units, heads, nodeTypes, relations}).apply(x, layer)`. */
export function hgtConv(o: HgtConvOptions): HgtConv {
  return new HgtConv(o);
}

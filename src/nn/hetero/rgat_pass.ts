// R-GAT's layer on the native backend as one op each way (rgatConv's pass): the forward pass runs its products
// and attention with nothing taped, and the backward pass is written out. Taped, a layer is some 200 tfjs kernels
// a step and a copy of every tensor each of them saves for its gradient, and a step is bound by the host's
// bookkeeping; here the tape holds one node, and saves each tensor the backward pass reads once.
//
// For relation r from type s to type d (W_r [inDim, heads * units], attention vectors a_src_r, a_dst_r
// [heads, units]): z = x_s W_r, the logits' halves x_s (W_r a_src_r) and x_d (W_r a_dst_r); a source type's rows
// are multiplied once by [W_r | W_r a_src_r] of every relation leaving it side by side, a destination type's once
// by [root | W_r a_dst_r of every relation into it]. The backward pass runs the same products transposed and
// folds the attention columns' gradients back into W and a.
import * as tf from '@tensorflow/tfjs-core';

import type {WholeMemoryBackend} from '../../backend/backend_wholememory';
import type {TypedLayer} from '../../graph/typed_sampling';
import {firstRows} from '../conv/graph_input';
import {gatBackwardPass, gatForwardPass} from '../gat';
import {LayerRelation, relationsBy} from './typed_inputs';

export interface RgatShape {
  inDim: number;
  units: number;
  heads: number;
  concat: boolean;
  negativeSlope: number;
  /** The conv's relations (the first axis of w and the attention vectors). */
  relations: number;
}

export interface RgatWeights {
  w: tf.Tensor; // [R, inDim, heads * units]
  attSrc: tf.Tensor; // [R, heads, units]
  attDst: tf.Tensor;
  root?: tf.Tensor; // [inDim, out]
  bias?: tf.Tensor; // [out]
}

/** Each group's relations' [inDim, cols] matrices (m: [R, inDim, cols]) side by side: [inDim, k * cols] a group. */
export function sideBySide(m: tf.Tensor3D, groups: Map<string, LayerRelation[]>): Map<string, tf.Tensor2D> {
  const [R, inDim] = m.shape;
  const rs = [...groups.values()].flat().map((u) => u.r);
  const picked = rs.length === R && rs.every((r, i) => r === i) ? m : tf.gather(m, rs);
  const [k, , cols] = picked.shape;
  const all = (k === 1 ? tf.reshape(picked, [inDim, cols]) : tf.reshape(tf.transpose(picked, [1, 0, 2]), [inDim, k * cols])) as tf.Tensor2D;
  const parts =
    groups.size === 1
      ? [all]
      : tf.split(
          all,
          [...groups.values()].map((g) => g.length * cols),
          1,
        );
  return new Map([...groups.keys()].map((key, i) => [key, parts[i] as tf.Tensor2D]));
}

/** W folded with attention vectors: sum over units of W [R, inDim, heads, units] times att [R, heads, units]: [R, inDim, heads]. */
export function foldAttention(wHeads: tf.Tensor4D, att: tf.Tensor): tf.Tensor3D {
  return tf.sum(tf.mul(wHeads, tf.expandDims(att, 1)), 3) as tf.Tensor3D;
}

const splitCols = (m: tf.Tensor2D, sizes: number[]): tf.Tensor2D[] => (sizes.length === 1 ? [m] : (tf.split(m, sizes, 1) as tf.Tensor2D[]));

/**
 * The layer's outputs for every destination type with rows, as rgatConv's taped pass computes them; differentiable in
 * the inputs of the types it reads and in every weight. `used`: the layer's relations with entries.
 */
export function rgatPass(
  b: WholeMemoryBackend,
  s: RgatShape,
  weights: RgatWeights,
  x: Record<string, tf.Tensor2D>,
  layer: TypedLayer,
  used: LayerRelation[],
): Record<string, tf.Tensor2D> {
  const {inDim, units, heads, concat, negativeSlope: slope, relations: R} = s;
  const wide = heads * units,
    outDim = concat ? wide : units;
  const bySource = relationsBy(used, 's'),
    into = relationsBy(used, 'd');
  const outTypes = Object.entries(layer.dst)
    .filter(([, rows]) => rows.length > 0)
    .map(([t, rows]) => ({t, n: rows.length}));
  if (outTypes.length === 0) return {};
  const inTypes = Object.keys(x).filter((t) => bySource.has(t) || outTypes.some((o) => o.t === t));
  const {w, attSrc, attDst, root, bias} = weights;
  const weightList = [w, attSrc, attDst, ...(root ? [root] : []), ...(bias ? [bias] : [])];
  const rootCols = root ? [outDim] : [];
  // Saved for the backward pass, in this order: every input type's rows, each source type's and destination type's
  // column matrix, each relation's z, source and destination logits and attention weights.
  const op = tf.customGrad(((...args: unknown[]) => {
    const save = args.pop() as tf.GradSaveFunc;
    const xs = args.slice(0, inTypes.length) as tf.Tensor2D[];
    const xOf = new Map(inTypes.map((t, i) => [t, xs[i]]));
    const wHeads = tf.reshape(w, [R, inDim, heads, units]) as tf.Tensor4D;
    const sourceCols = bySource.size
      ? sideBySide(tf.concat([w, foldAttention(wHeads, attSrc)], 2) as tf.Tensor3D, bySource)
      : new Map<string, tf.Tensor2D>();
    const destCols = into.size ? sideBySide(foldAttention(wHeads, attDst), into) : new Map<string, tf.Tensor2D>();
    const perRelation = new Map<string, {z: tf.Tensor3D; ls: tf.Tensor2D; ld?: tf.Tensor2D; alpha?: tf.Tensor2D}>();
    for (const [t, rels] of bySource) {
      const parts = splitCols(
        tf.matMul(xOf.get(t)!, sourceCols.get(t)!),
        rels.flatMap(() => [wide, heads]),
      );
      rels.forEach((u, i) =>
        perRelation.set(u.key, {z: tf.reshape(parts[2 * i], [-1, heads, units]) as tf.Tensor3D, ls: parts[2 * i + 1]}),
      );
    }
    const destMatrices: tf.Tensor2D[] = [];
    const outs: tf.Tensor2D[] = [];
    for (const {t, n} of outTypes) {
      const rels = into.get(t) ?? [];
      const cols = [...(root ? [root as tf.Tensor2D] : []), ...(rels.length ? [destCols.get(t)!] : [])];
      const m = cols.length === 0 ? undefined : cols.length === 1 ? cols[0] : (tf.concat(cols, 1) as tf.Tensor2D);
      if (m) destMatrices.push(m);
      const parts = m ? splitCols(tf.matMul(firstRows(xOf.get(t)!, n), m), [...rootCols, ...rels.map(() => heads)]) : [];
      const terms: tf.Tensor2D[] = root ? [parts[0]] : [];
      rels.forEach((u, i) => {
        const p = perRelation.get(u.key)!;
        p.ld = parts[rootCols.length + i];
        const [agg, alpha] = gatForwardPass(b, layer.blocks[u.key], p.z, p.ls, p.ld, heads, units, slope);
        p.alpha = alpha as tf.Tensor2D;
        terms.push((concat ? tf.reshape(agg, [n, wide]) : tf.mean(agg, 1)) as tf.Tensor2D);
      });
      const h =
        terms.length === 0 ? (tf.zeros([n, outDim]) as tf.Tensor2D) : terms.length === 1 ? terms[0] : (tf.addN(terms) as tf.Tensor2D);
      outs.push(bias ? (tf.add(h, bias) as tf.Tensor2D) : h);
    }
    save([
      ...xs,
      ...[...bySource.keys()].map((t) => sourceCols.get(t)!),
      ...destMatrices,
      ...used.flatMap((u) => {
        const p = perRelation.get(u.key)!;
        return [p.z, p.ls, p.ld!, p.alpha!];
      }),
    ]);
    return {
      value: outs.length === 1 ? outs[0] : tf.concat(outs, 0),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => backward(dy as tf.Tensor2D, saved),
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);

  const backward = (dy: tf.Tensor2D, saved: tf.Tensor[]): tf.Tensor[] => {
    let at = 0;
    const take = (k: number) => saved.slice(at, (at += k));
    const xs = take(inTypes.length) as tf.Tensor2D[];
    const xOf = new Map(inTypes.map((t, i) => [t, xs[i]]));
    const sourceList = take(bySource.size) as tf.Tensor2D[];
    const sourceCols = new Map([...bySource.keys()].map((t, i) => [t, sourceList[i]]));
    const destMatrices = take(outTypes.filter(({t}) => root || into.has(t)).length) as tf.Tensor2D[];
    const perRelation = new Map(
      used.map((u) => {
        const [z, ls, ld, alpha] = take(4);
        return [u.key, {z, ls, ld, alpha}];
      }),
    );
    const dys =
      outTypes.length === 1
        ? [dy]
        : (tf.split(
            dy,
            outTypes.map(({n}) => n),
            0,
          ) as tf.Tensor2D[]);
    const dx = new Map<string, tf.Tensor2D>();
    const addTo = (t: string, g: tf.Tensor2D) => {
      const had = dx.get(t);
      dx.set(t, had ? (tf.add(had, g) as tf.Tensor2D) : g);
    };
    const dRelation = new Map<string, {dz: tf.Tensor; dls: tf.Tensor; dCols?: tf.Tensor2D}>();
    const dRoots: tf.Tensor2D[] = [];
    const dFoldDst = new Map<string, tf.Tensor2D>();
    let m = 0;
    outTypes.forEach(({t, n}, i) => {
      const rels = into.get(t) ?? [];
      if (!root && rels.length === 0) return;
      const dyt = dys[i];
      const dAgg = concat ? tf.reshape(dyt, [n, heads, units]) : tf.tile(tf.expandDims(tf.div(dyt, heads), 1), [1, heads, 1]);
      const dParts: tf.Tensor2D[] = root ? [dyt] : [];
      for (const u of rels) {
        const p = perRelation.get(u.key)!;
        const [dz, dls, dld] = gatBackwardPass(b, layer.blocks[u.key], [p.z, p.ls, p.ld, p.alpha], dAgg, heads, units, slope);
        dRelation.set(u.key, {dz, dls});
        dParts.push(dld as tf.Tensor2D);
      }
      const dQ = dParts.length === 1 ? dParts[0] : (tf.concat(dParts, 1) as tf.Tensor2D);
      const xd = firstRows(xOf.get(t)!, n);
      const dCols = splitCols(tf.matMul(xd, dQ, true, false), [...rootCols, ...rels.map(() => heads)]);
      if (root) dRoots.push(dCols[0]);
      rels.forEach((u, k) => dFoldDst.set(u.key, dCols[rootCols.length + k]));
      const dxd = tf.matMul(dQ, destMatrices[m++], false, true) as tf.Tensor2D;
      const rows = xOf.get(t)!.shape[0];
      addTo(
        t,
        n === rows
          ? dxd
          : (tf.pad(dxd, [
              [0, rows - n],
              [0, 0],
            ]) as tf.Tensor2D),
      );
    });
    for (const [t, rels] of bySource) {
      const xt = xOf.get(t)!;
      const dP = tf.concat(
        rels.flatMap((u) => {
          const d = dRelation.get(u.key)!;
          return [tf.reshape(d.dz, [xt.shape[0], wide]), d.dls];
        }),
        1,
      ) as tf.Tensor2D;
      const dCols = splitCols(
        tf.matMul(xt, dP, true, false),
        rels.map(() => wide + heads),
      );
      rels.forEach((u, k) => (dRelation.get(u.key)!.dCols = dCols[k]));
      addTo(t, tf.matMul(dP, sourceCols.get(t)!, false, true) as tf.Tensor2D);
    }
    // Every relation's gradients in the conv's order (zeros for those without entries): [W_r | W_r a_src_r] columns
    // and W_r a_dst_r columns, folded back into W and the attention vectors.
    const byIndex = new Map(used.map((u) => [u.r, u.key]));
    const relGrads = (f: (key: string) => tf.Tensor2D, cols: number) =>
      tf.stack(Array.from({length: R}, (_, r) => (byIndex.has(r) ? f(byIndex.get(r)!) : tf.zeros([inDim, cols])))) as tf.Tensor3D;
    const dSrcCols = relGrads((k) => dRelation.get(k)!.dCols!, wide + heads);
    const [dWDirect, dFoldSrc] = tf.split(dSrcCols, [wide, heads], 2) as tf.Tensor3D[];
    const dFoldDstAll = relGrads((k) => dFoldDst.get(k)!, heads);
    const wHeads = tf.reshape(w, [R, inDim, heads, units]);
    const spread = (dFold: tf.Tensor3D, att: tf.Tensor) => tf.mul(tf.expandDims(dFold, 3), tf.expandDims(att, 1)); // [R, inDim, heads, units]
    const dW = tf.add(dWDirect, tf.reshape(tf.add(spread(dFoldSrc, attSrc), spread(dFoldDstAll, attDst)), [R, inDim, wide]));
    const dAtt = (dFold: tf.Tensor3D) => tf.sum(tf.mul(wHeads, tf.expandDims(dFold, 3)), 1);
    const grads: tf.Tensor[] = inTypes.map((t) => dx.get(t) ?? tf.zerosLike(xOf.get(t)!));
    grads.push(dW, dAtt(dFoldSrc), dAtt(dFoldDstAll));
    if (root) grads.push(dRoots.length === 1 ? dRoots[0] : tf.addN(dRoots));
    if (bias) grads.push(tf.sum(dy, 0));
    return grads;
  };

  const value = op(...inTypes.map((t) => x[t]), ...weightList) as tf.Tensor2D;
  if (outTypes.length === 1) return {[outTypes[0].t]: value};
  const parts = tf.split(
    value,
    outTypes.map(({n}) => n),
    0,
  );
  return Object.fromEntries(outTypes.map(({t}, i) => [t, parts[i] as tf.Tensor2D]));
}

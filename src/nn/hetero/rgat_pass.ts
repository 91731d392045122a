// R-GAT's layer on the native backend as one op each way (rgatConv's pass): the forward pass runs its products
// and attention with nothing taped, and the backward pass is written out. Taped, a layer is some 200 tfjs kernels
// a step and a copy of every tensor each of them saves for its gradient, and a step is bound by the host's
// bookkeeping; here the tape holds one node, and saves each tensor the backward pass reads once.
//
// For relation r from type s to type d (W_r [inDim, heads * units], attention vectors a_src_r, a_dst_r
// [heads, units]): z = x_s W_r, the logits' halves x_s (W_r a_src_r) and x_d (W_r a_dst_r); a source type's rows
// are multiplied once by [W_r | W_r a_src_r] of every relation leaving it side by side, a destination type's once
// by [root | W_r a_dst_r of every relation into it]. The attention passes read each relation's columns of the two
// products in place and write their gradients into the products' gradients likewise (gat_passes.ts); the backward
// pass runs the same products transposed and folds the attention columns' gradients back into W and a.
//
// A one-head relation whose sources outnumber its rows and whose inputs are no wider than its outputs (a last layer:
// many neighbours, a few seeds, many classes) aggregates first and projects after: attention weighs the source rows
// themselves, and the weighted sums alone are multiplied by W_r (the same function: sum_e alpha_e x_s W_r =
// (sum_e alpha_e x_s) W_r); its source type's product then holds only its logit column.
import * as tf from '@tensorflow/tfjs-core';

import type {WholeMemoryBackend} from '../../backend/backend_wholememory';
import type {TypedLayer} from '../../graph/typed_sampling';
import {writtenOp} from '../../gradients/written_op';
import {firstRows} from '../conv/graph_input';
import {layerNative} from '../../native/domains';
import {freeScratch, gatColsPass, gatForwardPass, gatRowsPass, scratch, zeroedOutputs} from '../gat_passes';
import type {Buf} from '../../native/ops';
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

/** Relation r's W_r [inDim, heads * units] of w [R, inDim, heads * units]. */
const relationMatrix = (w: tf.Tensor, r: number): tf.Tensor2D => tf.squeeze(tf.slice(w, [r, 0, 0], [1, -1, -1]), [0]) as tf.Tensor2D;

/** W folded with attention vectors: sum over units of W [R, inDim, heads, units] times att [R, heads, units]: [R, inDim, heads]. */
function foldAttention(wHeads: tf.Tensor4D, att: tf.Tensor): tf.Tensor3D {
  return tf.sum(tf.mul(wHeads, tf.expandDims(att, 1)), 3) as tf.Tensor3D;
}

/** Runs of consecutive column indices, [first, count] each (first -1: `zero`, count times), as one index array. */
type Runs = [number, number][];
function columnIndex(runs: Runs, zero = -1): Int32Array {
  const idx = new Int32Array(runs.reduce((a, [, n]) => a + n, 0));
  let at = 0;
  for (const [first, n] of runs) for (let i = 0; i < n; ++i) idx[at++] = first < 0 ? zero : first + i;
  return idx;
}

/**
 * Each group's relations' columns of m ([R, inDim, cols]) side by side, relation u's columns [from, to) of its cols
 * (pick(u)): [inDim, Σ picked] a group, one gather each.
 */
function sideBySide(
  m: tf.Tensor3D,
  groups: Map<string, LayerRelation[]>,
  pick: (u: LayerRelation) => [number, number],
): Map<string, tf.Tensor2D> {
  const [R, inDim, cols] = m.shape;
  const flat = (R === 1 ? tf.reshape(m, [inDim, cols]) : tf.reshape(tf.transpose(m, [1, 0, 2]), [inDim, R * cols])) as tf.Tensor2D;
  return new Map(
    [...groups].map(([t, rels]) => {
      const idx = columnIndex(
        rels.map((u) => {
          const [from, to] = pick(u);
          return [u.r * cols + from, to - from];
        }),
      );
      const every = idx.length === R * cols && idx.every((v, i) => v === i);
      return [t, every ? flat : (tf.gather(flat, tf.tensor1d(idx, 'int32'), 1) as tf.Tensor2D)];
    }),
  );
}

/** Which products a layer makes: by source type and by destination type, the destination types with rows. */
export interface RgatPlan {
  bySource: Map<string, LayerRelation[]>;
  into: Map<string, LayerRelation[]>;
  /** Every destination type with rows, with the relations into it, in the layer's order: the outputs. */
  outTypes: {t: string; n: number; rels: LayerRelation[]}[];
  /** The destination types with a product: a root part (with a root matrix) and a logit column a relation. */
  products: {t: string; n: number; rels: LayerRelation[]}[];
  /** The root part's width, when there is one, before the logit columns of a destination product. */
  rootCols: number[];
  /** The relations that aggregate their source rows first and project the sums after (one head, inputs no wider than outputs, fewer rows than sources). */
  aggregateFirst: Set<string>;
}

export function planOf(s: RgatShape, root: boolean, layer: TypedLayer, used: LayerRelation[]): RgatPlan {
  const into = relationsBy(used, 'd');
  const outTypes = Object.entries(layer.dst)
    .filter(([, rows]) => rows.length > 0)
    .map(([t, rows]) => ({t, n: rows.length, rels: into.get(t) ?? []}));
  // Aggregating first projects the rows' sums (rows x inDim x units multiply-adds, not sources x inDim x units) and
  // weighs inDim values an entry, not units: fewer of both where the inputs are no wider than the outputs and the rows
  // fewer than the sources.
  const aggregateFirst = new Set(
    used.filter((u) => s.heads === 1 && s.inDim <= s.units && layer.blocks[u.key].numRows < layer.blocks[u.key].numCols).map((u) => u.key),
  );
  return {
    bySource: relationsBy(used, 's'),
    into,
    outTypes,
    products: outTypes.filter((o) => root || o.rels.length > 0),
    rootCols: root ? [s.concat ? s.heads * s.units : s.units] : [],
    aggregateFirst,
  };
}

/** A matrix's columns from `offset`, `width` of them a row (the matrix's rows read in place: a gat_passes Columns). */
export interface MatrixColumns {
  t: tf.Tensor2D;
  offset: number;
  width: number;
}

/**
 * What a relation's attention reads: the features it weighs, [sources, heads, dim] (z's columns of its source type's
 * product P; or, aggregated first, the source rows themselves: one head of inDim), its source logits [sources, heads]
 * (columns of P) and destination logits [rows, heads] (columns of its destination type's product Q).
 */
export interface RelationColumns {
  feat: MatrixColumns;
  src: MatrixColumns;
  dst: MatrixColumns;
}

/** A relation's features [sources, heads, dim] and logit halves, copied out of their matrices (the taped path's view). */
export function relationTensors(c: RelationColumns, heads: number): [tf.Tensor3D, tf.Tensor2D, tf.Tensor2D] {
  const cols = ({t, offset, width}: MatrixColumns) =>
    offset === 0 && width === t.shape[1] ? t : (tf.slice(t, [0, offset], [-1, width]) as tf.Tensor2D);
  return [tf.reshape(cols(c.feat), [-1, heads, c.feat.width / heads]) as tf.Tensor3D, cols(c.src), cols(c.dst)];
}

/**
 * Each relation's columns: in its source type's P = x_s [W_r | W_r a_src_r ...] relation i of the type has z (unless
 * it aggregates first) and then its source logits; in its destination type's Q = x_d [root | W_r a_dst_r ...]
 * relation i into the type has its logits after the root's part, at rootCols + i heads.
 */
function relationLayout(
  s: RgatShape,
  plan: RgatPlan,
  x: Record<string, tf.Tensor2D>,
  sourceProducts: tf.Tensor2D[],
  destProducts: tf.Tensor2D[],
): Map<string, RelationColumns> {
  const wide = s.heads * s.units,
    rootWidth = plan.rootCols[0] ?? 0;
  const dst = new Map<string, MatrixColumns>();
  plan.products.forEach(({rels}, k) =>
    rels.forEach((u, i) => dst.set(u.key, {t: destProducts[k], offset: rootWidth + i * s.heads, width: s.heads})),
  );
  const columns = new Map<string, RelationColumns>();
  [...plan.bySource].forEach(([t, rels], k) => {
    const p = sourceProducts[k];
    let at = 0;
    for (const u of rels) {
      const first = plan.aggregateFirst.has(u.key);
      const feat = first ? {t: x[t], offset: 0, width: s.inDim} : {t: p, offset: at, width: wide};
      if (!first) at += wide;
      columns.set(u.key, {feat, src: {t: p, offset: at, width: s.heads}, dst: dst.get(u.key)!});
      at += s.heads;
    }
  });
  return columns;
}

/** One relation's attention over its block from what it reads: [rows, heads, dim]. */
export type Attend = (u: LayerRelation, at: RelationColumns) => tf.Tensor3D;

/**
 * The layer's forward arithmetic, taped or not (`attend` runs each relation's attention): each destination type's
 * output in the order of the layer's destination types with rows, and what the written-out backward pass reads (each
 * source type's and destination product's column matrix and product, the weighted sums of the relations that
 * aggregate first).
 */
export function rgatForward(
  s: RgatShape,
  weights: RgatWeights,
  x: Record<string, tf.Tensor2D>,
  layer: TypedLayer,
  used: LayerRelation[],
  attend: Attend,
  plan = planOf(s, weights.root !== undefined, layer, used),
): {
  outs: tf.Tensor2D[];
  sourceCols: tf.Tensor2D[];
  destMatrices: tf.Tensor2D[];
  sourceProducts: tf.Tensor2D[];
  destProducts: tf.Tensor2D[];
  sums: Map<string, tf.Tensor2D>;
} {
  const {inDim, units, heads, concat, relations: R} = s;
  const wide = heads * units;
  const {w, attSrc, attDst, root, bias} = weights;
  const {bySource, into, products, aggregateFirst} = plan;
  const wHeads = tf.reshape(w, [R, inDim, heads, units]) as tf.Tensor4D;
  // A relation's source columns: [W_r | W_r a_src_r], or W_r a_src_r alone where it aggregates first.
  const sourceCols = bySource.size
    ? sideBySide(tf.concat([w, foldAttention(wHeads, attSrc)], 2) as tf.Tensor3D, bySource, (u) => [
        aggregateFirst.has(u.key) ? wide : 0,
        wide + heads,
      ])
    : new Map<string, tf.Tensor2D>();
  const destCols = into.size ? sideBySide(foldAttention(wHeads, attDst), into, () => [0, heads]) : new Map<string, tf.Tensor2D>();
  const sourceProducts = [...bySource].map(([t]) => tf.matMul(x[t], sourceCols.get(t)!) as tf.Tensor2D);
  const destMatrices = products.map(({t, rels}) => {
    const cols = [...(root ? [root as tf.Tensor2D] : []), ...(rels.length ? [destCols.get(t)!] : [])];
    return cols.length === 1 ? cols[0] : (tf.concat(cols, 1) as tf.Tensor2D);
  });
  const destProducts = products.map(({t, n}, k) => tf.matMul(firstRows(x[t], n), destMatrices[k]) as tf.Tensor2D);
  const columns = relationLayout(s, plan, x, sourceProducts, destProducts);
  const sums = new Map<string, tf.Tensor2D>();
  const outs = plan.outTypes.map(({t, n, rels}) => {
    const k = products.findIndex((o) => o.t === t);
    const q = destProducts[k];
    // The root's part and every relation's attention, summed in one op.
    const terms: tf.Tensor2D[] = root ? [rels.length ? (tf.slice(q, [0, 0], [-1, plan.rootCols[0]]) as tf.Tensor2D) : q] : [];
    rels.forEach((u) => {
      const agg = attend(u, columns.get(u.key)!);
      if (aggregateFirst.has(u.key)) {
        const sum = tf.reshape(agg, [n, inDim]) as tf.Tensor2D;
        sums.set(u.key, sum);
        terms.push(tf.matMul(sum, relationMatrix(w, u.r)) as tf.Tensor2D); // one head: concatenated or averaged alike
      } else terms.push((concat ? tf.reshape(agg, [n, wide]) : tf.mean(agg, 1)) as tf.Tensor2D);
    });
    const h = terms.length === 0 ? tf.zeros([n, concat ? wide : units]) : terms.length === 1 ? terms[0] : tf.addN(terms);
    return (bias ? tf.add(h, bias) : h) as tf.Tensor2D;
  });
  return {
    outs,
    sourceCols: [...bySource.keys()].map((t) => sourceCols.get(t)!),
    destMatrices,
    sourceProducts,
    destProducts,
    sums,
  };
}

/** Where each of several matrices' columns start once they stand side by side. */
function starts(parts: tf.Tensor2D[]): number[] {
  let at = 0;
  return parts.map((m) => ((at += m.shape[1]), at - m.shape[1]));
}

/** The columns `runs` picks of the matrices side by side (first -1: zeros): [rows, Σ counts], one gather. */
function gatherColumns(parts: tf.Tensor2D[], runs: Runs, rows: number): tf.Tensor2D {
  const width = parts.reduce((a, m) => a + m.shape[1], 0);
  const all = tf.concat([...parts, ...(runs.some(([first]) => first < 0) ? [tf.zeros([rows, 1])] : [])], 1) as tf.Tensor2D;
  return tf.gather(all, tf.tensor1d(columnIndex(runs, width), 'int32'), 1) as tf.Tensor2D;
}

/**
 * The layer's outputs for every destination type with rows, as rgatConv's taped pass computes them; differentiable in
 * the inputs and every weight (an input's gradient computed only where a gradient reaches it). `used`: the layer's
 * relations with entries.
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
  const wide = heads * units;
  const {w, attSrc, attDst, root, bias} = weights;
  const plan = planOf(s, root !== undefined, layer, used);
  const {bySource, outTypes, products, rootCols, aggregateFirst} = plan;
  if (outTypes.length === 0) return {};
  const inTypes = Object.keys(x).filter((t) => bySource.has(t) || outTypes.some((o) => o.t === t));
  const weightList = [w, attSrc, attDst, ...(root ? [root] : []), ...(bias ? [bias] : [])];
  const firsts = used.filter((u) => aggregateFirst.has(u.key));

  const forward = (save: tf.GradSaveFunc): tf.Tensor[] => {
    const alphas = new Map<string, tf.Tensor>();
    const attend: Attend = (u, c) => {
      const [agg, alpha] = gatForwardPass(b, layer.blocks[u.key], c.feat, c.src, c.dst, heads, c.feat.width / heads, slope);
      alphas.set(u.key, alpha);
      return agg as tf.Tensor3D;
    };
    const f = rgatForward(s, weights, x, layer, used, attend, plan);
    // Saved, in this order: every input type's rows, each source type's and each destination product's column matrix,
    // each source type's and destination type's product, each relation's attention weights, the weighted sums of the
    // relations that aggregate first.
    save([
      ...inTypes.map((t) => x[t]),
      ...f.sourceCols,
      ...f.destMatrices,
      ...f.sourceProducts,
      ...f.destProducts,
      ...used.map((u) => alphas.get(u.key)!),
      ...firsts.map((u) => f.sums.get(u.key)!),
    ]);
    return f.outs;
  };

  const backward = (dys: tf.Tensor[], saved: tf.Tensor[]): (() => tf.Tensor)[] => {
    let at = 0;
    const take = (k: number) => saved.slice(at, (at += k)) as tf.Tensor2D[];
    const xOf = new Map(inTypes.map((t) => [t, take(1)[0]]));
    const sourceList = take(bySource.size);
    const sourceCols = new Map([...bySource.keys()].map((t, i) => [t, sourceList[i]]));
    const destMatrices = take(products.length);
    const sourceProducts = take(bySource.size);
    const destProducts = take(products.length);
    const alphas = new Map(used.map((u) => [u.key, take(1)[0] as tf.Tensor]));
    const sums = new Map(firsts.map((u) => [u.key, take(1)[0]]));
    const columns = relationLayout(s, plan, Object.fromEntries(xOf), sourceProducts, destProducts);
    // The attention's row passes write each relation's dz (scratch) and its destination logits' gradients into dQ,
    // beside the root's (the output's gradient); the column passes write the features' and the source logits'
    // gradients into dP (a relation that aggregates first: its source rows' into a matrix of its own).
    const dz = new Map<string, Buf>();
    const dAggOf = new Map<string, tf.Tensor>();
    const dWFirst = new Map<string, tf.Tensor2D>();
    // What a relation's two gradient passes read: its block, attention weights, output gradient and feature width.
    const passOf = (u: LayerRelation) => ({
      block: layer.blocks[u.key],
      alpha: alphas.get(u.key)!,
      dOut: dAggOf.get(u.key)!,
      dim: columns.get(u.key)!.feat.width / heads,
    });
    try {
      // x^T dQ for each destination product and x^T dP for each source type: the columns' gradients, in their layouts.
      const destGrads: tf.Tensor2D[] = [],
        sourceGrads: tf.Tensor2D[] = [];
      const dQs = products.map(({t, n, rels}, k) => {
        const dyt = dys[outTypes.findIndex((o) => o.t === t)] as tf.Tensor2D;
        const dAgg = concat ? tf.reshape(dyt, [n, heads, units]) : tf.tile(tf.expandDims(tf.div(dyt, heads), 1), [1, heads, 1]);
        for (const u of rels) {
          if (!aggregateFirst.has(u.key)) dAggOf.set(u.key, dAgg);
          else {
            // out_r = sum_r W_r: the sum's gradient dy W_r^T, W_r's sum_r^T dy.
            dAggOf.set(u.key, tf.reshape(tf.matMul(dyt, relationMatrix(w, u.r), false, true), [n, 1, inDim]));
            dWFirst.set(u.key, tf.matMul(sums.get(u.key)!, dyt, true, false) as tf.Tensor2D);
          }
        }
        const qCols = destMatrices[k].shape[1];
        const dQ =
          rels.length === 0
            ? dyt
            : (b.nativeOutputs([dyt], [[n, qCols]], ([dy], [dq]) => {
                if (root) layerNative().stridedCopy(4, dy, 0, [rootCols[0], 1], [n, rootCols[0]], dq, 0, [qCols, 1], [n, rootCols[0]]);
                rels.forEach((u, i) => {
                  const g = scratch(b, alphas.get(u.key)!.size);
                  dz.set(u.key, g);
                  const c = columns.get(u.key)!;
                  const place = {buf: dq, offset: c.dst.offset, stride: qCols};
                  const a = passOf(u);
                  gatRowsPass(b, a.block, [c.feat, c.src, c.dst], a.alpha, a.dOut, heads, a.dim, slope, g, place);
                });
              })[0] as tf.Tensor2D);
        destGrads.push(tf.matMul(firstRows(xOf.get(t)!, n), dQ, true, false) as tf.Tensor2D);
        return dQ;
      });
      const dXFirst = new Map<string, tf.Tensor2D[]>();
      const dPs = new Map(
        [...bySource].map(([t, rels]) => {
          const xt = xOf.get(t)!;
          const pCols = sourceCols.get(t)!.shape[1];
          const own = rels.filter((u) => aggregateFirst.has(u.key));
          const [dP, ...dXs] = zeroedOutputs(b, [[xt.shape[0], pCols], ...own.map(() => [xt.shape[0], inDim])], ([dp, ...dx]) =>
            rels.forEach((u) => {
              const c = columns.get(u.key)!;
              const k = own.indexOf(u);
              const dFeat = k < 0 ? {buf: dp, offset: c.feat.offset, stride: pCols} : {buf: dx[k], offset: 0, stride: inDim};
              const dSrc = {buf: dp, offset: c.src.offset, stride: pCols};
              const a = passOf(u);
              gatColsPass(b, a.block, a.alpha, dz.get(u.key)!, a.dOut, heads, a.dim, dFeat, dSrc);
            }),
          ) as tf.Tensor2D[];
          if (dXs.length) dXFirst.set(t, dXs);
          sourceGrads.push(tf.matMul(xt, dP, true, false) as tf.Tensor2D);
          return [t, dP];
        }),
      );
      // Every relation's gradients in the conv's order (zeros for those without entries), each gathered from the
      // columns that hold it: W_r's own (P's z columns, or the projected sums'), W_r a_src_r's (P's) and W_r a_dst_r's
      // (Q's); then folded back into W and the attention vectors.
      const byIndex = new Map(used.map((u) => [u.r, u]));
      const sourceParts = [...sourceGrads, ...firsts.map((u) => dWFirst.get(u.key)!)];
      const sourceAt = starts(sourceParts);
      const typeOf = new Map([...bySource.keys()].map((t, k) => [t, k]));
      const sourceRuns = Array.from({length: R}, (_, r): Runs => {
        const u = byIndex.get(r);
        if (!u) return [[-1, wide + heads]];
        const c = columns.get(u.key)!,
          p = sourceAt[typeOf.get(u.s)!];
        const own = aggregateFirst.has(u.key) ? sourceAt[bySource.size + firsts.indexOf(u)] : p + c.feat.offset;
        return [
          [own, wide],
          [p + c.src.offset, heads],
        ];
      }).flat();
      const destAt = starts(destGrads);
      const productOf = new Map(products.map(({t}, k) => [t, k]));
      const destRuns = Array.from({length: R}, (_, r): [number, number] => {
        const u = byIndex.get(r);
        return [u ? destAt[productOf.get(u.d)!] + columns.get(u.key)!.dst.offset : -1, heads];
      });
      const perRelation = (parts: tf.Tensor2D[], runs: Runs, cols: number) =>
        tf.transpose(tf.reshape(gatherColumns(parts, runs, inDim), [inDim, R, cols]), [1, 0, 2]) as tf.Tensor3D;
      const [dWDirect, dFoldSrc] = tf.split(perRelation(sourceParts, sourceRuns, wide + heads), [wide, heads], 2) as tf.Tensor3D[];
      const dFoldDstAll = perRelation(destGrads, destRuns, heads);
      const dRoots = root
        ? destGrads.map((g) => (g.shape[1] === rootCols[0] ? g : (tf.slice(g, [0, 0], [-1, rootCols[0]]) as tf.Tensor2D)))
        : [];
      const wHeads = tf.reshape(w, [R, inDim, heads, units]);
      const spread = (dFold: tf.Tensor3D, att: tf.Tensor) => tf.mul(tf.expandDims(dFold, 3), tf.expandDims(att, 1)); // [R, inDim, heads, units]
      const dW = tf.add(dWDirect, tf.reshape(tf.add(spread(dFoldSrc, attSrc), spread(dFoldDstAll, attDst)), [R, inDim, wide]));
      const dAtt = (dFold: tf.Tensor3D) => tf.sum(tf.mul(wHeads, tf.expandDims(dFold, 3)), 1);
      const weightGrads: tf.Tensor[] = [dW, dAtt(dFoldSrc), dAtt(dFoldDstAll)];
      if (root) weightGrads.push(dRoots.length === 1 ? dRoots[0] : tf.addN(dRoots));
      if (bias) weightGrads.push(tf.sum(dys.length === 1 ? dys[0] : tf.concat(dys, 0), 0));
      // An input type's rows: through its sources' products and the sums that read them, and, on its first rows, its
      // destination product.
      const dx = (t: string) => () => {
        const xt = xOf.get(t)!;
        const terms: tf.Tensor[] = [...(dXFirst.get(t) ?? [])];
        if (dPs.has(t)) terms.push(tf.matMul(dPs.get(t)!, sourceCols.get(t)!, false, true));
        const k = products.findIndex((o) => o.t === t);
        if (k >= 0) {
          const dxd = tf.matMul(dQs[k], destMatrices[k], false, true);
          const pad = xt.shape[0] - products[k].n;
          terms.push(
            pad === 0
              ? dxd
              : tf.pad(dxd, [
                  [0, pad],
                  [0, 0],
                ]),
          );
        }
        return terms.length === 0 ? tf.zerosLike(xt) : terms.length === 1 ? terms[0] : tf.addN(terms);
      };
      return [...inTypes.map(dx), ...weightGrads.map((g) => () => g)];
    } finally {
      dz.forEach((g) => freeScratch(b, g));
    }
  };

  const outs = writtenOp([...inTypes.map((t) => x[t]), ...weightList], forward, backward);
  return Object.fromEntries(outTypes.map(({t}, i) => [t, outs[i] as tf.Tensor2D]));
}

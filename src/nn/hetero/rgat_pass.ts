// R-GAT's layer on the native backend as one op each way (rgatConv's pass): the forward pass runs its products
// and attention with nothing taped, and the backward pass is written out. Taped, a layer is some 200 tfjs kernels
// a step and a copy of every tensor each of them saves for its gradient, and a step is bound by the host's
// bookkeeping; here the tape holds one node, and saves each tensor the backward pass reads once.
//
// For relation r from type s to type d (W_r [inDim, heads * units], attention vectors a_src_r, a_dst_r
// [heads, units]): z = x_s W_r, the logits' halves x_s (W_r a_src_r) and x_d (W_r a_dst_r); a source type's rows
// are multiplied once by [W_r | W_r a_src_r] of every relation leaving it side by side, a destination type's once
// by [root | W_r a_dst_r of every relation into it]. One native op (relationColumns) writes every one of these column
// matrices, transposed, as row blocks of one matrix T, and the products read their blocks in place. The attention
// passes read each relation's columns of the two products in place and write their gradients into the products'
// gradients likewise (gat_passes.ts); the backward pass writes T's gradient a block at a time (each product's
// gradient times its rows) and one more op (relationColumnsGrad) folds it back into W, a and root.
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
import {floatsAt, freeScratch, gatColsPass, gatForwardPass, gatRowsPass, scratch, zeroedOutputs} from '../gat_passes';
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

/** W folded with attention vectors: sum over units of W [R, inDim, heads, units] times att [R, heads, units]: [R, inDim, heads]. */
function foldAttention(wHeads: tf.Tensor4D, att: tf.Tensor): tf.Tensor3D {
  return tf.sum(tf.mul(wHeads, tf.expandDims(att, 1)), 3) as tf.Tensor3D;
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
  /** Where every column of the products lies among the weight columns (columnRows). */
  layout: ColumnRows;
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
  const plan = {
    bySource: relationsBy(used, 's'),
    into,
    outTypes,
    products: outTypes.filter((o) => root || o.rels.length > 0),
    rootCols: root ? [s.concat ? s.heads * s.units : s.units] : [],
    aggregateFirst,
  };
  return {...plan, layout: columnRows(s, plan)};
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
 * Each relation's columns of its source type's product P and its destination type's Q: the product's columns are the
 * weight columns' rows in its block (plan.layout), so a relation's offset in P or Q is its block's row within the
 * product's. A relation that aggregates first weighs its source rows themselves.
 */
function relationLayout(
  s: RgatShape,
  plan: RgatPlan,
  x: Record<string, tf.Tensor2D>,
  sourceProducts: tf.Tensor2D[],
  destProducts: tf.Tensor2D[],
): Map<string, RelationColumns> {
  const {blocks, source, dest} = plan.layout;
  const sourceTypes = [...plan.bySource.keys()];
  const columns = new Map<string, RelationColumns>();
  plan.products.forEach(({rels}, k) =>
    rels.forEach((u) => {
      const g = sourceTypes.indexOf(u.s),
        p = sourceProducts[g];
      const inP = (j: number, width: number) => ({t: p, offset: blocks[3 * u.r + j] - source[g].start, width});
      const feat = plan.aggregateFirst.has(u.key) ? {t: x[u.s], offset: 0, width: s.inDim} : inP(0, s.heads * s.units);
      columns.set(u.key, {
        feat,
        src: inP(1, s.heads),
        dst: {t: destProducts[k], offset: blocks[3 * u.r + 2] - dest[k].start, width: s.heads},
      });
    }),
  );
  return columns;
}

/** One relation's attention over its block from what it reads: [rows, heads, dim]. */
export type Attend = (u: LayerRelation, at: RelationColumns) => tf.Tensor3D;

/**
 * The products a layer's attention reads: each source type's P (in plan.bySource's order), each destination product's
 * Q (plan.products'), and a relation that aggregates first: its weighted sums [rows, inDim] times W_r.
 */
export interface LayerProducts {
  sourceProducts: tf.Tensor2D[];
  destProducts: tf.Tensor2D[];
  project(u: LayerRelation, sum: tf.Tensor2D): tf.Tensor2D;
}

/**
 * The weight columns made with tfjs ops (the taped path's; relationColumns natively): every relation's W_r^T and folded
 * rows and root^T stacked, then gathered into plan.layout's rows.
 */
function tapedColumns(s: RgatShape, {w, attSrc, attDst, root}: RgatWeights, layout: ColumnRows): tf.Tensor2D {
  const {inDim, units, heads, relations: R} = s;
  const wide = heads * units,
    per = wide + 2 * heads;
  const wHeads = tf.reshape(w, [R, inDim, heads, units]) as tf.Tensor4D;
  const stacked = tf.reshape(tf.transpose(tf.concat([w, foldAttention(wHeads, attSrc), foldAttention(wHeads, attDst)], 2), [0, 2, 1]), [
    R * per,
    inDim,
  ]);
  const all = root ? tf.concat([stacked, tf.transpose(root)], 0) : stacked;
  // Row i of T is row from[i] of `all`: relation r's rows from r * per (W_r^T, then its two folded blocks), root's after.
  const from = new Int32Array(layout.total);
  const place = (start: number, first: number, n: number) => {
    for (let j = 0; j < n; ++j) from[start + j] = first + j;
  };
  for (let r = 0; r < R; ++r)
    [wide, heads, heads].forEach((n, k) => {
      const start = layout.blocks[3 * r + k];
      if (start >= 0) place(start, r * per + (k === 0 ? 0 : wide + (k - 1) * heads), n);
    });
  for (const start of layout.rootStarts) place(start, R * per, all.shape[0] - R * per);
  return tf.gather(all, tf.tensor1d(from, 'int32')) as tf.Tensor2D;
}

/** A block of the weight columns' rows (a view where aligned). */
const rowsOf = (t: tf.Tensor2D, start: number, n: number) => tf.slice(t, [start, 0], [n, -1]) as tf.Tensor2D;

/** The products made with tfjs ops (the taped path's), from tapedColumns' matrix. */
export function tapedProducts(s: RgatShape, weights: RgatWeights, x: Record<string, tf.Tensor2D>, plan: RgatPlan): LayerProducts {
  const {source, dest, first} = plan.layout;
  const t = tapedColumns(s, weights, plan.layout);
  return {
    sourceProducts: [...plan.bySource.keys()].map((st, g) => tf.matMul(x[st], rowsOf(t, source[g].start, source[g].rows), false, true)),
    destProducts: plan.products.map(({t: dt, n}, k) => tf.matMul(firstRows(x[dt], n), rowsOf(t, dest[k].start, dest[k].rows), false, true)),
    project: (u, sum) => tf.matMul(sum, rowsOf(t, first.get(u.key)!, s.heads * s.units), false, true),
  };
}

/**
 * The layer's outputs from its products, taped or not (`attend` runs each relation's attention): each destination
 * type's output in the order of the layer's destination types with rows, and the weighted sums of the relations that
 * aggregate first (the backward pass reads them).
 */
export function rgatForward(
  s: RgatShape,
  weights: RgatWeights,
  x: Record<string, tf.Tensor2D>,
  plan: RgatPlan,
  made: LayerProducts,
  attend: Attend,
): {outs: tf.Tensor2D[]; sums: Map<string, tf.Tensor2D>} {
  const {inDim, units, heads, concat} = s;
  const wide = heads * units;
  const {root, bias} = weights;
  const columns = relationLayout(s, plan, x, made.sourceProducts, made.destProducts);
  const sums = new Map<string, tf.Tensor2D>();
  const outs = plan.outTypes.map(({t, n, rels}) => {
    const q = made.destProducts[plan.products.findIndex((o) => o.t === t)];
    // The root's part and every relation's attention, summed in one op.
    const terms: tf.Tensor2D[] = root ? [rels.length ? (tf.slice(q, [0, 0], [-1, plan.rootCols[0]]) as tf.Tensor2D) : q] : [];
    rels.forEach((u) => {
      const agg = attend(u, columns.get(u.key)!);
      if (plan.aggregateFirst.has(u.key)) {
        const sum = tf.reshape(agg, [n, inDim]) as tf.Tensor2D;
        sums.set(u.key, sum);
        terms.push(made.project(u, sum)); // one head: concatenated or averaged alike
      } else terms.push((concat ? tf.reshape(agg, [n, wide]) : tf.mean(agg, 1)) as tf.Tensor2D);
    });
    const h = terms.length === 0 ? tf.zeros([n, concat ? wide : units]) : terms.length === 1 ? terms[0] : tf.addN(terms);
    return (bias ? tf.add(h, bias) : h) as tf.Tensor2D;
  });
  return {outs, sums};
}

/**
 * Where the native pass's weight columns lie: one matrix T [total, inDim] holding, as row blocks, each source type's
 * columns transposed (its P's columns in order: a relation's W_r^T, unless it aggregates first, then (W_r a_src_r)^T),
 * each destination product's (root^T, then each relation's (W_r a_dst_r)^T) and each aggregate-first relation's W_r^T;
 * blocks and rootStarts as relationColumns takes them.
 */
interface ColumnRows {
  blocks: number[];
  rootStarts: number[];
  source: {start: number; rows: number}[];
  dest: {start: number; rows: number}[];
  first: Map<string, number>;
  total: number;
}

function columnRows(s: RgatShape, plan: Omit<RgatPlan, 'layout'>): ColumnRows {
  const wide = s.heads * s.units;
  const blocks = new Array<number>(3 * s.relations).fill(-1);
  const rootStarts: number[] = [];
  let at = 0;
  const block = (rows: number) => ((at += rows), at - rows); // the next `rows` rows' first
  const source = [...plan.bySource.values()].map((rels) => {
    const start = at;
    for (const u of rels) {
      if (!plan.aggregateFirst.has(u.key)) blocks[3 * u.r] = block(wide);
      blocks[3 * u.r + 1] = block(s.heads);
    }
    return {start, rows: at - start};
  });
  const dest = plan.products.map(({rels}) => {
    const start = at;
    if (plan.rootCols.length) rootStarts.push(block(plan.rootCols[0]));
    for (const u of rels) blocks[3 * u.r + 2] = block(s.heads);
    return {start, rows: at - start};
  });
  const first = new Map<string, number>();
  for (const rels of plan.bySource.values())
    for (const u of rels) if (plan.aggregateFirst.has(u.key)) first.set(u.key, (blocks[3 * u.r] = block(wide)));
  return {blocks, rootStarts, source, dest, first, total: at};
}

/** c = op(a) op(b) (+ c with beta 1), packed row-major matrices: c [m, n], op(a) [m, k], op(b) [k, n]. */
function gemm(a: Buf, b: Buf, c: Buf, m: number, n: number, k: number, transA: boolean, transB: boolean, beta = 0): void {
  if (m * n === 0) return;
  if (k === 0) {
    if (beta === 0 && typeof c === 'number') layerNative().fill(0 /* float32 */, c, m * n, 0);
    else if (beta === 0) (c as Float32Array).fill(0, 0, m * n);
    return;
  }
  layerNative().batchMatMul(a, b, c, 1, m, n, k, transA, transB, 0, 0, beta);
}

/**
 * The layer's outputs for every destination type with rows, as rgatConv's taped pass computes them; differentiable in
 * the inputs and every weight (an input's gradient computed only where a gradient reaches it). `used`: the layer's
 * relations with entries. The weight columns are made in one native op and every product and its gradients read
 * them in place; the weights' gradients come back through one more.
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
  const rows = plan.layout;
  const sourceTypes = [...bySource.keys()];
  const rootOut = rootCols[0] ?? 0;
  const srcAt = (t: string) => sourceTypes.indexOf(t);
  const productAt = (t: string) => products.findIndex((o) => o.t === t);
  // W_r^T of a relation that aggregates first: rows of T, a view.
  const firstMatrix = (t: tf.Tensor2D, u: LayerRelation) => rowsOf(t, rows.first.get(u.key)!, wide);

  const forward = (save: tf.GradSaveFunc): tf.Tensor[] => {
    // The weight columns and every product in one call: T, then x_s T_s^T for each source type and x_d[:n] T_d^T for
    // each destination product (its rows `m`, its block of T `at`), read from T in place.
    const xs = [...sourceTypes.map((st) => x[st]), ...products.map((p) => x[p.t])];
    const m = [...sourceTypes.map((st) => x[st].shape[0]), ...products.map((p) => p.n)];
    const at = [...rows.source, ...rows.dest];
    const [t, ...made] = b.nativeOutputs(
      [...xs, w, attSrc, attDst, ...(root ? [root] : [])],
      [[rows.total, inDim], ...m.map((n, o) => [n, at[o].rows])],
      (ins, [tp, ...outs]) => {
        const [wp, ap, dp, rp] = ins.slice(xs.length);
        const blocks = [rows.blocks, rows.rootStarts] as const;
        layerNative().relationColumns(wp, ap, dp, rp ?? null, R, inDim, heads, units, rootOut, ...blocks, tp, rows.total);
        outs.forEach((out, o) => gemm(ins[o], floatsAt(tp, at[o].start * inDim), out, m[o], at[o].rows, inDim, false, true));
      },
    ) as tf.Tensor2D[];
    const sourceProducts = made.slice(0, sourceTypes.length),
      destProducts = made.slice(sourceTypes.length);
    const alphas = new Map<string, tf.Tensor>();
    const attend: Attend = (u, c) => {
      const [agg, alpha] = gatForwardPass(b, layer.blocks[u.key], c.feat, c.src, c.dst, heads, c.feat.width / heads, slope);
      alphas.set(u.key, alpha);
      return agg as tf.Tensor3D;
    };
    const project = (u: LayerRelation, sum: tf.Tensor2D) => tf.matMul(sum, firstMatrix(t, u), false, true) as tf.Tensor2D;
    const f = rgatForward(s, weights, x, plan, {sourceProducts, destProducts, project}, attend);
    // Saved, in this order: every input type's rows, the weight columns, each source type's and destination type's
    // product, each relation's attention weights, the weighted sums of the relations that aggregate first.
    save([
      ...inTypes.map((t) => x[t]),
      t,
      ...sourceProducts,
      ...destProducts,
      ...used.map((u) => alphas.get(u.key)!),
      ...firsts.map((u) => f.sums.get(u.key)!),
    ]);
    return f.outs;
  };

  const backward = (dys: tf.Tensor[], saved: tf.Tensor[]): (() => tf.Tensor)[] => {
    let at = 0;
    const take = (k: number) => saved.slice(at, (at += k)) as tf.Tensor2D[];
    const xOf = new Map(inTypes.map((t) => [t, take(1)[0]]));
    const cols = take(1)[0];
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
    const dyOf = products.map(({t}) => dys[outTypes.findIndex((o) => o.t === t)] as tf.Tensor2D);
    // What a relation's two gradient passes read: its block, attention weights, output gradient and feature width.
    const passOf = (u: LayerRelation) => ({
      block: layer.blocks[u.key],
      alpha: alphas.get(u.key)!,
      dOut: dAggOf.get(u.key)!,
      dim: columns.get(u.key)!.feat.width / heads,
    });
    try {
      const dQs = products.map(({n, rels}, k) => {
        const dyt = dyOf[k];
        const dAgg = concat ? tf.reshape(dyt, [n, heads, units]) : tf.tile(tf.expandDims(tf.div(dyt, heads), 1), [1, heads, 1]);
        // out_r = sum_r W_r: the sum's gradient dy W_r^T.
        for (const u of rels)
          dAggOf.set(u.key, aggregateFirst.has(u.key) ? tf.reshape(tf.matMul(dyt, firstMatrix(cols, u)), [n, 1, inDim]) : dAgg);
        const qCols = rows.dest[k].rows;
        return rels.length === 0
          ? dyt
          : (b.nativeOutputs([dyt], [[n, qCols]], ([dy], [dq]) => {
              if (root) layerNative().stridedCopy(4, dy, 0, [rootOut, 1], [n, rootOut], dq, 0, [qCols, 1], [n, rootOut]);
              rels.forEach((u) => {
                const g = scratch(b, alphas.get(u.key)!.size);
                dz.set(u.key, g);
                const c = columns.get(u.key)!;
                const place = {buf: dq, offset: c.dst.offset, stride: qCols};
                const a = passOf(u);
                gatRowsPass(b, a.block, [c.feat, c.src, c.dst], a.alpha, a.dOut, heads, a.dim, slope, g, place);
              });
            })[0] as tf.Tensor2D);
      });
      const dXFirst = new Map<string, tf.Tensor2D[]>();
      const dPs = sourceTypes.map((t, g) => {
        const rels = bySource.get(t)!;
        const xt = xOf.get(t)!;
        const pCols = rows.source[g].rows;
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
        return dP;
      });
      // The weight columns' gradient dT, a block of rows each (dP_s^T x_s, dQ_d^T x_d[:n], dy^T sums for a relation that
      // aggregates first), folded back into W, the attention vectors and root in one op.
      const firstDy = firsts.map((u) => dyOf[productAt(u.d)]);
      const weightGrads = b.nativeOutputs(
        [
          w,
          attSrc,
          attDst,
          ...dPs,
          ...sourceTypes.map((t) => xOf.get(t)!),
          ...dQs,
          ...products.map((p) => xOf.get(p.t)!),
          ...firstDy,
          ...firsts.map((u) => sums.get(u.key)!),
        ],
        [[R, inDim, wide], [R, heads, units], [R, heads, units], ...(root ? [[inDim, rootOut]] : [])],
        ([wp, ap, dp, ...rest], [dW, dAs, dAd, dRoot]) => {
          const G = sourceTypes.length,
            K = products.length,
            F = firsts.length;
          const dT = scratch(b, rows.total * inDim);
          try {
            sourceTypes.forEach((t, g) => {
              const {start, rows: pCols} = rows.source[g];
              gemm(rest[g], rest[G + g], floatsAt(dT, start * inDim), pCols, inDim, xOf.get(t)!.shape[0], true, false);
            });
            products.forEach((p, k) => {
              const {start, rows: qCols} = rows.dest[k];
              gemm(rest[2 * G + k], rest[2 * G + K + k], floatsAt(dT, start * inDim), qCols, inDim, p.n, true, false);
            });
            firsts.forEach((u, i) => {
              const n = products[productAt(u.d)].n;
              gemm(
                rest[2 * G + 2 * K + i],
                rest[2 * G + 2 * K + F + i],
                floatsAt(dT, rows.first.get(u.key)! * inDim),
                wide,
                inDim,
                n,
                true,
                false,
              );
            });
            layerNative().relationColumnsGrad(
              dT,
              wp,
              ap,
              dp,
              R,
              inDim,
              heads,
              units,
              rootOut,
              rows.blocks,
              rows.rootStarts,
              rows.total,
              dW,
              dAs,
              dAd,
              dRoot ?? null,
            );
          } finally {
            freeScratch(b, dT);
          }
        },
      );
      if (bias) weightGrads.push(tf.sum(dys.length === 1 ? dys[0] : tf.concat(dys, 0), 0));
      // An input type's rows: dP_s T_s through its sources' products, on its first rows dQ_d T_d through its destination
      // product, and the sums that read them.
      const dx = (t: string) => () => {
        const xt = xOf.get(t)!;
        const g = srcAt(t),
          k = productAt(t);
        const [n, width] = xt.shape;
        const [d] = b.nativeOutputs([cols, ...(g >= 0 ? [dPs[g]] : []), ...(k >= 0 ? [dQs[k]] : [])], [[n, width]], ([tp, ...ds], [o]) => {
          if (g >= 0) gemm(ds[0], floatsAt(tp, rows.source[g].start * inDim), o, n, inDim, rows.source[g].rows, false, false);
          if (k >= 0) {
            const m = products[k].n;
            gemm(
              ds[g >= 0 ? 1 : 0],
              floatsAt(tp, rows.dest[k].start * inDim),
              o,
              m,
              inDim,
              rows.dest[k].rows,
              false,
              false,
              g >= 0 ? 1 : 0,
            );
            if (g < 0 && m < n && b.gpu) layerNative().fill(0 /* float32 */, floatsAt(o, m * inDim), (n - m) * inDim, 0);
          }
          if (g < 0 && k < 0 && b.gpu) layerNative().fill(0 /* float32 */, o, n * width, 0); // an output type no relation reaches
        });
        const firstTerms = dXFirst.get(t) ?? [];
        return firstTerms.length ? tf.addN([d, ...firstTerms]) : d;
      };
      return [...inTypes.map(dx), ...weightGrads.map((g) => () => g)];
    } finally {
      dz.forEach((g) => freeScratch(b, g));
    }
  };

  const outs = writtenOp([...inTypes.map((t) => x[t]), ...weightList], forward, backward);
  return Object.fromEntries(outTypes.map(({t}, i) => [t, outs[i] as tf.Tensor2D]));
}

// Knowledge-graph embeddings: each model's scores (both sides, one candidate and groups of candidates) and
// gradients against a float64 reference on random data; the losses against float64; the negatives'
// distributions; the filtered ranking against a brute-force one; the text format and its errors; the
// name maps' round trip; the planted patterns each model can and cannot express; training leaves nothing behind.
import {spawnSync} from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {NegativeSampler} from '../src/graph/kge_negatives';
import {freebaseShapedKg, patternedKg, triplesOf} from '../src/graph/kg_patterns';
import {NameTable} from '../src/graph/name_table';
import {dataNative} from '../src/native/domains';
import {checkTriples, KnowledgeGraph, readKnowledgeGraph, readNameMaps, Triples, tripleFields, writeNameMaps} from '../src/graph/triples';
import {kgeModel, KgeModel, KgeModelName, KGE_MODELS, kgeLoss} from '../src/nn/kge/index';
import {chunkLoss, composite, stepRowsGradients} from '../src/nn/kge/chunk_loss';
import {groupScores} from '../src/nn/kge/group_scores';
import {complexProduct, complexRotation, complexRotationGradients} from '../src/nn/kge/complex_rows';
import type {KgeLossOptions} from '../src/nn/kge/kge_loss';
import {DEFAULT_KGE, stepGradients, stepLoss, trainKge} from '../src/train/kge';
import {trainRgcnLinkPrediction} from '../src/train/rgcn_link_prediction';
import {evaluateKge, RankingOptions, rankTriples} from '../src/train/kge_ranking';
import {loadKgeModel, saveKgeModel, topCandidates} from '../src/train/kge_saved';
import {seededRng, shuffle} from '../src/util/random';
import {seededPermutation} from '../src/graph/permutation';
import {expectReject} from './helpers';
import {tempDir} from './temp_dirs';

type Side = 'head' | 'tail';

/** The float64 score of one triple from rows h, r, t (the stored layouts). */
function referenceScore(m: KgeModel, h: Float64Array, r: Float64Array, t: Float64Array): number {
  const {dim: d, margin, pNorm, initScale} = m.config;
  let s = 0;
  switch (m.name) {
    case 'transE':
      for (let i = 0; i < d; ++i) s += pNorm === 1 ? Math.abs(h[i] + r[i] - t[i]) : (h[i] + r[i] - t[i]) ** 2;
      return margin - (pNorm === 1 ? s : Math.sqrt(s));
    case 'distMult':
      for (let i = 0; i < d; ++i) s += h[i] * r[i] * t[i];
      return s;
    case 'complEx':
      for (let i = 0; i < d; ++i) {
        const [hr, hi, rr, ri, tr, ti] = [h[i], h[d + i], r[i], r[d + i], t[i], t[d + i]];
        s += hr * rr * tr + hi * rr * ti + hr * ri * ti - hi * ri * tr;
      }
      return s;
    case 'rotatE':
      for (let i = 0; i < d; ++i) {
        const p = (r[i] * Math.PI) / initScale;
        const re = h[i] * Math.cos(p) - h[d + i] * Math.sin(p) - t[i],
          im = h[i] * Math.sin(p) + h[d + i] * Math.cos(p) - t[d + i];
        s += Math.sqrt(re * re + im * im);
      }
      return margin - s;
  }
}

function randomRows(rng: () => number, n: number, w: number): Float32Array {
  return Float32Array.from({length: n * w}, () => rng() * 2 - 1);
}

const row = (a: Float32Array | Float64Array, i: number, w: number) => Float64Array.from(a.subarray(i * w, (i + 1) * w));

function expectNear(got: number, want: number, what: string, tol = 2e-4): void {
  expect(Math.abs(got - want), `${what}: ${got} vs ${want}`).to.be.at.most(tol * (1 + Math.abs(want)));
}

// Every model once, transE with each distance.
const SCORERS = [
  ['transE', {pNorm: 1}],
  ['transE', {pNorm: 2}],
  ['distMult', {}],
  ['complEx', {}],
  ['rotatE', {}],
] as const;

// Gradients against a reference, elementwise within 2e-3 of the reference's largest magnitude.
function expectGradientNear(got: Float64Array, want: Float64Array, what: string): void {
  expect(got.length, `${what} length`).to.equal(want.length);
  const scale = Math.max(1e-3, ...Array.from(want, Math.abs));
  const bad = want.findIndex((x, i) => !(Math.abs(got[i] - x) <= 2e-3 * scale));
  if (bad >= 0) expect.fail(`${what}[${bad}] ${got[bad]} vs ${want[bad]}`);
}

/**
 * A chunk loss f of rows q, own [b, w] and neg [n, w] (b and n from the arrays' lengths) on the current backend: its
 * value and its gradients with respect to q, own and neg.
 */
function lossAndGradients(
  f: typeof chunkLoss,
  m: KgeModel,
  rows: {q: Float32Array; own: Float32Array; neg: Float32Array},
  w: number,
  chunk: number,
  o: KgeLossOptions,
): [number, Float64Array, Float64Array, Float64Array] {
  const inputs = [rows.q, rows.own, rows.neg].map((r) => tf.tensor2d(r, [r.length / w, w]));
  const {value, grads} = tf.valueAndGrads((x: tf.Tensor, y: tf.Tensor, z: tf.Tensor) =>
    f(m, x as tf.Tensor2D, y as tf.Tensor2D, z as tf.Tensor2D, chunk, o),
  )(inputs);
  const out: [number, Float64Array, Float64Array, Float64Array] = [
    value.dataSync()[0],
    ...(grads.map((g) => Float64Array.from(g.dataSync())) as [Float64Array, Float64Array, Float64Array]),
  ];
  tf.dispose([...inputs, value, ...grads]);
  return out;
}

const options = (name: KgeModelName, dim: number, extra = {}) => ({
  numEntities: 10,
  numRelations: 3,
  dim,
  ...(name === 'transE' ? extra : {}),
  seed: 3,
});

/** Rows and complex coordinates of the complex-row ops' cases: odd sizes, one, wide, none. */
const COMPLEX_SIZES = [
  [7, 5],
  [1, 1],
  [33, 64],
  [0, 3],
];

describe('knowledge-graph embeddings (wm.nn.kge)', function () {
  this.timeout(300000);
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  for (const name of KGE_MODELS) {
    for (const extra of name === 'transE' ? [{pNorm: 1}, {pNorm: 2}] : [{}]) {
      it(`${name} ${JSON.stringify(extra)}: scores of both sides, alone and in groups, against float64`, () => {
        const rng = seededRng(name.length * 13 + 1);
        const before = tf.memory().numTensors;
        for (const dim of [1, 5, 16]) {
          const m = kgeModel(name, options(name, dim, extra));
          const [ew, rw] = [m.entity.dim, m.relation.dim];
          const n = 7,
            k = 5;
          const f = randomRows(rng, n, ew),
            r = randomRows(rng, n, rw),
            c = randomRows(rng, n * k, ew);
          for (const side of ['tail', 'head'] as Side[]) {
            const ref = (i: number, j: number) =>
              side === 'tail'
                ? referenceScore(m, row(f, i, ew), row(r, i, rw), row(c, j, ew))
                : referenceScore(m, row(c, j, ew), row(r, i, rw), row(f, i, ew));
            tf.tidy(() => {
              const q = m.query(tf.tensor2d(f, [n, ew]), tf.tensor2d(r, [n, rw]), side);
              const own = m.pairScore(q, tf.tensor2d(c.subarray(0, n * ew), [n, ew])).dataSync();
              for (let i = 0; i < n; ++i) expectNear(own[i], ref(i, i), `${side} pair ${i} (dim ${dim})`);
              // One group of all queries against k candidates, and n groups of one query against k candidates each.
              const all = m
                .groupScores(tf.reshape(q, [1, n, ew]) as tf.Tensor3D, tf.tensor3d(c.subarray(0, k * ew), [1, k, ew]))
                .dataSync();
              for (let i = 0; i < n; ++i) for (let j = 0; j < k; ++j) expectNear(all[i * k + j], ref(i, j), `${side} group (${i}, ${j})`);
              const each = m.groupScores(tf.reshape(q, [n, 1, ew]) as tf.Tensor3D, tf.tensor3d(c, [n, k, ew])).dataSync();
              for (let i = 0; i < n; ++i)
                for (let j = 0; j < k; ++j) expectNear(each[i * k + j], ref(i, i * k + j), `${side} groups (${i}, ${j})`);
            });
          }
          m.dispose();
        }
        expect(tf.memory().numTensors).to.equal(before);
      });

      it(`${name} ${JSON.stringify(extra)}: gradients of group scores against float64 central differences`, () => {
        const rng = seededRng(name.length * 17 + 5);
        const dim = 4;
        const m = kgeModel(name, options(name, dim, extra));
        const [ew, rw] = [m.entity.dim, m.relation.dim];
        const n = 3,
          k = 4;
        const f = randomRows(rng, n, ew),
          r = randomRows(rng, n, rw),
          c = randomRows(rng, k, ew),
          w = Float64Array.from({length: n * k}, () => rng() * 2 - 1);
        for (const side of ['tail', 'head'] as Side[]) {
          const total = (F: Float64Array, R: Float64Array, C: Float64Array) => {
            let s = 0;
            for (let i = 0; i < n; ++i)
              for (let j = 0; j < k; ++j) {
                const [fi, ri, cj] = [F.subarray(i * ew, (i + 1) * ew), R.subarray(i * rw, (i + 1) * rw), C.subarray(j * ew, (j + 1) * ew)];
                s += w[i * k + j] * (side === 'tail' ? referenceScore(m, fi, ri, cj) : referenceScore(m, cj, ri, fi));
              }
            return s;
          };
          const grads = tf.grads((F: tf.Tensor, R: tf.Tensor, C: tf.Tensor) =>
            tf.sum(
              tf.mul(
                m.groupScores(
                  tf.reshape(m.query(F as tf.Tensor2D, R as tf.Tensor2D, side), [1, n, ew]) as tf.Tensor3D,
                  tf.reshape(C, [1, k, ew]) as tf.Tensor3D,
                ),
                tf.tensor3d(Float32Array.from(w), [1, n, k]),
              ),
            ),
          )([tf.tensor2d(f, [n, ew]), tf.tensor2d(r, [n, rw]), tf.tensor2d(c, [k, ew])]);
          const inputs = [Float64Array.from(f), Float64Array.from(r), Float64Array.from(c)];
          grads.forEach((g, which) => {
            const got = g.dataSync();
            const x = inputs[which];
            for (let e = 0; e < x.length; ++e) {
              const keep = x[e],
                h = 1e-6;
              x[e] = keep + h;
              const up = total(inputs[0], inputs[1], inputs[2]);
              x[e] = keep - h;
              const down = total(inputs[0], inputs[1], inputs[2]);
              x[e] = keep;
              expectNear(got[e], (up - down) / (2 * h), `${side} d/d${['fixed', 'relation', 'candidates'][which]}[${e}]`, 2e-3);
            }
          });
          tf.dispose(grads);
        }
        m.dispose();
      });
    }
  }

  it('an epoch order: the native seeded permutation is the JavaScript shuffle of 0 .. n-1 with seededRng, for any size and seed', () => {
    for (const n of [0, 1, 2, 17, 1000, 100003])
      for (const seed of [0, 7, 2 ** 32 + 5, 123456789012]) {
        const want = shuffle(
          Int32Array.from({length: n}, (_, i) => i),
          seededRng(seed),
        );
        expect(Array.from(seededPermutation(n, seed)), `n ${n} seed ${seed}`).to.deep.equal(Array.from(want));
      }
    expect(() => seededPermutation(-1, 0)).to.throw(/seededPermutation: n must be an integer in \[0, 2\^31\), got -1/);
  });

  it('complexProduct: values and both gradients against float64, every conjugation, odd sizes, no rows; bad shapes named', () => {
    const rng = seededRng(29);
    const before = tf.memory().numTensors;
    for (const [n, k] of COMPLEX_SIZES) {
      const w = 2 * k;
      const a = randomRows(rng, n, w),
        b = randomRows(rng, n, w),
        g = randomRows(rng, n, w);
      for (const conjA of [false, true])
        for (const conjB of [false, true]) {
          // Reference: out = a' b' per coordinate; the loss sum(out . g) has d a_re = g_re b'_re + g_im b'_im, d a'_im = g_im b'_re - g_re b'_im
          // (negated for a_im when a is conjugated), and the same for b with a'.
          const out = new Float64Array(n * w),
            da = new Float64Array(n * w),
            db = new Float64Array(n * w);
          for (let i = 0; i < n; ++i)
            for (let c = 0; c < k; ++c) {
              const re = i * w + c,
                im = re + k;
              const ar = a[re],
                ai = conjA ? -a[im] : a[im],
                br = b[re],
                bi = conjB ? -b[im] : b[im];
              out[re] = ar * br - ai * bi;
              out[im] = ar * bi + ai * br;
              da[re] = g[re] * br + g[im] * bi;
              da[im] = (g[im] * br - g[re] * bi) * (conjA ? -1 : 1);
              db[re] = g[re] * ar + g[im] * ai;
              db[im] = (g[im] * ar - g[re] * ai) * (conjB ? -1 : 1);
            }
          tf.tidy(() => {
            const [ta, tb, tg] = [a, b, g].map((x) => tf.tensor2d(x, [n, w]));
            const f = (x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.mul(complexProduct(x as tf.Tensor2D, y as tf.Tensor2D, conjA, conjB), tg));
            const got = complexProduct(ta as tf.Tensor2D, tb as tf.Tensor2D, conjA, conjB).dataSync();
            const [ga, gb] = tf
              .grads(f)([ta, tb])
              .map((t) => t.dataSync());
            for (const [what, have, want] of [
              ['out', got, out],
              ['d a', ga, da],
              ['d b', gb, db],
            ] as const)
              for (let i = 0; i < n * w; ++i) expectNear(have[i], want[i], `${what} [${n}, ${w}] conj ${conjA}/${conjB} at ${i}`, 1e-5);
          });
        }
    }
    tf.tidy(() => {
      expect(() => complexProduct(tf.zeros([2, 3]) as tf.Tensor2D, tf.zeros([2, 3]) as tf.Tensor2D)).to.throw(
        /complexProduct: a must be a float32 \[rows, 2k\] tensor of complex rows, got float32 \[2,3\]/,
      );
      expect(() => complexProduct(tf.zeros([2, 4]) as tf.Tensor2D, tf.zeros([3, 4]) as tf.Tensor2D)).to.throw(
        /complexProduct: b must be \[2,4\] like a, got \[3,4\]/,
      );
    });
    expect(tf.memory().numTensors).to.equal(before);
  });

  it('complexRotation: values and the gradients of x and the phases against float64, both directions, odd sizes, no rows; bad shapes named', () => {
    const rng = seededRng(37);
    const before = tf.memory().numTensors;
    const scale = Math.PI / 1.7;
    for (const [n, k] of COMPLEX_SIZES) {
      const w = 2 * k;
      const x = randomRows(rng, n, w),
        p = randomRows(rng, n, k),
        g = randomRows(rng, n, w);
      for (const conj of [false, true]) {
        // Reference: u = (cos a, s sin a), a = scale p, s = -1 when conj; out = x u; for the loss sum(out . g):
        // d x = g conj(u), d p = scale (g_re d out_re / d a + g_im d out_im / d a).
        const out = new Float64Array(n * w),
          dx = new Float64Array(n * w),
          dp = new Float64Array(n * k);
        for (let i = 0; i < n; ++i)
          for (let c = 0; c < k; ++c) {
            const re = i * w + c,
              im = re + k,
              a = scale * p[i * k + c],
              sg = conj ? -1 : 1;
            const cos = Math.cos(a),
              sin = sg * Math.sin(a);
            out[re] = x[re] * cos - x[im] * sin;
            out[im] = x[re] * sin + x[im] * cos;
            dx[re] = g[re] * cos + g[im] * sin;
            dx[im] = g[im] * cos - g[re] * sin;
            const dCos = -Math.sin(a),
              dSin = sg * Math.cos(a);
            dp[i * k + c] = scale * (g[re] * (x[re] * dCos - x[im] * dSin) + g[im] * (x[re] * dSin + x[im] * dCos));
          }
        tf.tidy(() => {
          const tx = tf.tensor2d(x, [n, w]),
            tp = tf.tensor2d(p, [n, k]),
            tg = tf.tensor2d(g, [n, w]);
          const got = complexRotation(tx, tp, scale, conj).dataSync();
          const taped = tf
            .grads((a: tf.Tensor, b: tf.Tensor) => tf.sum(tf.mul(complexRotation(a as tf.Tensor2D, b as tf.Tensor2D, scale, conj), tg)))([
              tx,
              tp,
            ])
            .map((t) => t.dataSync());
          const direct = complexRotationGradients(tx, tp, scale, conj, tg).map((t) => t.dataSync());
          for (const [what, have, want] of [
            ['out', got, out],
            ['d x (tape)', taped[0], dx],
            ['d phase (tape)', taped[1], dp],
            ['d x', direct[0], dx],
            ['d phase', direct[1], dp],
          ] as const) {
            expect(have.length, `${what} length`).to.equal(want.length);
            for (let i = 0; i < want.length; ++i) expectNear(have[i], want[i], `${what} [${n}, ${w}] conj ${conj} at ${i}`, 1e-4);
          }
        });
      }
    }
    tf.tidy(() => {
      expect(() => complexRotation(tf.zeros([2, 3]) as tf.Tensor2D, tf.zeros([2, 1]) as tf.Tensor2D, 1)).to.throw(
        /complexRotation: x must be a float32 \[rows, 2k\] tensor of complex rows, got float32 \[2,3\]/,
      );
      expect(() => complexRotation(tf.zeros([2, 4]) as tf.Tensor2D, tf.zeros([2, 4]) as tf.Tensor2D, 1)).to.throw(
        /complexRotation: phase must be float32 \[2, 2\] \(a phase per complex coordinate of x\), got float32 \[2,4\]/,
      );
    });
    expect(tf.memory().numTensors).to.equal(before);
  });

  it("a step with its backward pass written out (stepGradients) is the tape's step: the same loss and the same rows after it, for every model, both sides, one negative or chunks of them, both losses, a weight", () => {
    const entities = 50,
      relations = 4,
      b = 8;
    const rng = seededRng(17);
    const ids = (n: number, below: number) =>
      tf.tensor1d(
        Int32Array.from({length: n}, () => Math.floor(rng() * below)),
        'int32',
      );
    const rowsOf = (m: KgeModel) =>
      [m.entity, m.relation].map((t) =>
        tf.tidy(() => Float32Array.from(t.read(Int32Array.from({length: t.rows}, (_, i) => i)).dataSync())),
      );
    let cases = 0;
    for (const name of KGE_MODELS)
      for (const pNorm of name === 'transE' ? ([1, 2] as const) : ([1] as const))
        for (const [chunk, negatives, adversarialTemperature, loss] of [
          [1, 1, 0, 'logistic'],
          [4, 5, 1, 'logistic'],
          [8, 3, 0, 'margin'],
        ] as const)
          for (const side of ['tail', 'head'] as const) {
            const make = () =>
              kgeModel(name, {
                numEntities: entities,
                numRelations: relations,
                dim: 6,
                ...(name === 'transE' ? {pNorm} : {}),
                optimizer: wm.nn.sgd({lr: 0.5}),
                seed: 5,
              });
            const [tape, written] = [make(), make()];
            const o = {...DEFAULT_KGE, loss, adversarialTemperature, negatives};
            const [ends, neg] = [ids(2 * b, entities), ids((b / chunk) * negatives, entities)];
            const rel = ids(b, relations);
            const weight = 0.5;
            const want = tf.tidy(
              () =>
                tf.variableGrads(
                  () => tf.mul(stepLoss(tape, o, {ends, relation: rel, negatives: neg, side, chunk}), weight),
                  [tape.entity.anchor, tape.relation.anchor],
                ).value,
            );
            const got = tf.tidy(() => stepGradients(written, o, {ends, relation: rel, negatives: neg, side, chunk}, weight)!);
            for (const m of [tape, written]) (m.entity.step(), m.relation.step());
            const what = `${name}${name === 'transE' ? ` L${pNorm}` : ''}, chunk ${chunk} x ${negatives}, ${loss}, ${side}`;
            expect(got.dataSync()[0], `${what}: loss`).to.be.closeTo(want.dataSync()[0], 1e-5 * (1 + Math.abs(want.dataSync()[0])));
            const [a, c] = [rowsOf(tape), rowsOf(written)];
            ['entity', 'relation'].forEach((table, i) => {
              for (let j = 0; j < a[i].length; ++j)
                if (!(Math.abs(a[i][j] - c[i][j]) <= 1e-5 * (1 + Math.abs(a[i][j]))))
                  expect.fail(`${what}: ${table} value ${j} is ${c[i][j]} written out, ${a[i][j]} through the tape`);
            });
            tf.dispose([want, got, ends, neg, rel]);
            tape.dispose();
            written.dispose();
            ++cases;
          }
    expect(cases).to.equal(30);
    // With a regularizer (not written out) the tape's path is taken.
    const m = kgeModel('distMult', {numEntities: entities, numRelations: relations, dim: 4, seed: 1});
    const [e, r, n] = [ids(4, entities), ids(2, relations), ids(2, entities)];
    expect(
      stepGradients(
        m,
        {...DEFAULT_KGE, regularization: 'n3', regularizationWeight: 0.1, negatives: 1},
        {ends: e, relation: r, negatives: n, side: 'tail', chunk: 1},
        1,
      ),
    ).to.equal(undefined);
    tf.dispose([e, r, n]);
    m.dispose();
  });

  it('the native chunk loss (value and the gradients of queries, own candidates and negatives) against the tfjs ops on tfjs-backend-cpu: every scorer and loss, odd sizes, one group and many, no positives', () => {
    const rng = seededRng(31);
    const before = tf.memory().numTensors;
    const losses: KgeLossOptions[] = [
      {loss: 'logistic', adversarialTemperature: 0, lossMargin: 1},
      {loss: 'logistic', adversarialTemperature: 0.8, lossMargin: 1},
      {loss: 'margin', adversarialTemperature: 0, lossMargin: 3},
    ];
    for (const [name, extra] of SCORERS) {
      for (const [dim, b, chunk, k] of [
        [1, 6, 3, 5],
        [5, 6, 6, 4],
        [16, 12, 4, 33],
        [33, 9, 1, 2],
        [8, 0, 4, 3],
        [40, 64, 32, 40],
        [20, 34, 17, 16],
        [70, 150, 75, 70],
        [24, 512, 256, 200],
      ]) {
        const m = kgeModel(name, {numEntities: 4, numRelations: 2, dim, margin: 2, ...extra});
        const w = m.entity.dim,
          n = (b / chunk) * k;
        const q = randomRows(rng, b, w),
          own = randomRows(rng, b, w),
          neg = randomRows(rng, n, w);
        // Every loss on the small cases; the large ones (a chunk's tiles, where tfjs-backend-cpu's reference takes
        // seconds) with the self-adversarial loss, the one that weighs the negatives.
        for (const o of b * k >= 10000 ? [losses[1]] : losses) {
          const run = (f: typeof chunkLoss) => lossAndGradients(f, m, {q, own, neg}, w, chunk, o);
          const got = run(chunkLoss);
          tf.setBackend('cpu');
          const want = run((mm, x, y, z, c, oo) => composite(mm, x, y, z, c, k, oo));
          tf.setBackend(wm.BACKEND_NAME);
          const what = `${name} ${JSON.stringify(extra)} ${o.loss} ${o.adversarialTemperature} dim ${dim} b ${b} chunk ${chunk} k ${k}`;
          expectNear(got[0], want[0], `${what}: loss`, 1e-4);
          ['dq', 'dOwn', 'dNeg'].forEach((g, gi) =>
            expectGradientNear(got[gi + 1] as Float64Array, want[gi + 1] as Float64Array, `${what}: ${g}`),
          );
        }
        m.dispose();
      }
    }
    expect(() =>
      tf.tidy(() => {
        const m = kgeModel('distMult', {numEntities: 2, numRelations: 1, dim: 2});
        try {
          return chunkLoss(m, tf.zeros([4, 2]), tf.zeros([4, 2]), tf.zeros([3, 2]), 3, losses[0]);
        } finally {
          m.dispose();
        }
      }),
    ).to.throw(/chunk must be a positive divisor of 4, got 3/);
    expect(tf.memory().numTensors).to.equal(before);
  });

  it("the chunk loss's products at setMatmulPrecision 'high' and 'medium': on the GPU within their rounding of full float32 (the dot and L2 scorers' products on the tensor cores: distMult, complEx, transE L2; the others unchanged); on the CPU the same bits", () => {
    const rng = seededRng(47);
    const gpu = wm.deviceInfo().gpu && wm.deviceInfo().cublas;
    const [dim, b, chunk, k] = [64, 1024, 256, 256];
    const o: KgeLossOptions = {loss: 'logistic', adversarialTemperature: 0, lossMargin: 1};
    // ||got - want|| / ||want|| over every gradient element.
    const relative = (got: number[], want: number[]) => {
      let d = 0,
        n = 0;
      want.forEach((x, i) => {
        d += (got[i] - x) ** 2;
        n += x * x;
      });
      return Math.sqrt(d / n);
    };
    try {
      for (const [name, extra] of SCORERS) {
        const m = kgeModel(name, {numEntities: 4, numRelations: 2, dim, margin: 6, ...extra});
        const w = m.entity.dim,
          n = (b / chunk) * k;
        const q = randomRows(rng, b, w),
          own = randomRows(rng, b, w),
          neg = randomRows(rng, n, w);
        const results: Record<string, [number, number[]]> = {};
        for (const p of ['highest', 'high', 'medium'] as const) {
          wm.setMatmulPrecision(p);
          const [loss, ...grads] = lossAndGradients(chunkLoss, m, {q, own, neg}, w, chunk, o);
          results[p] = [loss, grads.flatMap((g) => Array.from(g))];
        }
        const what = `${name} ${JSON.stringify(extra)}`;
        const onTensorCores =
          gpu && (name === 'distMult' || name === 'complEx' || (name === 'transE' && 'pNorm' in extra && extra.pNorm === 2));
        for (const [p, bound] of [
          ['high', 2 ** -9],
          ['medium', 2 ** -6],
        ] as const) {
          if (!onTensorCores) {
            expect(results[p][1], `${what} ${p}: the same bits as 'highest'`).to.deep.equal(results.highest[1]);
            continue;
          }
          expectNear(results[p][0], results.highest[0], `${what} ${p}: loss`, bound);
          expect(relative(results[p][1], results.highest[1]), `${what} ${p}: gradients`).to.be.below(bound);
        }
        if (onTensorCores) expect(relative(results.medium[1], results.highest[1]), `${what}: bfloat16 inputs round`).to.be.above(0);
        m.dispose();
      }
    } finally {
      wm.setMatmulPrecision('highest');
    }
  });

  it("group scores (what ranking and top candidates score) against each model's tfjs ops on tfjs-backend-cpu: every model, groups, odd sizes, no queries or candidates; on the CPU transE L1 and rotatE in the native op", () => {
    const rng = seededRng(37);
    const before = tf.memory().numTensors;
    for (const [name, extra] of SCORERS) {
      for (const [dim, g, n, m] of [
        [1, 1, 1, 1],
        [7, 2, 5, 9],
        [33, 3, 17, 40],
        [16, 1, 0, 4],
        [5, 2, 3, 0],
      ]) {
        const model = kgeModel(name, {numEntities: 4, numRelations: 2, dim, margin: 3, ...extra});
        const w = model.entity.dim;
        const q = randomRows(rng, g * n, w),
          c = randomRows(rng, g * m, w);
        const scores = () => tf.tidy(() => groupScores(model, tf.tensor3d(q, [g, n, w]), tf.tensor3d(c, [g, m, w])).dataSync());
        const {result: got, ops} = wm.profileOps(scores);
        tf.setBackend('cpu');
        const want = tf.tidy(() => model.groupScores(tf.tensor3d(q, [g, n, w]), tf.tensor3d(c, [g, m, w])).dataSync());
        tf.setBackend(wm.BACKEND_NAME);
        const what = `${name} ${JSON.stringify(extra)} dim ${dim} [${g}, ${n}, ${m}]`;
        expect(got.length, what).to.equal(g * n * m);
        got.forEach((x, i) => expectNear(x, want[i], `${what} [${i}]`, 1e-5));
        const native = ops.some((o) => o.name === 'kgeGroupScores');
        const elementwise = name === 'rotatE' || (name === 'transE' && extra.pNorm === 1);
        expect(native, `${what}: the native op`).to.equal(elementwise && !wm.deviceInfo().gpu);
        model.dispose();
      }
    }
    const m = kgeModel('rotatE', {numEntities: 4, numRelations: 2, dim: 3});
    expect(() => tf.tidy(() => groupScores(m, tf.zeros([2, 3, 6]), tf.zeros([1, 4, 6])))).to.throw(
      /groupScores: c must be \[2, m, 6\] like q \[2,3,6\], got \[1,4,6\]/,
    );
    m.dispose();
    expect(tf.memory().numTensors).to.equal(before);
  });

  it('the native step (queries composed, scored, carried back) against the tfjs ops on tfjs-backend-cpu: every model and side, odd sizes, both losses, a weight; no positives and bad shapes named', () => {
    const rng = seededRng(37);
    const before = tf.memory().numTensors;
    let cases = 0;
    for (const [name, extra] of SCORERS)
      for (const [dim, b, chunk, k] of [
        [1, 6, 3, 5],
        [5, 6, 6, 4],
        [33, 9, 1, 2],
        [20, 34, 17, 16],
        [24, 64, 32, 40],
      ])
        for (const side of ['tail', 'head'] as const) {
          const o: KgeLossOptions =
            cases % 3 === 0
              ? {loss: 'margin', adversarialTemperature: 0, lossMargin: 3}
              : {loss: 'logistic', adversarialTemperature: cases % 3 === 1 ? 0 : 0.8, lossMargin: 1};
          const m = kgeModel(name, {numEntities: 4, numRelations: 2, dim, margin: 2, ...extra});
          const [ew, rw] = [m.entity.dim, m.relation.dim];
          const n = 2 * b + (b / chunk) * k;
          const rows = randomRows(rng, n, ew),
            rel = randomRows(rng, b, rw);
          const weight = 0.75;
          const read = (ts: tf.Tensor[]) => {
            const out = ts.map((t) => Float64Array.from(t.dataSync()));
            tf.dispose(ts);
            return out;
          };
          const got = read(
            tf.tidy(() => {
              const made = stepRowsGradients(
                m,
                {rows: tf.tensor2d(rows, [n, ew]), relation: tf.tensor2d(rel, [b, rw]), side, chunk},
                o,
                weight,
              )!;
              return [made.loss, made.dRows, made.dRelation];
            }),
          );
          tf.setBackend('cpu');
          const want = read(
            tf.tidy(() => {
              const {value, grads} = tf.valueAndGrads((x: tf.Tensor, y: tf.Tensor) => {
                const [heads, tails, neg] = tf.split(x, [b, b, n - 2 * b]) as tf.Tensor2D[];
                const [f, c] = side === 'tail' ? [heads, tails] : [tails, heads];
                return tf.mul(composite(m, m.query(f, y as tf.Tensor2D, side), c, neg, chunk, k, o), weight) as tf.Scalar;
              })([tf.tensor2d(rows, [n, ew]), tf.tensor2d(rel, [b, rw])]);
              return [value, ...grads];
            }),
          );
          tf.setBackend(wm.BACKEND_NAME);
          const what = `${name} ${JSON.stringify(extra)} ${o.loss} ${o.adversarialTemperature} ${side} dim ${dim} b ${b} chunk ${chunk} k ${k}`;
          expectNear(got[0][0], want[0][0], `${what}: loss`, 1e-4);
          ['dRows', 'dRelation'].forEach((g, gi) => expectGradientNear(got[gi + 1], want[gi + 1], `${what}: ${g}`));
          m.dispose();
          ++cases;
        }
    expect(cases).to.equal(50);
    const m = kgeModel('rotatE', {numEntities: 4, numRelations: 2, dim: 3});
    const o: KgeLossOptions = {loss: 'logistic', adversarialTemperature: 0, lossMargin: 1};
    tf.tidy(() => {
      expect(
        stepRowsGradients(m, {rows: tf.zeros([2, 6]) as tf.Tensor2D, relation: tf.zeros([0, 3]) as tf.Tensor2D, side: 'tail', chunk: 1}, o),
      ).to.equal(undefined);
      expect(() =>
        stepRowsGradients(m, {rows: tf.zeros([7, 6]) as tf.Tensor2D, relation: tf.zeros([2, 6]) as tf.Tensor2D, side: 'tail', chunk: 1}, o),
      ).to.throw(/kgeStep: rows must be \[n, 6\] and relation \[b, 3\] \(rotatE's widths\), got \[7,6\] and \[2,6\]/);
      expect(() =>
        stepRowsGradients(m, {rows: tf.zeros([4, 6]) as tf.Tensor2D, relation: tf.zeros([2, 3]) as tf.Tensor2D, side: 'tail', chunk: 2}, o),
      ).to.throw(/kgeStep: rows must hold 2 heads, 2 tails and k >= 1 negatives for each of 1 chunks, got 4 rows/);
      expect(() =>
        stepRowsGradients(m, {rows: tf.zeros([7, 6]) as tf.Tensor2D, relation: tf.zeros([2, 3]) as tf.Tensor2D, side: 'tail', chunk: 3}, o),
      ).to.throw(/kgeStep: chunk must be a positive divisor of 2, got 3/);
    });
    m.dispose();
    expect(tf.memory().numTensors).to.equal(before);
  });

  it('Freebase-shaped graphs: the same triples whatever the split into calls, Zipf relations, hub entities, no self loops, bad sizes named', () => {
    const o = {entities: 5000, relations: 50, triples: 200000, validTriples: 100, testTriples: 100, seed: 4};
    const kg = freebaseShapedKg(o);
    const again = freebaseShapedKg({...o, triples: 1000, validTriples: 0, testTriples: 0});
    expect(Array.from(again.train.tails)).to.deep.equal(Array.from(kg.train.tails.subarray(0, 1000)));
    expect(Array.from(again.train.relations)).to.deep.equal(Array.from(kg.train.relations.subarray(0, 1000)));
    checkTriples(kg.train, o.entities, o.relations, 'generated');
    expect(kg.train.heads.some((h, i) => h === kg.train.tails[i])).to.equal(false);
    const rel = new Float64Array(o.relations);
    for (const r of kg.train.relations) rel[r] += 1;
    // Zipf 1.1: relation 0 against relation 9 is 10^1.1 = 12.6 times as frequent.
    expect(rel[0] / rel[9]).to.be.within(11, 14.5);
    const degree = new Float64Array(o.entities);
    for (const t of [kg.train.heads, kg.train.tails]) for (const e of t) degree[e] += 1;
    const sorted = Array.from(degree).sort((a, b) => b - a);
    const top = sorted.slice(0, 50).reduce((a, b) => a + b, 0) / 400000;
    expect(top, "the top 1% of entities' share of the ends").to.be.above(0.15);
    expect(() => freebaseShapedKg({...o, entities: 0})).to.throw(/argument 0 \(numEntities\) must be in \[1, 2\^31\), got 0/);
    expect(() => freebaseShapedKg({...o, skew: 0.5})).to.throw(/skew\) must be a finite number >= 1/);
  });

  it('the losses against float64: logistic with and without self-adversarial weights, margin; gradients flow only through the scores', () => {
    const rng = seededRng(4);
    const n = 5,
      k = 3;
    const pos = Float32Array.from({length: n}, () => rng() * 6 - 3),
      neg = Float32Array.from({length: n * k}, () => rng() * 6 - 3);
    const softplus = (x: number) => Math.log1p(Math.exp(x));
    for (const o of [
      {loss: 'logistic', adversarialTemperature: 0, lossMargin: 1},
      {loss: 'logistic', adversarialTemperature: 0.7, lossMargin: 1},
      {loss: 'margin', adversarialTemperature: 0, lossMargin: 2},
    ] as const) {
      let want = 0;
      if (o.loss === 'margin') {
        for (let i = 0; i < n; ++i) for (let j = 0; j < k; ++j) want += Math.max(0, o.lossMargin - pos[i] + neg[i * k + j]) / (n * k);
      } else {
        let p = 0,
          q = 0;
        for (let i = 0; i < n; ++i) {
          p += softplus(-pos[i]) / n;
          const e = Array.from({length: k}, (_, j) => Math.exp(o.adversarialTemperature * neg[i * k + j]));
          const z = e.reduce((a, b) => a + b, 0);
          for (let j = 0; j < k; ++j) q += (((o.adversarialTemperature > 0 ? e[j] / z : 1 / k) * softplus(neg[i * k + j])) / n) as number;
        }
        want = (p + q) / 2;
      }
      const got = tf.tidy(() => kgeLoss(tf.tensor1d(pos), tf.tensor2d(neg, [n, k]), o).dataSync()[0]);
      expectNear(got, want, `${o.loss} ${o.adversarialTemperature}`, 1e-5);
      // With weights held constant, d loss / d neg_ij = w_ij sigmoid(neg_ij) / (2n).
      if (o.loss === 'logistic') {
        const g = tf.tidy(() =>
          tf
            .grad((x: tf.Tensor) => kgeLoss(tf.tensor1d(pos), x as tf.Tensor2D, o))(tf.tensor2d(neg, [n, k]))
            .dataSync(),
        );
        for (let i = 0; i < n; ++i) {
          const e = Array.from({length: k}, (_, j) => Math.exp(o.adversarialTemperature * neg[i * k + j]));
          const z = e.reduce((a, b) => a + b, 0);
          for (let j = 0; j < k; ++j) {
            const wij = o.adversarialTemperature > 0 ? e[j] / z : 1 / k;
            expectNear(g[i * k + j], wij / (1 + Math.exp(-neg[i * k + j])) / (2 * n), `d/dneg (${i}, ${j})`, 1e-4);
          }
        }
      }
    }
  });

  it('negatives: uniform draws spread evenly, degree draws follow the training degrees (chi-square), the same seed the same ids', () => {
    const entities = 20;
    const heads = Int32Array.from({length: 300}, (_, i) => (i < 200 ? 0 : i % entities)),
      tails = Int32Array.from({length: 300}, (_, i) => (i * 7) % entities);
    const degree = new Float64Array(entities);
    for (const e of [...heads, ...tails]) degree[e] += 1;
    for (const distribution of ['uniform', 'degree'] as const) {
      const s = new NegativeSampler(entities, distribution, {heads, tails});
      const draws = 60000;
      const t = s.draw(draws, 5),
        ids = t.dataSync();
      const again = s.draw(draws, 5);
      expect(Array.from(again.dataSync().subarray(0, 100))).to.deep.equal(Array.from(ids.subarray(0, 100)));
      tf.dispose([t, again]);
      const seen = new Float64Array(entities);
      for (const e of ids) seen[e] += 1;
      let chi = 0;
      for (let e = 0; e < entities; ++e) {
        const expected = distribution === 'uniform' ? draws / entities : (draws * degree[e]) / 600;
        chi += (seen[e] - expected) ** 2 / expected;
      }
      // 19 degrees of freedom: the 0.999 quantile is 43.8.
      expect(chi, `${distribution} chi-square`).to.be.below(43.8);
      s.dispose();
    }
    expect(() => new NegativeSampler(5, 'zipf' as 'uniform')).to.throw(/distribution must be 'uniform' or 'degree'/);
  });

  it('filtered and raw ranks equal a brute-force ranking over every entity, in blocks and reads smaller than the entities', () => {
    // 40 entities: one block a read (all, or 7 rows a read); 3,000: blocks of 48 entities, in one read or reads of 500 rows.
    for (const [entities, o] of [
      [40, {blockBytes: 1 << 16}],
      [40, {blockBytes: 1 << 16, readBytes: 7 * 4 * 6}],
      [3000, {blockBytes: 1 << 16}],
      [3000, {blockBytes: 1 << 16, readBytes: 500 * 4 * 6 + 3}],
    ] as const)
      checkRanks(patternedKg({entities, pairs: 30, seed: 2}), o);
    const m = kgeModel('transE', {numEntities: 5, numRelations: 1, dim: 6, seed: 1});
    const t = {heads: Int32Array.of(0), relations: Int32Array.of(0), tails: Int32Array.of(1)};
    expect(() => rankTriples(m, t, {readBytes: 23})).to.throw(/rankTriples: readBytes must hold at least one row \(24 bytes\), got 23/);
    m.dispose();
  });

  function checkRanks(kg: ReturnType<typeof patternedKg>, o: RankingOptions): void {
    for (const name of KGE_MODELS) {
      const m = kgeModel(name, {numEntities: kg.numEntities, numRelations: kg.numRelations, dim: 6, seed: 1});
      const t = kg.test;
      const all = [kg.train, kg.valid, kg.test];
      const known = new Set<string>();
      for (const s of all) for (let i = 0; i < s.heads.length; ++i) known.add(`${s.heads[i]} ${s.relations[i]} ${s.tails[i]}`);
      for (const filtered of [true, false]) {
        let differ = 0;
        const got = rankTriples(m, t, {...o, filter: filtered ? all : []});
        const n = t.heads.length;
        for (const [si, side] of (['tail', 'head'] as const).entries()) {
          for (let i = 0; i < n; ++i) {
            const [h, r, tt] = [t.heads[i], t.relations[i], t.tails[i]];
            const every = Int32Array.from({length: kg.numEntities}, (_, e) => e);
            const same = (v: number) => new Int32Array(kg.numEntities).fill(v);
            const scores = side === 'tail' ? m.score(same(h), same(r), every) : m.score(every, same(r), same(tt));
            const s = scores.dataSync();
            scores.dispose();
            const own = side === 'tail' ? tt : h;
            let rank = 1;
            for (let e = 0; e < kg.numEntities; ++e) {
              if (e === own) continue;
              if (filtered && known.has(side === 'tail' ? `${h} ${r} ${e}` : `${e} ${r} ${tt}`)) continue;
              if (s[e] >= s[own]) ++rank;
            }
            // Scores within rounding of the truth may fall either way; anything else must agree exactly.
            expect(Math.abs(got[si * n + i] - rank), `${name} ${side} ${i} filtered ${filtered}`).to.be.at.most(1);
            if (got[si * n + i] !== rank) ++differ;
          }
        }
        expect(differ, `${name}: ranks off by one (filtered ${filtered})`).to.be.at.most(Math.ceil(0.02 * n));
      }
      m.dispose();
    }
  }

  it('a model that scores every entity alike ranks last, not first', () => {
    const kg = patternedKg({entities: 30, pairs: 20, seed: 1});
    const m = kgeModel('distMult', {numEntities: kg.numEntities, numRelations: kg.numRelations, dim: 4, seed: 1});
    m.entity.write(
      Int32Array.from({length: kg.numEntities}, (_, i) => i),
      new Float32Array(kg.numEntities * 4).fill(0.5),
    );
    const r = evaluateKge(m, kg.test);
    expect(r.meanRank).to.equal(kg.numEntities);
    expect(r.hits10).to.equal(0);
    m.dispose();
  });

  it('reads the benchmarks text format: names mapped in order, dictionaries honoured, bad lines named by file and line; name maps round trip', async () => {
    const dir = tempDir('wm-kg-');
    try {
      fs.writeFileSync(path.join(dir, 'train.txt'), 'a\tlikes\tb\nb\tlikes\tc\n\nc\tknows\ta\n');
      fs.writeFileSync(path.join(dir, 'valid.txt'), 'a\tknows\tc\n');
      fs.writeFileSync(path.join(dir, 'test.txt'), 'd\tlikes\ta\n');
      const kg = await readKnowledgeGraph(dir);
      expect(kg.numEntities).to.equal(4);
      expect(kg.numRelations).to.equal(2);
      expect(kg.entityNames?.toArray()).to.deep.equal(['a', 'b', 'c', 'd']);
      expect(Array.from(kg.train.tails)).to.deep.equal([1, 2, 0]);
      expect(Array.from(kg.test.heads)).to.deep.equal([3]);
      const out = path.join(dir, 'model');
      fs.mkdirSync(out);
      writeNameMaps(out, kg);
      const maps = await readNameMaps(out);
      expect(maps.entityNames.toArray()).to.deep.equal(kg.entityNames?.toArray());
      expect(maps.relationNames.toArray()).to.deep.equal(kg.relationNames?.toArray());
      // Whitespace around a field is not part of it: a trailing space or tab, spaces beside a tab.
      fs.writeFileSync(path.join(dir, 'valid.txt'), 'a \t knows\tc\t\n');
      fs.writeFileSync(path.join(dir, 'test.txt'), 'd\tlikes\ta \n');
      const spaced = await readKnowledgeGraph(dir, {cache: false});
      expect(spaced.entityNames?.toArray()).to.deep.equal(kg.entityNames?.toArray());
      expect(spaced.relationNames?.toArray()).to.deep.equal(kg.relationNames?.toArray());
      fs.writeFileSync(path.join(dir, 'valid.txt'), 'a\tknows\tc\n');
      fs.writeFileSync(path.join(dir, 'test.txt'), 'd\tlikes\ta\nd likes\n');
      await expectReject(readKnowledgeGraph(dir), /test\.txt:2: a line must be 'head<TAB>relation<TAB>tail', got 2 fields/);
      fs.writeFileSync(path.join(dir, 'test.txt'), 'd\tlikes\t\t\n');
      await expectReject(readKnowledgeGraph(dir), /test\.txt:1: a line must be 'head<TAB>relation<TAB>tail', got 2 fields/);
      fs.writeFileSync(path.join(dir, 'test.txt'), 'd\tlikes\ta\n');
      fs.writeFileSync(path.join(dir, 'entities.dict'), '0\ta\n1\tb\n2\tc\n');
      fs.writeFileSync(path.join(dir, 'relations.dict'), '0\tlikes\n1\tknows\n');
      await expectReject(readKnowledgeGraph(dir), /test\.txt:1: entity 'd' is not in the entity dictionary/);
      fs.writeFileSync(path.join(dir, 'entities.dict'), '0\ta\n1\tb\n2\tc\n4\td\n');
      await expectReject(readKnowledgeGraph(dir), /entities\.dict: ids must run from 0 without gaps; 3 is missing/);
      fs.writeFileSync(path.join(dir, 'entities.dict'), '3\td\n0\ta\n1\tb\n2\tc\n');
      const fixed = await readKnowledgeGraph(dir);
      expect(Array.from(fixed.test.heads)).to.deep.equal([3]);
      fs.rmSync(path.join(dir, 'relations.dict'));
      await expectReject(readKnowledgeGraph(dir), /has entities\.dict without relations\.dict/);
      await expectReject(readKnowledgeGraph(path.join(dir, 'model')), /has no train\.txt or train\.tsv/);
      // The splits as .tsv (DGL-KE's user-defined datasets): the same graph; a split in both forms refused.
      fs.rmSync(path.join(dir, 'entities.dict'));
      const asTxt = await readKnowledgeGraph(dir, {cache: false});
      fs.copyFileSync(path.join(dir, 'train.txt'), path.join(dir, 'train.tsv'));
      await expectReject(readKnowledgeGraph(dir, {cache: false}), /has train\.txt and train\.tsv: one file a split/);
      fs.rmSync(path.join(dir, 'train.txt'));
      const asTsv = await readKnowledgeGraph(dir, {cache: false});
      expect(Array.from(asTsv.train.heads)).to.deep.equal(Array.from(asTxt.train.heads));
      expect(asTsv.entityNames?.toArray()).to.deep.equal(asTxt.entityNames?.toArray());
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('reads triple files natively as tripleFields splits a line: random spacing, names with spaces and past ASCII, CRLF, a byte-order mark, gzip, chunk edges anywhere', async () => {
    const dir = tempDir('wm-kg-native-');
    try {
      const rng = seededRng(11);
      const names = Array.from({length: 500}, (_, i) => (i % 7 === 0 ? `New York ${i}` : i % 5 === 0 ? `/m/${i.toString(36)}_ü` : `e${i}`));
      const pick = () => names[Math.floor(rng() * names.length)];
      const lines: string[] = [];
      for (let i = 0; i < 6000; ++i) {
        const [h, r, t] = [pick(), `rel ${Math.floor(rng() * 9)}`, pick()];
        const pad = () => [' ', '', '  ', '\t'][Math.floor(rng() * 3)];
        lines.push(rng() < 0.02 ? '' : `${pad()}${h}${pad()}\t${pad()}${r}\t${t}${pad()}${rng() < 0.3 ? '\r' : ''}`);
      }
      // The same triples with no spaces inside names: split at runs of blanks.
      const spaced = Array.from(
        {length: 300},
        () => `${pick().replace(/ /g, '_')}   rel_${Math.floor(rng() * 3)} ${pick().replace(/ /g, '_')}`,
      );
      const text = lines.join('\n') + '\n' + spaced.join('\n');
      fs.writeFileSync(path.join(dir, 'train.txt.gz'), zlib.gzipSync(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])));
      // The reference: tripleFields over each line, names numbered as first seen.
      const ids = (m: Map<string, number>, n: string) => m.get(n) ?? (m.set(n, m.size), m.size - 1);
      const ent = new Map<string, number>(),
        rel = new Map<string, number>();
      const want: number[][] = [];
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue;
        const f = tripleFields(line);
        want.push([ids(ent, f[0]), ids(rel, f[1]), ids(ent, f[2])]);
      }
      const kg = await readKnowledgeGraph(dir, {cache: false});
      expect(Array.from(kg.train.heads)).to.deep.equal(want.map((w) => w[0]));
      expect(Array.from(kg.train.relations)).to.deep.equal(want.map((w) => w[1]));
      expect(Array.from(kg.train.tails)).to.deep.equal(want.map((w) => w[2]));
      expect(kg.entityNames?.toArray()).to.deep.equal([...ent.keys()]);
      expect(kg.relationNames?.toArray()).to.deep.equal([...rel.keys()]);
      // The same bytes fed in pieces of 1 to 40 bytes (lines and names cut anywhere, a CR apart from its LF): the same ids.
      const reader = dataNative().kgText();
      reader.begin('pieces', 'triples');
      const bytes = Buffer.from(text);
      for (let at = 0; at < bytes.length;) {
        const n = 1 + Math.floor(rng() * 40);
        reader.push(bytes.subarray(at, at + n));
        at += n;
      }
      expect(reader.finish()).to.equal(want.length);
      expect(Array.from(reader.column(0).view() as Int32Array)).to.deep.equal(want.map((w) => w[0]));
      expect(Array.from(reader.column(2).view() as Int32Array)).to.deep.equal(want.map((w) => w[2]));
      expect(() => reader.column(2)).to.throw(/column 2 was taken already/);
      const pieces = reader.names('entities');
      expect(new NameTable(pieces.bytes, pieces.starts).toArray()).to.deep.equal([...ent.keys()]);
      // The name table: by id, by name (first, inner, last, absent, a prefix of a name), its name-map lines.
      const en = kg.entityNames!;
      const keys = [...ent.keys()];
      for (const k of [0, 1, Math.floor(keys.length / 2), keys.length - 1]) expect(en.indexOf(keys[k])).to.equal(k);
      expect(en.indexOf('New')).to.equal(-1);
      expect(en.indexOf('nobody')).to.equal(-1);
      expect(en.name(3)).to.equal(keys[3]);
      expect(() => en.name(keys.length)).to.throw(/id \d+ is not in \[0, \d+\)/);
      expect(en.dictionaryLines(2, 2).toString()).to.equal(`2\t${keys[2]}\n3\t${keys[3]}\n`);
      expect(() => NameTable.fromArray(['a', 'b\tc'], 'entityNames')).to.throw(
        /entityNames\[1\] must be a non-empty string without tabs or newlines/,
      );
      expect(NameTable.fromArray(['x', 'é']).toArray()).to.deep.equal(['x', 'é']);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('refuses bad dictionaries and triple files by file and line: an id twice, a name twice, an id that is not one, no names, no triples', async () => {
    const dir = tempDir('wm-kg-dict-');
    try {
      fs.writeFileSync(path.join(dir, 'train.txt'), 'a\tr\tb\n');
      fs.writeFileSync(path.join(dir, 'relations.dict'), '0\tr\n');
      const cases: [string, RegExp][] = [
        ['0\ta\n1\tb\n0\tc\n', /entities\.dict:3: id 0 is given twice/],
        ['0\ta\n1\ta\n', /entities\.dict:2: entity 'a' is given twice/],
        ['0\ta\n-1\tb\n', /entities\.dict:2: id '-1' is not a non-negative integer below 2\^31 - 1/],
        ['0\ta\n1x\tb\n', /entities\.dict:2: id '1x' is not a non-negative integer below 2\^31 - 1/],
        ['0\ta\tb\n', /entities\.dict:1: a line must be 'id<TAB>name', got 3 fields/],
        ['\n\n', /entities\.dict: no entities/],
      ];
      for (const [text, error] of cases) {
        fs.writeFileSync(path.join(dir, 'entities.dict'), text);
        await expectReject(readKnowledgeGraph(dir, {cache: false}), error);
      }
      // A bad line past many batches of lines, blank lines among them: named by its own number.
      fs.rmSync(path.join(dir, 'entities.dict'));
      fs.rmSync(path.join(dir, 'relations.dict'));
      fs.writeFileSync(path.join(dir, 'train.txt'), '\n \n');
      await expectReject(readKnowledgeGraph(dir, {cache: false}), /train\.txt holds no triples/);
      const many = Array.from({length: 700}, (_, i) => (i % 9 === 4 ? '' : `e${i}\tr\te${i + 1}`));
      fs.writeFileSync(path.join(dir, 'train.txt'), [...many, 'e1\tr', 'e2\tr\te3'].join('\n'));
      await expectReject(
        readKnowledgeGraph(dir, {cache: false}),
        /train\.txt:701: a line must be 'head<TAB>relation<TAB>tail', got 2 fields/,
      );
      fs.writeFileSync(path.join(dir, 'train.txt'), 'a\tr\tb\n');
      fs.writeFileSync(path.join(dir, 'relations.dict'), '0\tr\n');
      fs.writeFileSync(path.join(dir, 'entities.dict'), '1\tb\r\n0\ta');
      const kg = await readKnowledgeGraph(dir, {cache: false});
      expect(kg.entityNames?.toArray()).to.deep.equal(['a', 'b']);
      expect(Array.from(kg.train.tails)).to.deep.equal([1]);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('keeps a read knowledge graph in the binary cache: ids and names mapped back while the sources stand, parsed again when one changes or a cached file is damaged', async () => {
    const dir = tempDir('wm-kg-cache-');
    const said: string[] = [];
    const read = () => readKnowledgeGraph(dir, {cache: true, onProgress: (l) => said.push(l)});
    const columns = (kg: KnowledgeGraph) =>
      (['train', 'valid', 'test'] as const).map((s) => [kg[s].heads, kg[s].relations, kg[s].tails].map((a) => Array.from(a)));
    try {
      const rng = seededRng(5);
      const name = (i: number) => `/m/${i.toString(36)}_é`; // names as Freebase's, one of them past ASCII
      const lines = (n: number) =>
        Array.from(
          {length: n},
          () => `${name(Math.floor(rng() * 300))}\trel_${Math.floor(rng() * 7)}\t${name(Math.floor(rng() * 300))}`,
        ).join('\n') + '\n';
      fs.writeFileSync(path.join(dir, 'train.txt'), lines(2000));
      fs.writeFileSync(path.join(dir, 'valid.txt'), lines(50));
      fs.writeFileSync(path.join(dir, 'test.txt'), lines(60));
      const first = await read();
      expect(said.pop()).to.match(/^wrote the cache in .*\.wmcache/);
      const second = await read();
      expect(said.pop()).to.match(/^read the cache in /);
      expect(columns(second)).to.deep.equal(columns(first));
      expect([second.numEntities, second.numRelations]).to.deep.equal([first.numEntities, first.numRelations]);
      expect(second.entityNames?.toArray()).to.deep.equal(first.entityNames?.toArray());
      expect(second.relationNames?.toArray()).to.deep.equal(first.relationNames?.toArray());
      // A source written again: parsed again, the same graph.
      fs.writeFileSync(path.join(dir, 'valid.txt'), fs.readFileSync(path.join(dir, 'valid.txt')));
      const third = await read();
      expect(said.slice(-2)[0]).to.match(/cache not used: valid\.txt changed since the cache was written/);
      expect(columns(third)).to.deep.equal(columns(first));
      // Damaged: an id column, then the names.
      for (const file of ['train-tails.i32', 'entities.txt']) {
        const cached = path.join(dir, '.wmcache', 'kg', file);
        const bytes = fs.readFileSync(cached);
        bytes[3] ^= 0x40;
        fs.writeFileSync(cached, bytes);
        const again = await read();
        expect(said.slice(-2)[0]).to.match(new RegExp(`cache not used: .*${file.replace('.', '\\.')}: fails its digest`));
        expect(again.entityNames?.toArray()).to.deep.equal(first.entityNames?.toArray());
      }
      // cache: false reads the text and says nothing of a cache.
      said.length = 0;
      await readKnowledgeGraph(dir, {cache: false, onProgress: (l) => said.push(l)});
      expect(said).to.deep.equal([]);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('bad options are refused by name before anything is allocated', async () => {
    const kg = patternedKg({entities: 20, pairs: 10, seed: 1});
    const before = tf.memory().numTensors;
    expect(() => kgeModel('transH' as KgeModelName, {numEntities: 3, numRelations: 1, dim: 2})).to.throw(
      /model must be one of transE, distMult, complEx, rotatE/,
    );
    expect(() => kgeModel('rotatE', {numEntities: 3, numRelations: 1, dim: 2, pNorm: 2})).to.throw(/pNorm is transE's option/);
    expect(() => kgeModel('distMult', {numEntities: 0, numRelations: 1, dim: 2})).to.throw(
      /numEntities must be an integer in \[1, 2\^31\)/,
    );
    await expectReject(trainKge(kg, {chunkSize: 0}), /chunkSize must be a positive integer/);
    await expectReject(trainKge(kg, {loss: 'hinge' as 'margin'}), /loss must be 'logistic' or 'margin'/);
    const bad: KnowledgeGraph = {...kg, test: {...kg.test, tails: kg.test.tails.map(() => 99)}};
    await expectReject(trainKge(bad, {}), /tails\[0\] = 99 is not an entity id in \[0, 20\)/);
    expect(tf.memory().numTensors).to.equal(before);
  });

  it('each model recovers the patterns it can express: rotatE composition and inverse; distMult neither antisymmetry nor composition', async () => {
    const before = tf.memory().numTensors;
    const mrr = async (model: KgeModelName, kg: ReturnType<typeof patternedKg>, test: Triples) => {
      const {model: m, epochs} = await trainKge(kg, {
        model,
        dim: 32,
        epochs: 100,
        batchSize: 256,
        chunkSize: 64,
        negatives: 64,
        seed: 1,
      });
      expect(epochs[epochs.length - 1].loss).to.be.below(epochs[0].loss);
      const r = evaluateKge(m, test, {filter: [kg.train, kg.valid, kg.test]}).mrr;
      return {m, r};
    };
    const composition = patternedKg({entities: 200, pairs: 200, seed: 1, patterns: ['composition']});
    const rot = await mrr('rotatE', composition, composition.test);
    const dm = await mrr('distMult', composition, composition.test);
    expect(rot.r, 'rotatE composition MRR').to.be.above(0.9);
    expect(dm.r, 'distMult composition MRR').to.be.below(rot.r - 0.4);
    rot.m.dispose();
    dm.m.dispose();
    const inverse = patternedKg({entities: 200, pairs: 200, seed: 1, patterns: ['inverse']});
    const inv = await mrr('rotatE', inverse, inverse.test);
    expect(inv.r, 'rotatE inverse MRR').to.be.above(0.9);
    inv.m.dispose();
    // Antisymmetry: the share of training triples scored above their reverse.
    const anti = patternedKg({entities: 200, pairs: 200, seed: 1, patterns: ['antisymmetric']});
    const above = async (model: KgeModelName) => {
      const {m} = await mrr(model, anti, anti.test);
      const a = triplesOf(anti.train, 0);
      const [s1, s2] = [m.score(a.heads, a.relations, a.tails), m.score(a.tails, a.relations, a.heads)];
      const [x, y] = [s1.dataSync(), s2.dataSync()];
      tf.dispose([s1, s2]);
      m.dispose();
      return x.filter((v, i) => v > y[i]).length / x.length;
    };
    expect(await above('rotatE'), 'rotatE antisymmetry').to.be.above(0.95);
    expect(await above('distMult'), 'distMult antisymmetry').to.be.below(0.7);
    expect(tf.memory().numTensors).to.equal(before);
  });

  it("NaN scores: their gradient elements are skipped and counted in each epoch's figures, the other rows train on; a healthy run counts none", async () => {
    const kg = patternedKg({entities: 60, pairs: 40, seed: 5});
    const o = {model: 'distMult' as const, dim: 8, epochs: 3, batchSize: 32, chunkSize: 1, negatives: 1, adversarialTemperature: 0};
    const healthy = await trainKge(kg, o);
    expect(healthy.epochs.map((e) => e.skippedGradients)).to.deep.equal([0, 0, 0]);
    healthy.model.dispose();
    // After the first epoch one entity's row turns NaN (as an overflowing score would make it).
    const {model, epochs} = await trainKge(kg, o, (e, m) => {
      if (e.epoch === 1) m.entity.write([7], new Float32Array(8).fill(NaN));
    });
    try {
      expect(epochs[0].skippedGradients).to.equal(0);
      expect(epochs[1].skippedGradients).to.be.above(0);
      const rows = model.entity.read(Array.from({length: kg.numEntities}, (_, i) => i)).dataSync();
      for (let v = 0; v < kg.numEntities; ++v)
        if (v !== 7) for (let j = 0; j < 8; ++j) expect(Number.isFinite(rows[v * 8 + j]), `entity ${v}`).to.equal(true);
      const rel = model.relation.read(Array.from({length: kg.numRelations}, (_, i) => i)).dataSync();
      expect(Array.from(rel).every(Number.isFinite), 'relation rows').to.equal(true);
    } finally {
      model.dispose();
    }
  });

  it('checkpoints: a run resumed after 2 of 4 epochs ends with the tables and optimizer state of one run of 4; a checkpoint of another model (tables of the same shapes) is refused', async () => {
    const kg = patternedKg({entities: 60, pairs: 40, seed: 4});
    const dir = tempDir('wm-kge-ckpt-');
    const o = {model: 'complEx' as const, dim: 6, batchSize: 32, chunkSize: 16, negatives: 8, optimizer: 'adam' as const, seed: 2};
    const state = (m: KgeModel) => [m.entity, m.relation].map((e) => e.exportState());
    try {
      const whole = await trainKge(kg, {...o, epochs: 4});
      const first = await trainKge(kg, {...o, epochs: 2, checkpoint: {dir, every: 1}});
      first.model.dispose();
      const resumed = await trainKge(kg, {...o, epochs: 4, checkpoint: {dir, every: 2, resume: true}});
      expect(resumed.epochs.map((e) => e.epoch)).to.deep.equal([3, 4]);
      expect(resumed.epochs.map((e) => e.loss)).to.deep.equal(whole.epochs.slice(2).map((e) => e.loss));
      const [a, b] = [state(whole.model), state(resumed.model)];
      for (let t = 0; t < 2; ++t) {
        expect(Array.from(b[t].rows), `table ${t} rows`).to.deep.equal(Array.from(a[t].rows));
        expect(
          b[t].states.map((x) => Array.from(x)),
          `table ${t} optimizer state`,
        ).to.deep.equal(a[t].states.map((x) => Array.from(x)));
        expect(b[t].steps).to.equal(a[t].steps);
      }
      whole.model.dispose();
      resumed.model.dispose();
      await expectReject(
        trainKge(kg, {...o, model: 'transE', dim: 12, epochs: 5, checkpoint: {dir, every: 1, resume: true}}),
        /holds a complEx model, not transE/,
      );
      await expectReject(trainKge(kg, {...o, checkpoint: {dir, every: 0}}), /checkpoint.every must be a positive integer, got 0/);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('a saved model loads with the same scores and names; its top candidates match a brute-force ranking; a changed file is refused', async () => {
    const dir = tempDir('wm-kge-save-');
    const before = tf.memory().numTensors;
    try {
      const kg = patternedKg({entities: 50, pairs: 30, seed: 3});
      const {model: m} = await trainKge(kg, {model: 'complEx', dim: 8, epochs: 2, batchSize: 64, chunkSize: 16, negatives: 8});
      saveKgeModel(m, dir, {...kg, entityNames: NameTable.fromArray(Array.from({length: kg.numEntities}, (_, i) => `e${i}`))});
      const {model: back, entityNames, relationNames} = await loadKgeModel(dir);
      expect(entityNames.name(7)).to.equal('e7');
      expect(relationNames.toArray()).to.deep.equal(kg.relationNames?.toArray());
      const t = kg.test;
      const [a, b] = [m.score(t.heads, t.relations, t.tails), back.score(t.heads, t.relations, t.tails)];
      expect(Array.from(b.dataSync())).to.deep.equal(Array.from(a.dataSync()));
      tf.dispose([a, b]);
      const every = Int32Array.from({length: kg.numEntities}, (_, i) => i);
      const s = back.score(new Int32Array(kg.numEntities).fill(4), new Int32Array(kg.numEntities).fill(1), every);
      const want = Array.from(s.dataSync())
        .map((score, id) => ({id, score}))
        .sort((x, y) => y.score - x.score || x.id - y.id)
        .slice(0, 5);
      s.dispose();
      const top = topCandidates(back, 4, 1, 'tail', 5);
      expect(top.ids).to.deep.equal(want.map((w) => w.id));
      expect(() => topCandidates(back, 50, 1, 'tail', 5)).to.throw(/entity 50 is not an id in \[0, 50\)/);
      m.dispose();
      back.dispose();
      const f = path.join(dir, 'relation.npy');
      const bytes = fs.readFileSync(f);
      bytes[bytes.length - 1] ^= 1;
      fs.writeFileSync(f, bytes);
      await expectReject(loadKgeModel(dir), /relation\.npy: its SHA-256 differs from kge\.json's/);
      expect(tf.memory().numTensors).to.equal(before);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it('npm run kge --checkpoint, then --resume: the run goes on from the checkpoint, its log and plot keep the epochs before', () => {
    const root = path.resolve(__dirname, '..');
    const out = tempDir('wm-kge-resume-');
    const env = {...process.env, TFJS_WHOLEMEMORY_DEVICE: 'cpu'};
    const run = (...extra: string[]) =>
      spawnSync(
        process.execPath,
        [
          path.join(root, 'examples', 'kge.js'),
          '--dim',
          '8',
          '--eval-every',
          '0',
          '--no-save',
          '--out',
          out,
          '--checkpoint',
          path.join(out, 'ckpt'),
          ...extra,
        ],
        {encoding: 'utf8', env},
      );
    try {
      const first = run('--epochs', '2');
      expect(first.status, first.stderr).to.equal(0);
      const resumed = run('--epochs', '3', '--resume');
      expect(resumed.status, resumed.stderr).to.equal(0);
      expect(resumed.stdout).to.match(/^epoch 3: loss/m);
      expect(resumed.stdout).to.not.match(/^epoch [12]: /m);
      const epochs = fs
        .readFileSync(path.join(out, 'metrics.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('"type":"epoch"'))
        .map((l) => JSON.parse(l).epoch);
      expect(epochs).to.deep.equal([1, 2, 3]);
      const alone = spawnSync(process.execPath, [path.join(root, 'examples', 'kge.js'), '--resume'], {encoding: 'utf8', env});
      expect(alone.status).to.equal(1);
      expect(alone.stderr).to.match(/--resume needs --checkpoint <folder>/);
    } finally {
      fs.rmSync(out, {recursive: true, force: true});
    }
  });

  it('npm run kge on names that hold spaces: trained from tab-separated files, queried with tabs between the three parts', () => {
    const root = path.resolve(__dirname, '..');
    const dir = tempDir('wm-kge-spaces-');
    try {
      const cities = ['New York', 'Los Angeles', 'San Francisco', 'Paris', 'Lyon', 'Nice'];
      const lines = cities.map((c, i) => `${c}\tlocated in\t${i < 3 ? 'United States' : 'France'}`);
      fs.mkdirSync(path.join(dir, 'data'));
      fs.writeFileSync(path.join(dir, 'data', 'train.txt'), lines.join('\n') + '\n');
      const env = {...process.env, TFJS_WHOLEMEMORY_DEVICE: 'cpu'};
      const kge = (argv: string[]) =>
        spawnSync(process.execPath, [path.join(root, 'examples', 'kge.js'), ...argv], {encoding: 'utf8', env});
      const out = path.join(dir, 'model');
      const trained = kge([
        '--data',
        path.join(dir, 'data'),
        '--model',
        'transE',
        '--dim',
        '8',
        '--epochs',
        '2',
        '--batch-size',
        '2',
        '--chunk-size',
        '2',
        '--negatives',
        '2',
        '--out',
        out,
      ]);
      expect(trained.status, trained.stderr).to.equal(0);
      const q = kge(['--model', out, '--query', 'New York\tlocated in\t?', '--top', '2']);
      expect(q.status, q.stderr).to.equal(0);
      expect(q.stdout).to.match(/the 2 best tails of New York\tlocated in\t\?/);
      const names = [...cities, 'United States', 'France'];
      const ranked = q.stdout.split('\n').flatMap((l) => /^\s+\d+\s+-?[\d.]+\s+(.+)$/.exec(l)?.slice(1) ?? []);
      expect(ranked.length).to.equal(2);
      for (const name of ranked) expect(names, `a candidate '${name}'`).to.include(name);
      const spaced = kge(['--model', out, '--query', 'New York located in ?']);
      expect(spaced.status).to.equal(1);
      expect(spaced.stderr).to.match(/--query must be 'head relation \?' or '\? relation tail'/);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  it("npm run kge on 2 ranks (tables in continuous or chunked WholeMemory, 'distributed' or 'hierarchical' (validated each epoch): each batch shared out, the updates applied together at the rows' owners) ranks as well as one process; the saved models answer a query and --predict (triples scored, queries answered, a name the model lacks refused by file and line)", () => {
    const root = path.resolve(__dirname, '..');
    const out = tempDir('wm-kge-ranks-');
    const args = [
      '--model',
      'complex',
      '--epochs',
      '20',
      '--dim',
      '32',
      '--negatives',
      '32',
      '--chunk-size',
      '32',
      '--seed',
      '1',
      '--eval-every',
      '0',
    ];
    const env = {...process.env, TFJS_WHOLEMEMORY_DEVICE: 'cpu'};
    const mrr = (stdout: string) => Number(/test \(filtered, both sides, \d+ queries\): MRR ([\d.]+)/.exec(stdout)![1]);
    const kge = (argv: string[]) => spawnSync(process.execPath, [path.join(root, 'examples', 'kge.js'), ...argv], {encoding: 'utf8', env});
    const launch = (extra: string[], dir: string) =>
      spawnSync(
        process.execPath,
        [
          path.join(root, 'bin', 'tfjs-wm-run.js'),
          '-n',
          '2',
          path.join(root, 'examples', 'kge.js'),
          ...args,
          ...extra,
          '--out',
          path.join(out, dir),
        ],
        {encoding: 'utf8', env},
      );
    // The model saved in `dir` answers a query (its rows read back from the files).
    const answers = (dir: string) => {
      const q = kge(['--model', path.join(out, dir), '--query', '? symmetric_0 7', '--top', '3']);
      expect(q.status, q.stderr).to.equal(0);
      expect(q.stdout).to.match(/the 3 best heads of \? symmetric_0 7/);
    };
    try {
      const ranks = launch([], 'two');
      expect(ranks.status, ranks.stderr).to.equal(0);
      expect(ranks.stdout).to.match(/2 ranks sharing continuous tables/);
      const one = kge([...args, '--out', path.join(out, 'one')]);
      expect(one.status, one.stderr).to.equal(0);
      expect(mrr(one.stdout)).to.be.above(0.2);
      expect(Math.abs(mrr(ranks.stdout) - mrr(one.stdout)), `2 ranks ${mrr(ranks.stdout)}, 1 rank ${mrr(one.stdout)}`).to.be.below(0.05);
      const summary = fs
        .readFileSync(path.join(out, 'two', 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .find((r) => r.type === 'summary');
      expect(summary.ranks).to.equal(2);
      answers('two');
      const bad = kge(['--model', path.join(out, 'two'), '--query', 'x symmetric_0 ?']);
      expect(bad.status).to.equal(1);
      expect(bad.stderr).to.match(/--query: entity 'x' is not in the saved model's entities\.tsv/);
      // --predict: complete triples scored, queries answered with --top candidates, in the file's order; the scores of a
      // query's candidates are the scores of those triples.
      const asked = path.join(out, 'asked.txt');
      const triples = Array.from({length: 12}, (_, i) => `${i}\tsymmetric_0\t${i + 1}`);
      fs.writeFileSync(asked, [...triples, '4\tsymmetric_0\t?', '', '? symmetric_0 9'].join('\n'));
      const p = kge(['--model', path.join(out, 'two'), '--predict', asked, '--top', '2']);
      expect(p.status, p.stderr).to.equal(0);
      const rows = p.stdout
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('no GPU'))
        .map((l) => l.split('\t'));
      expect(rows[0]).to.deep.equal(['head', 'relation', 'tail', 'score']);
      expect(rows.length).to.equal(1 + 12 + 2 + 2);
      expect(rows.slice(1, 13).map((r) => r.slice(0, 3).join('\t'))).to.deep.equal(triples);
      expect(rows[13][0]).to.equal('4');
      expect(rows[15][2]).to.equal('9');
      fs.writeFileSync(asked, `${rows[13].slice(0, 3).join('\t')}\n`);
      const again = kge(['--model', path.join(out, 'two'), '--predict', asked]);
      expect(Number(again.stdout.trim().split('\n').at(-1)!.split('\t')[3])).to.be.closeTo(Number(rows[13][3]), 1e-4);
      fs.writeFileSync(asked, '1\tsymmetric_0\t2\n1\tnot_a_relation\t?\n');
      const refused = kge(['--model', path.join(out, 'two'), '--predict', asked]);
      expect(refused.status).to.equal(1);
      expect(refused.stderr).to.match(/asked\.txt:2: relation 'not_a_relation' is not in the saved model's relations\.tsv/);
      // 'distributed' tables: every rank holds half the rows; each step's batch is shared out, its gradients summed
      // at each row's owner. Ranked and saved by collective reads on both ranks; the saved rows answer as one process's do.
      const together = launch(['--memory', 'distributed'], 'together');
      expect(together.status, together.stderr).to.equal(0);
      expect(together.stdout).to.match(/2 ranks sharing distributed tables/);
      expect(
        Math.abs(mrr(together.stdout) - mrr(one.stdout)),
        `distributed ${mrr(together.stdout)}, 1 rank ${mrr(one.stdout)}`,
      ).to.be.below(0.05);
      answers('together');
      const chunked = launch(['--memory', 'chunked'], 'chunked');
      expect(chunked.status, chunked.stderr).to.equal(0);
      expect(chunked.stdout).to.match(/2 ranks sharing chunked tables/);
      expect(Math.abs(mrr(chunked.stdout) - mrr(one.stdout)), `chunked ${mrr(chunked.stdout)}, 1 rank ${mrr(one.stdout)}`).to.be.below(
        0.05,
      );
      // 'hierarchical' tables (one host here: shared by both ranks), validated every epoch: the validation ranking reads
      // the tables by collectives, so every rank ranks it.
      const split = launch(['--memory', 'hierarchical', '--eval-every', '1'], 'split');
      expect(split.status, split.stderr).to.equal(0);
      expect(split.stdout).to.match(/2 ranks sharing hierarchical tables/);
      expect(split.stdout).to.match(/epoch 1: loss [\d.]+ \| valid MRR/);
      expect(Math.abs(mrr(split.stdout) - mrr(one.stdout)), `hierarchical ${mrr(split.stdout)}, 1 rank ${mrr(one.stdout)}`).to.be.below(
        0.05,
      );
      const small = launch(['--memory', 'distributed', '--batch-size', '16'], 'small');
      expect(small.status).to.not.equal(0);
      expect(small.stderr).to.match(/batchSize \(16\) must be at least ranks x chunkSize \(2 x 16\)/);
    } finally {
      fs.rmSync(out, {recursive: true, force: true});
    }
  });

  it("an R-GCN encoder with a DistMult decoder learns the training triples' relations (features given or learned), ranked with the KGE protocol; nothing left behind", async () => {
    const kg = patternedKg({entities: 200, pairs: 150, seed: 1, patterns: ['symmetric', 'inverse']});
    const before = tf.memory().numTensors;
    const learned = await trainRgcnLinkPrediction(kg, {epochs: 100, dim: 32});
    expect(learned.losses[learned.losses.length - 1]).to.be.below(learned.losses[0] / 2);
    expect(learned.test.mrr, 'MRR').to.be.above(0.1);
    expect(learned.test.hits10, 'Hits@10').to.be.above(0.5);
    const rng = seededRng(3);
    const given = await trainRgcnLinkPrediction(
      kg,
      {epochs: 5, dim: 16},
      {values: Float32Array.from({length: 200 * 8}, () => rng()), dim: 8},
    );
    expect(given.test.queries).to.equal(2 * kg.test.heads.length);
    expect(tf.memory().numTensors).to.equal(before);
    await expectReject(
      trainRgcnLinkPrediction(kg, {}, {values: new Float32Array(10), dim: 8}),
      /features must hold 200 rows of dim values, got 10 for dim 8/,
    );
  });
});

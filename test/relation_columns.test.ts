// R-GAT's weight columns (relationColumns, relationColumnsGrad: native/src/graph/relation_columns.h) against a
// float64 reference on random weights (never zeros): W_r^T, the folded (W_r a_src_r)^T and (W_r a_dst_r)^T and root^T
// placed as row blocks, some relations without one or all of them, rows no block names left as they were; and the
// gradient of sum(T * G) folded back into W, the attention vectors and root. More than 64 relations and 16 root
// copies (several launches on the GPU), odd sizes; blocks out of range or overlapping refused by name.
import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {layerNative} from '../src/native/domains';
import type {Buf} from '../src/native/ops';
import {assertGpuIfRequired, rng} from './helpers';

const SENTINEL = 7.25;

interface Case {
  R: number;
  inDim: number;
  heads: number;
  units: number;
  rootOut: number;
  roots: number;
  seed: number;
}

/** Random blocks: each relation's three blocks present or not, laid out in shuffled order with gaps between them. */
function layout(c: Case, r: () => number): {blocks: number[]; rootStarts: number[]; outRows: number} {
  const wide = c.heads * c.units;
  const pieces: {k: number; rows: number}[] = [];
  for (let q = 0; q < c.R; ++q) for (let j = 0; j < 3; ++j) if (r() < 0.7) pieces.push({k: 3 * q + j, rows: j === 0 ? wide : c.heads});
  for (let q = 0; q < c.roots; ++q) pieces.push({k: -1 - q, rows: c.rootOut});
  for (let i = pieces.length - 1; i > 0; --i) {
    const j = Math.floor(r() * (i + 1));
    [pieces[i], pieces[j]] = [pieces[j], pieces[i]];
  }
  const blocks = new Array<number>(3 * c.R).fill(-1),
    rootStarts = new Array<number>(c.roots).fill(0);
  let at = 0;
  for (const p of pieces) {
    at += Math.floor(r() * 2); // a gap: rows left as they are
    if (p.k >= 0) blocks[p.k] = at;
    else rootStarts[-1 - p.k] = at;
    at += p.rows;
  }
  return {blocks, rootStarts, outRows: at + 1};
}

const fillBuf = (buf: Buf, n: number, v: number) =>
  typeof buf === 'number' ? layerNative().fill(0 /* float32 */, buf, n, v) : (buf as Float32Array).fill(v, 0, n);

describe('relationColumns / relationColumnsGrad (R-GAT weight columns, one op each way)', () => {
  before(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    assertGpuIfRequired();
  });

  const cases: Case[] = [
    {R: 3, inDim: 5, heads: 2, units: 3, rootOut: 4, roots: 2, seed: 1},
    {R: 1, inDim: 1, heads: 1, units: 1, rootOut: 0, roots: 0, seed: 2},
    {R: 70, inDim: 3, heads: 3, units: 2, rootOut: 5, roots: 18, seed: 3},
    {R: 4, inDim: 33, heads: 1, units: 7, rootOut: 7, roots: 1, seed: 4},
  ];
  for (const c of cases)
    it(`R ${c.R}, inDim ${c.inDim}, ${c.heads} heads of ${c.units}, root ${c.rootOut} x ${c.roots}: columns and gradients against float64`, () => {
      const b = wm.backend();
      const r = rng(c.seed);
      const wide = c.heads * c.units;
      const {blocks, rootStarts, outRows} = layout(c, r);
      const rand = (n: number) => Float32Array.from({length: n}, () => r() * 2 - 1 || 0.5);
      const w = rand(c.R * c.inDim * wide),
        as = rand(c.R * wide),
        ad = rand(c.R * wide),
        root = rand(Math.max(1, c.inDim * c.rootOut)),
        g = rand(outRows * c.inDim);
      const ts = [tf.tensor1d(w), tf.tensor1d(as), tf.tensor1d(ad), tf.tensor1d(root), tf.tensor1d(g)];
      try {
        const [t] = b.nativeOutputs(ts.slice(0, 4), [[outRows, c.inDim]], ([wp, ap, dp, rp], [tp]) => {
          fillBuf(tp, outRows * c.inDim, SENTINEL);
          layerNative().relationColumns(wp, ap, dp, rp, c.R, c.inDim, c.heads, c.units, c.rootOut, blocks, rootStarts, tp, outRows);
        });
        const grads = b.nativeOutputs(
          [ts[4], ...ts.slice(0, 3)],
          [[c.R * c.inDim * wide], [c.R * wide], [c.R * wide], [Math.max(1, c.inDim * c.rootOut)]],
          ([gp, wp, ap, dp], [dW, dAs, dAd, dRoot]) =>
            layerNative().relationColumnsGrad(
              gp,
              wp,
              ap,
              dp,
              c.R,
              c.inDim,
              c.heads,
              c.units,
              c.rootOut,
              blocks,
              rootStarts,
              outRows,
              dW,
              dAs,
              dAd,
              c.rootOut > 0 ? dRoot : null,
            ),
        );
        const got = t.dataSync() as Float32Array;
        const [gW, gAs, gAd, gRoot] = grads.map((x) => x.dataSync() as Float32Array);
        // The reference: each row of T from its block (float64), untouched rows keep the sentinel.
        const want = new Float64Array(outRows * c.inDim).fill(SENTINEL);
        const dW = new Float64Array(w.length),
          dAs = new Float64Array(as.length),
          dAd = new Float64Array(ad.length),
          dRoot = new Float64Array(c.inDim * c.rootOut);
        const W = (q: number, i: number, k: number) => w[(q * c.inDim + i) * wide + k];
        for (let q = 0; q < c.R; ++q)
          for (let i = 0; i < c.inDim; ++i) {
            if (blocks[3 * q] >= 0)
              for (let k = 0; k < wide; ++k) {
                want[(blocks[3 * q] + k) * c.inDim + i] = W(q, i, k);
                dW[(q * c.inDim + i) * wide + k] += g[(blocks[3 * q] + k) * c.inDim + i];
              }
            for (const [j, att, dAtt] of [
              [1, as, dAs],
              [2, ad, dAd],
            ] as const) {
              if (blocks[3 * q + j] < 0) continue;
              for (let h = 0; h < c.heads; ++h) {
                let s = 0;
                const row = (blocks[3 * q + j] + h) * c.inDim + i;
                for (let u = 0; u < c.units; ++u) {
                  s += W(q, i, h * c.units + u) * att[q * wide + h * c.units + u];
                  dW[(q * c.inDim + i) * wide + h * c.units + u] += g[row] * att[q * wide + h * c.units + u];
                  dAtt[q * wide + h * c.units + u] += g[row] * W(q, i, h * c.units + u);
                }
                want[row] = s;
              }
            }
          }
        for (const start of rootStarts)
          for (let i = 0; i < c.inDim; ++i)
            for (let j = 0; j < c.rootOut; ++j) {
              want[(start + j) * c.inDim + i] = root[i * c.rootOut + j];
              dRoot[i * c.rootOut + j] += g[(start + j) * c.inDim + i];
            }
        const close = (a: Float32Array, e: Float64Array, what: string) => {
          for (let i = 0; i < e.length; ++i)
            if (!(Math.abs(a[i] - e[i]) <= 1e-5 + 1e-5 * Math.abs(e[i]))) expect.fail(`${what}[${i}]: got ${a[i]}, want ${e[i]}`);
        };
        close(got, want, 'T');
        close(gW, dW, 'dW');
        close(gAs, dAs, 'dAttSrc');
        close(gAd, dAd, 'dAttDst');
        if (c.rootOut > 0) close(gRoot, dRoot, 'dRoot');
        tf.dispose([t, ...grads]);
      } finally {
        tf.dispose(ts);
      }
    });

  it('refuses blocks out of range, overlapping, of the wrong count, and root copies without a root, by name', () => {
    const b = wm.backend();
    const ts = [
      tf.tensor1d(new Float32Array(2 * 3 * 4).fill(1)),
      tf.tensor1d(new Float32Array(8).fill(1)),
      tf.tensor1d(new Float32Array(3 * 2).fill(1)),
    ];
    const run = (blocks: number[], rootStarts: number[], rootOut: number, outRows: number) => () =>
      b.nativeOutputs([ts[0], ts[1], ts[1], ts[2]], [[Math.max(1, outRows), 3]], ([wp, ap, dp, rp], [tp]) =>
        layerNative().relationColumns(wp, ap, dp, rp, 2, 3, 2, 2, rootOut, blocks, rootStarts, tp, outRows),
      );
    try {
      expect(run([0, 4, 6, -1, -1, -1], [8], 2, 10)).to.not.throw();
      expect(run([0, 4, 6, -1, -1, -1], [8], 2, 9)).to.throw(
        /rootStarts.*entry 0 \(8\) must start a block of 2 rows within the matrix's 9/,
      );
      expect(run([0, 3, -1, -1, -1, -1], [], 2, 10)).to.throw(/blocks.*entry 1's block overlaps another at row 3/);
      expect(run([0, 4], [], 2, 10)).to.throw(/blocks.*must hold 3 entries a relation \(6\), got 2/);
      expect(run([-2, -1, -1, -1, -1, -1], [], 2, 10)).to.throw(/blocks.*entry 0 \(-2\)/);
      expect(run([-1, -1, -1, -1, -1, -1], [0], 0, 10)).to.throw(/rootStarts.*must be empty without a root/);
    } finally {
      tf.dispose(ts);
    }
  });
});

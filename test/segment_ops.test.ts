// tf.sparse.sparseSegmentSum / sparseSegmentMean and tf.bincount /
// tf.denseBincount against tfjs-backend-cpu on random data: gaps between
// segments, empty inputs, every weight dtype, 2-D counts, values past the
// size; and the same errors for bad ids.
import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {assertGpuIfRequired, checkAgainstCpu, Input, randomInput} from './helpers';

function sortedIds(n: number, seed: number, gapEvery = 3): Input {
  const r = randomInput([n], 'int32', seed, {min: 0, max: gapEvery});
  let acc = 0;
  r.values.forEach((v, i) => {
    acc += v === 0 ? 1 : 0; // runs of equal ids, some ids skipped
    if (v === gapEvery) acc += 2;
    r.values[i] = acc;
  });
  return r;
}

describe('segment reductions and bin counts match tfjs-backend-cpu', () => {
  before(async function () {
    await tf.setBackend(wm.BACKEND_NAME);
    assertGpuIfRequired();
  });

  let seed = 900;
  const next = () => ++seed;

  it('SparseSegmentSum and SparseSegmentMean: gaps, repeated rows, 1-D to 3-D data, empty', async () => {
    for (const [dataShape, n] of [
      [[20, 7], 33],
      [[9], 14],
      [[6, 3, 5], 11],
      [[5, 4], 1],
      [[5, 4], 0],
      [[0, 3], 0],
    ] as [number[], number][]) {
      const data = randomInput(dataShape, 'float32', next());
      const idx = randomInput([n], 'int32', next(), {min: 0, max: Math.max(0, dataShape[0] - 1)});
      const ids = sortedIds(n, next());
      for (const [name, f] of [
        ['SparseSegmentSum', tf.sparse.sparseSegmentSum],
        ['SparseSegmentMean', tf.sparse.sparseSegmentMean],
      ] as const) {
        await checkAgainstCpu(`${name} data ${dataShape} n ${n}`, [data, idx, ids], (d, i, s) => f(d, i as tf.Tensor1D, s as tf.Tensor1D), {
          kernels: [name],
          rtol: 1e-5,
          atol: 1e-5,
        });
      }
    }
  });

  it("SparseSegmentSum rejects bad ids with tfjs-backend-cpu's messages", async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const data = tf.ones([4, 2]);
    const bad: [number[], number[], RegExp][] = [
      [[0, 1, 2], [0, 2, 1], /segment ids must be in increasing order|increasing/i],
      [[0, 9], [0, 1], /index 1|out of range|\[0, 4\)/i],
      [[0, 1], [-3, -2], /negative|segment ids/i],
    ];
    for (const [i, s, msg] of bad) {
      let cpuError = '';
      await tf.setBackend('cpu');
      try {
        tf.sparse.sparseSegmentSum(tf.ones([4, 2]), tf.tensor1d(i, 'int32'), tf.tensor1d(s, 'int32'));
      } catch (e) {
        cpuError = (e as Error).message;
      }
      await tf.setBackend(wm.BACKEND_NAME);
      expect(cpuError, `cpu error for ${i} / ${s}`).to.match(msg);
      const [it, st] = [tf.tensor1d(i, 'int32'), tf.tensor1d(s, 'int32')];
      const before = wm.memoryInfo();
      wm.resetFallbackCounts();
      expect(() => tf.sparse.sparseSegmentSum(data, it, st)).to.throw(cpuError);
      expect(wm.fallbackCounts().SparseSegmentSum ?? 0).to.equal(0);
      const after = wm.memoryInfo();
      expect(after.numTensors, 'tensors left by the failed call').to.equal(before.numTensors);
      expect(after.deviceBytesInUse).to.equal(before.deviceBytesInUse);
      tf.dispose([it, st]);
    }
    data.dispose();
  });

  it('Bincount and DenseBincount: weights float32 / int32 / none, 2-D rows, binary output, values past size', async () => {
    for (const wdtype of ['float32', 'int32'] as tf.DataType[]) {
      const x = randomInput([57], 'int32', next(), {min: 0, max: 12});
      await checkAgainstCpu(
        `bincount weights ${wdtype}`,
        [x, randomInput([57], wdtype, next())],
        (a, w) => tf.bincount(a as tf.Tensor1D, w as tf.Tensor1D, 10),
        {kernels: ['Bincount']},
      );
      await checkAgainstCpu(
        `bincount no weights ${wdtype}`,
        [x, randomInput([0], wdtype, next())],
        (a, w) => tf.bincount(a as tf.Tensor1D, w as tf.Tensor1D, 10),
        {kernels: ['Bincount']},
      );
      const x2 = randomInput([5, 23], 'int32', next(), {min: 0, max: 9});
      for (const binary of [false, true]) {
        await checkAgainstCpu(
          `denseBincount 2-D weights ${wdtype} binary ${binary}`,
          [x2, randomInput([5, 23], wdtype, next())],
          (a, w) => tf.denseBincount(a as tf.Tensor2D, w as tf.Tensor2D, 7, binary),
          {kernels: ['DenseBincount']},
        );
        await checkAgainstCpu(
          `denseBincount 2-D no weights ${wdtype} binary ${binary}`,
          [x2, randomInput([0], wdtype, next())],
          (a, w) => tf.denseBincount(a as tf.Tensor2D, w as tf.Tensor2D, 7, binary),
          {kernels: ['DenseBincount']},
        );
        await checkAgainstCpu(
          `denseBincount 1-D ${wdtype} binary ${binary}`,
          [x, randomInput([57], wdtype, next())],
          (a, w) => tf.denseBincount(a as tf.Tensor1D, w as tf.Tensor1D, 11, binary),
          {kernels: ['DenseBincount']},
        );
      }
    }
    await checkAgainstCpu(
      'bincount empty',
      [randomInput([0], 'int32', next()), randomInput([0], 'float32', next())],
      (a, w) => tf.bincount(a as tf.Tensor1D, w as tf.Tensor1D, 4),
      {kernels: ['Bincount']},
    );
    await tf.setBackend(wm.BACKEND_NAME);
    expect(() => tf.bincount(tf.tensor1d([1, -2, 3], 'int32'), tf.tensor1d([], 'float32'), 5)).to.throw('Input x must be non-negative!');
  });

  it('vertex degrees of a graph: bincount of its edge sources equals the CSR row lengths', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const src = randomInput([500], 'int32', next(), {min: 0, max: 49});
    const expected = new Array(50).fill(0);
    src.values.forEach((v) => ++expected[v]);
    const deg = tf.bincount(tf.tensor1d(src.values as Int32Array, 'int32'), tf.tensor1d([], 'int32'), 50);
    expect(deg.dtype).to.equal('int32');
    expect(Array.from(await deg.data())).to.deep.equal(expected);
    deg.dispose();
  });
});

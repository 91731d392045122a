// Every native kernel against tfjs-backend-cpu on random data: odd sizes,
// empty tensors, broadcasting, special values, every dtype the kernel takes.
// On a GPU this checks the CUDA kernels; elsewhere the C++ CPU kernels.
import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {assertGpuIfRequired, checkAgainstCpu, gpuOnly, nativeHere, randomInput} from './helpers';

const SHAPES = [[0], [1], [7], [3, 5, 7], [1001], [2, 3, 4, 5]];

describe('native kernels match tfjs-backend-cpu', () => {
  before(async function () {
    await tf.setBackend(wm.BACKEND_NAME);
    assertGpuIfRequired();
  });

  let seed = 1;
  const next = () => ++seed;

  describe('unary', () => {
    const floatOps: [string, (x: tf.Tensor) => tf.Tensor, {min?: number; max?: number}?][] = [
      ['Neg', tf.neg],
      ['Abs', tf.abs],
      ['Exp', tf.exp],
      ['Log', tf.log, {min: 0.01, max: 5}],
      ['Log1p', tf.log1p, {min: -0.9, max: 5}],
      ['Sqrt', tf.sqrt, {min: 0, max: 9}],
      ['Rsqrt', tf.rsqrt, {min: 0.1, max: 9}],
      ['Square', tf.square],
      ['Relu', tf.relu],
      ['Relu6', tf.relu6, {min: -8, max: 8}],
      ['Elu', tf.elu],
      ['LeakyRelu', (x) => tf.leakyRelu(x, 0.13)],
      ['Sigmoid', tf.sigmoid],
      ['Tanh', tf.tanh],
      ['Softplus', tf.softplus, {min: -20, max: 20}],
      ['Step', (x) => tf.step(x, 0.25)],
      ['Reciprocal', tf.reciprocal],
      ['Floor', tf.floor],
      ['Ceil', tf.ceil],
      ['Sign', tf.sign],
      ['Sin', tf.sin],
      ['Cos', tf.cos],
      ['Expm1', tf.expm1],
      ['Round', tf.round],
      ['IsNan', tf.isNaN],
      ['IsInf', tf.isInf],
      ['IsFinite', tf.isFinite],
      ['Selu', tf.selu],
      ['ClipByValue', (x) => tf.clipByValue(x, -0.5, 1.25)],
      ['Erf', tf.erf],
      ['Atan', tf.atan],
      ['Sinh', tf.sinh],
      ['Cosh', tf.cosh],
      ['Asinh', tf.asinh],
      ['Tan', tf.tan, {min: -1, max: 1}],
      ['Acos', tf.acos, {min: -1, max: 1}],
      ['Asin', tf.asin, {min: -1, max: 1}],
      ['Acosh', tf.acosh, {min: 1, max: 5}],
      ['Atanh', tf.atanh, {min: -0.99, max: 0.99}],
    ];
    for (const [name, f, range] of floatOps) {
      it(`${name} float32`, async () => {
        for (const shape of SHAPES) {
          await checkAgainstCpu(`${name} ${shape}`, [randomInput(shape, 'float32', next(), {...range})], f, {
            kernels: [name],
            rtol: 2e-5,
            atol: 1e-5,
          });
        }
        // NaN, infinities and signed zeros follow the CPU backend too.
        await checkAgainstCpu(`${name} specials`, [randomInput([97], 'float32', next(), {...range, specials: true})], f, {
          kernels: [name],
          rtol: 2e-5,
          atol: 1e-5,
        });
      });
    }
    const intOps: [string, (x: tf.Tensor) => tf.Tensor][] = [
      ['Neg', tf.neg],
      ['Abs', tf.abs],
      ['Square', tf.square],
      ['Relu', tf.relu],
      ['Relu6', tf.relu6],
      ['Sign', tf.sign],
    ];
    for (const [name, f] of intOps) {
      it(`${name} int32`, async () => {
        for (const shape of SHAPES) {
          await checkAgainstCpu(`${name} int32 ${shape}`, [randomInput(shape, 'int32', next(), {min: -1000, max: 1000})], f, {
            kernels: [name],
          });
        }
      });
    }
    it('LogicalNot bool', async () => {
      for (const shape of SHAPES)
        await checkAgainstCpu(`LogicalNot ${shape}`, [randomInput(shape, 'bool', next())], tf.logicalNot, {kernels: ['LogicalNot']});
    });
    it('Cast between float32, int32 and bool', async () => {
      const dtypes: tf.DataType[] = ['float32', 'int32', 'bool'];
      for (const from of dtypes) {
        for (const to of dtypes) {
          const input = randomInput([3, 37], from, next(), {min: -50, max: 50, specials: from === 'float32'});
          await checkAgainstCpu(`Cast ${from}->${to}`, [input], (x) => tf.cast(x, to), {kernels: ['Cast']});
        }
      }
    });
  });

  describe('binary', () => {
    const pairs: [number[], number[]][] = [
      [[7], [7]],
      [
        [3, 1, 5],
        [1, 4, 5],
      ],
      [[2, 3, 4], []],
      [[], [5]],
      [
        [0, 3],
        [1, 3],
      ],
      [[1001], [1]],
      [
        [4, 1],
        [1, 6],
      ],
      [
        [2, 3, 4, 5],
        [3, 1, 5],
      ],
      // The GPU's four-at-a-time paths: flat with and without a tail, a bias row, a column, both broadcast, rows of rows.
      [[8], [8]],
      [[1027], [1027]],
      [[5, 12], [12]],
      [
        [5, 12],
        [5, 1],
      ],
      [[12], [5, 1]],
      [
        [3, 2, 8],
        [2, 8],
      ],
      [
        [2, 1, 4],
        [1, 3, 4],
      ],
    ];
    const ops: [string, (a: tf.Tensor, b: tf.Tensor) => tf.Tensor, tf.DataType[], boolean?][] = [
      ['Add', tf.add, ['float32', 'int32']],
      ['Sub', tf.sub, ['float32', 'int32']],
      ['Multiply', tf.mul, ['float32', 'int32']],
      ['RealDiv', tf.div, ['float32']],
      ['Maximum', tf.maximum, ['float32', 'int32']],
      ['Minimum', tf.minimum, ['float32', 'int32']],
      ['Pow', tf.pow, ['float32', 'int32']],
      ['SquaredDifference', tf.squaredDifference, ['float32', 'int32']],
      ['Equal', tf.equal, ['float32', 'int32', 'bool']],
      ['NotEqual', tf.notEqual, ['float32', 'int32', 'bool']],
      ['Less', tf.less, ['float32', 'int32']],
      ['LessEqual', tf.lessEqual, ['float32', 'int32']],
      ['Greater', tf.greater, ['float32', 'int32']],
      ['GreaterEqual', tf.greaterEqual, ['float32', 'int32']],
      ['LogicalAnd', tf.logicalAnd, ['bool']],
      ['LogicalOr', tf.logicalOr, ['bool']],
      ['FloorDiv', tf.floorDiv, ['float32', 'int32'], true],
      ['Mod', tf.mod, ['float32', 'int32'], true],
      ['Atan2', tf.atan2, ['float32']],
    ];
    for (const [name, f, dtypes, nonZero] of ops) {
      for (const dtype of dtypes) {
        it(`${name} ${dtype} with broadcasting`, async () => {
          for (const [sa, sb] of pairs) {
            const range = name === 'Pow' ? {min: dtype === 'int32' ? 0 : 0.1, max: 3} : {min: -9, max: 9};
            const a = randomInput(sa, dtype, next(), range);
            const b = randomInput(sb, dtype, next(), {...range, nonZero, ...(name === 'Pow' && dtype === 'int32' ? {min: 0, max: 4} : {})});
            await checkAgainstCpu(`${name} ${dtype} ${sa}x${sb}`, [a, b], f, {kernels: [name], rtol: 1e-5, atol: 1e-5});
          }
        });
      }
    }
    // A one-element operand whose values are on the host goes to the kernel as
    // an argument (no upload); one a kernel made lives only on the device and
    // is read from there. Both, on either side, for every op and dtype.
    const onDevice = (t: tf.Tensor) =>
      tf.tidy(() => tf.reshape(tf.slice(tf.concat([t.reshape([-1]), t.reshape([-1])]), [1], [1]), t.shape));
    for (const [name, f, dtypes, nonZero] of ops) {
      it(`${name} with one-element operands on the host and on the device`, async () => {
        for (const dtype of dtypes) {
          for (const [sa, sb] of [
            [[37], []],
            [[], [37]],
            [
              [2, 3],
              [1, 1],
            ],
            [
              [1, 1],
              [2, 3],
            ],
            [[], []],
            [[0], []],
            [[1], [1]],
          ] as [number[], number[]][]) {
            const range = name === 'Pow' ? {min: dtype === 'int32' ? 0 : 0.1, max: 3} : {min: -9, max: 9};
            const a = randomInput(sa, dtype, next(), range);
            const b = randomInput(sb, dtype, next(), {...range, nonZero});
            for (const where of ['host', 'device']) {
              const g =
                where === 'host'
                  ? f
                  : (x: tf.Tensor, y: tf.Tensor) => tf.tidy(() => f(x.size === 1 ? onDevice(x) : x, y.size === 1 ? onDevice(y) : y));
              await checkAgainstCpu(`${name} ${dtype} ${sa}x${sb} scalar on the ${where}`, [a, b], g, {
                kernels: [name],
                rtol: 1e-5,
                atol: 1e-5,
              });
            }
          }
        }
      });
    }
    it('a one-element operand on the host is never uploaded', function () {
      if (!wm.deviceInfo().gpu) this.skip();
      const x = tf.tidy(() => tf.add(tf.randomUniform([5, 5]), 0));
      const s = tf.scalar(2.5);
      const y = tf.mul(x, s);
      expect(wm.isOnDevice(s), 'the scalar stays on the host').to.equal(false);
      expect(wm.isOnDevice(y)).to.equal(true);
      tf.dispose([x, s, y]);
    });
    it('maximum, minimum, relu6 and clipByValue keep Math.max / Math.min semantics: NaN, signed zeros, infinities (float64 reference)', async () => {
      await tf.setBackend(wm.BACKEND_NAME);
      const vals = [0, -0, NaN, Infinity, -Infinity, 1, -1, 6, 6.5, -2.5, 1e-30];
      // Every ordered pair, repeated past 16 so the host loops' vector bodies and the GPU's float4 paths see them too.
      const a: number[] = [],
        b: number[] = [];
      for (let r = 0; r < 3; ++r) for (const u of vals) for (const v of vals) (a.push(u), b.push(v));
      const at = tf.tensor1d(a),
        bt = tf.tensor1d(b);
      const f = (v: number) => (Object.is(v, -0) ? '-0' : String(v));
      const same = (got: tf.Tensor, want: number[], what: string) => {
        const g = got.dataSync();
        want.forEach((w, i) =>
          expect(Object.is(g[i], Math.fround(w)), `${what}[${i}] (${f(a[i])}, ${f(b[i])}): ${f(g[i])}, expected ${f(w)}`).to.equal(true),
        );
        got.dispose();
      };
      same(
        tf.relu6(at),
        a.map((u) => Math.min(Math.max(0, u), 6)),
        'relu6',
      );
      same(
        tf.clipByValue(at, -1, 6),
        a.map((u) => (u > 6 ? 6 : u < -1 ? -1 : u)),
        'clipByValue',
      );
      same(
        tf.maximum(at, bt),
        a.map((u, i) => Math.max(u, b[i])),
        'maximum',
      );
      same(
        tf.minimum(at, bt),
        a.map((u, i) => Math.min(u, b[i])),
        'minimum',
      );
      tf.dispose([at, bt]);
    });
    it('Prelu float32', async () => {
      await checkAgainstCpu(
        'Prelu',
        [randomInput([5, 9], 'float32', next()), randomInput([9], 'float32', next())],
        (x, a) => tf.prelu(x, a),
        {kernels: ['Prelu']},
      );
    });
    it('EluGrad (the gradient of tf.elu), both signs, zeros, odd and empty sizes', async () => {
      for (const shape of [[7], [33, 65], [0, 4], [1]]) {
        const x = randomInput(shape, 'float32', next(), {min: -4, max: 4});
        if (x.values.length > 3) x.values[3] = 0;
        await checkAgainstCpu(
          `EluGrad ${shape}`,
          [x, randomInput(shape, 'float32', next())],
          (t, dy) => tf.grad((u: tf.Tensor) => tf.elu(u))(t, dy),
          {kernels: ['EluGrad']},
        );
      }
    });
    it("relu's gradient in one native pass: the values of tfjs' Step then Multiply, NaN and infinities, odd, empty and unaligned", async () => {
      const specials = [0, -0, NaN, Infinity, -Infinity, 1e-30, -1e-30];
      for (const shape of [[7], [33, 65], [0, 4], [1], [4099]]) {
        const x = randomInput(shape, 'float32', next()),
          dy = randomInput(shape, 'float32', next());
        specials.forEach((v, i) => {
          if (i < x.values.length) x.values[i] = v;
          if (i + 2 < dy.values.length) dy.values[i + 2] = [Infinity, -Infinity, NaN][i % 3];
        });
        const grad = (t: tf.Tensor, d: tf.Tensor) => tf.grad((u: tf.Tensor) => tf.relu(u))(t, d);
        await checkAgainstCpu(`relu gradient ${shape}`, [x, dy], grad);
        // One float past the start: tensors that are views need not be 16-byte aligned.
        await checkAgainstCpu(`relu gradient ${shape}, views`, [x, dy], (t, d) =>
          grad(tf.slice(t.reshape([-1]), [Math.min(1, t.size)]), tf.slice(d.reshape([-1]), [Math.min(1, d.size)])),
        );
      }
      await tf.setBackend(wm.BACKEND_NAME);
      const x = tf.tensor1d([1, -2, 3]),
        dy = tf.tensor1d([4, 5, 6]);
      const {kernelNames} = await tf.profile(() => tf.grad((u: tf.Tensor) => tf.relu(u))(x, dy));
      if (nativeHere('ReluGrad')) expect(kernelNames).to.include('WholeMemoryReluGrad').and.not.include('Step');
      else expect(kernelNames).to.include('Step');
      tf.dispose([x, dy]);
    });
    it('FusedBatchNorm (tf.batchNorm): per-channel, full and size-1 parameters, with and without scale and offset, empty', async () => {
      const cases: [number[], number[]][] = [
        [[7, 5], [5]],
        [[2, 3, 4, 6], [6]],
        [
          [3, 4],
          [1, 4],
        ],
        [
          [3, 4],
          [3, 4],
        ],
        [[9, 3], [1]],
        [[0, 5], [5]],
        [[11], [11]],
      ];
      for (const [xs, ps] of cases) {
        for (const [withScale, withOffset] of [
          [true, true],
          [false, false],
          [true, false],
          [false, true],
        ]) {
          const inputs = [
            randomInput(xs, 'float32', next()),
            randomInput(ps, 'float32', next()),
            randomInput(ps, 'float32', next(), {min: 0.1, max: 4}),
          ];
          if (withScale) inputs.push(randomInput(ps, 'float32', next()));
          if (withOffset) inputs.push(randomInput(ps, 'float32', next()));
          await checkAgainstCpu(
            `FusedBatchNorm ${xs} ${ps} scale ${withScale} offset ${withOffset}`,
            inputs,
            (x, mean, variance, ...rest) =>
              tf.batchNorm(x, mean, variance, withOffset ? rest[rest.length - 1] : undefined, withScale ? rest[0] : undefined, 1e-3),
            {kernels: ['FusedBatchNorm'], rtol: 1e-5, atol: 1e-5},
          );
        }
      }
      // Parameters that only cycle (tfjs-backend-cpu reads entry i mod size): its answer, through it.
      await checkAgainstCpu(
        'FusedBatchNorm cycling [2] over [3, 4]',
        [
          randomInput([3, 4], 'float32', next()),
          randomInput([2], 'float32', next()),
          randomInput([2], 'float32', next(), {min: 0.1, max: 4}),
        ],
        (x, m, v) => tf.batchNorm(x, m, v),
      );
    });
    it('Select with full and row conditions', async () => {
      for (const dtype of ['float32', 'int32', 'bool'] as tf.DataType[]) {
        await checkAgainstCpu(
          `Select ${dtype}`,
          [randomInput([4, 7], 'bool', next()), randomInput([4, 7], dtype, next()), randomInput([4, 7], dtype, next())],
          tf.where,
          {kernels: ['Select']},
        );
        await checkAgainstCpu(
          `Select broadcast ${dtype}`,
          [randomInput([1, 3, 2], 'bool', next()), randomInput([4, 3, 2], dtype, next()), randomInput([4, 1, 2], dtype, next())],
          tf.where,
          {kernels: ['Select']},
        );
      }
    });
  });

  describe('creation and movement', () => {
    it('Fill, ZerosLike, OnesLike', async () => {
      for (const dtype of ['float32', 'int32', 'bool'] as tf.DataType[]) {
        await checkAgainstCpu(`Fill ${dtype}`, [], () => tf.fill([3, 5], dtype === 'bool' ? 1 : 7, dtype), {kernels: ['Fill']});
        await checkAgainstCpu(`ZerosLike ${dtype}`, [randomInput([0, 3], dtype, next())], tf.zerosLike, {kernels: ['ZerosLike']});
        await checkAgainstCpu(`OnesLike ${dtype}`, [randomInput([2, 9], dtype, next())], tf.onesLike, {kernels: ['OnesLike']});
      }
    });
    it('Reshape and Identity share the device buffer', async function () {
      gpuOnly(this);
      await tf.setBackend(wm.BACKEND_NAME);
      const x = tf.tensor(randomInput([6, 4], 'float32', next()).values, [6, 4]);
      const ptr = wm.backend().devicePtr(x);
      const y = tf.reshape(x, [3, 8]);
      expect(wm.backend().devicePtr(y)).to.equal(ptr);
      const before = wm.memoryInfo().deviceAllocations;
      const z = tf.clone(y);
      expect(wm.memoryInfo().deviceAllocations).to.equal(before);
      expect(Array.from(await z.data())).to.deep.equal(Array.from(await x.data()));
      tf.dispose([x, y, z]);
    });
    it('ExpandDims (a view, as Reshape), SplitV and AddN, every dtype they take', async () => {
      for (const dtype of ['float32', 'int32', 'bool'] as tf.DataType[]) {
        for (const [shape, dim] of [
          [[3, 5], 0],
          [[3, 5], 2],
          [[3, 5], -1],
          [[3, 5], -3],
          [[], 0],
          [[0, 4], 1],
        ] as [number[], number][]) {
          await checkAgainstCpu(`ExpandDims ${dtype} ${shape} ${dim}`, [randomInput(shape, dtype, next())], (x) => tf.expandDims(x, dim), {
            kernels: ['ExpandDims'],
          });
        }
        for (const [shape, splits, axis] of [
          [[6, 4], 3, 0],
          [[6, 4], [1, 3], 1],
          [[2, 7, 3], [2, -1, 4], 1],
          [[5, 0], [2, 3], 0],
          [[4, 9], [9], -1],
        ] as [number[], number | number[], number][]) {
          await checkAgainstCpu(
            `SplitV ${dtype} ${shape} ${splits} ${axis}`,
            [randomInput(shape, dtype, next())],
            (x) => tf.split(x, splits, axis),
            {kernels: ['SplitV']},
          );
        }
      }
      for (const dtype of ['float32', 'int32'] as tf.DataType[]) {
        for (const count of [1, 2, 5]) {
          const inputs = Array.from({length: count}, () => randomInput([13, 7], dtype, next()));
          await checkAgainstCpu(`AddN ${dtype} x${count}`, inputs, (...xs) => tf.addN(xs), {kernels: ['AddN']});
        }
      }
    });
    it('StridedSlice: strides of either sign, masks (begin, end, ellipsis, new axis, shrink), empty results, every dtype', async () => {
      const cases: [number[], number[], number[], number[], number, number, number, number, number][] = [
        // shape, begin, end, strides, beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask
        [[10], [1], [9], [2], 0, 0, 0, 0, 0],
        [[10], [8], [1], [-3], 0, 0, 0, 0, 0],
        [[10], [0], [0], [-1], 1, 1, 0, 0, 0],
        [[5, 6], [1, 0], [4, 6], [1, 2], 0, 0, 0, 0, 0],
        [[5, 6], [0, 5], [5, 0], [2, -2], 1, 0, 0, 0, 0],
        [[4, 5, 6], [1, 2], [3, 5], [1, 1], 0, 0, 1, 0, 0],
        [[4, 5, 6], [0, 2, 0], [4, 3, 6], [1, 1, 1], 0, 0, 0, 0, 2],
        [[4, 5], [0, 0, 1], [4, 0, 5], [1, 1, 2], 0, 0, 0, 2, 0],
        [[10], [2], [5], [-1], 0, 0, 0, 0, 0],
        [[0, 3], [0, 0], [0, 3], [1, 2], 0, 0, 0, 0, 0],
        [[3, 4], [0, 0], [3, 4], [1, 1], 0, 0, 0, 0, 0],
        [[6, 4], [1, 0], [6, 4], [1, 1], 0, 0, 0, 0, 0],
      ];
      for (const dtype of ['float32', 'int32', 'bool'] as tf.DataType[]) {
        for (const [shape, b, e, s, bm, em, elm, nam, sam] of cases) {
          await checkAgainstCpu(
            `StridedSlice ${dtype} ${shape} ${b}:${e}:${s} masks ${[bm, em, elm, nam, sam]}`,
            [randomInput(shape, dtype, next())],
            (x) => tf.stridedSlice(x, b, e, s, bm, em, elm, nam, sam),
            {kernels: ['StridedSlice']},
          );
        }
      }
    });
    it('Reverse over any set of axes, every dtype', async () => {
      const cases: [number[], number[]][] = [
        [[7], [0]],
        [[3, 5], [1]],
        [
          [3, 5],
          [0, 1],
        ],
        [
          [2, 3, 4],
          [0, 2],
        ],
        [[2, 3, 4], [-1]],
        [[0, 4], [0]],
        [[4, 1], [1]],
        [[2, 2], []],
      ];
      for (const dtype of ['float32', 'int32', 'bool'] as tf.DataType[]) {
        for (const [shape, axes] of cases) {
          await checkAgainstCpu(`Reverse ${dtype} ${shape} ${axes}`, [randomInput(shape, dtype, next())], (x) => tf.reverse(x, axes), {
            kernels: ['Reverse'],
          });
        }
      }
    });
    it('Transpose', async () => {
      const cases: [number[], number[]][] = [
        [
          [3, 5],
          [1, 0],
        ],
        [
          [2, 3, 4],
          [2, 0, 1],
        ],
        [
          [2, 3, 4, 5],
          [3, 1, 0, 2],
        ],
        [
          [0, 4],
          [1, 0],
        ],
        [
          [1, 7, 1],
          [2, 1, 0],
        ],
      ];
      for (const dtype of ['float32', 'int32', 'bool'] as tf.DataType[]) {
        for (const [shape, perm] of cases) {
          await checkAgainstCpu(`Transpose ${dtype} ${shape} ${perm}`, [randomInput(shape, dtype, next())], (x) => tf.transpose(x, perm), {
            kernels: ['Transpose'],
          });
        }
      }
    });
    it("gradients of Sum and Mean (ours, registered over tfjs-core's) against a float64 reference", async () => {
      const shape = [3, 4, 5];
      const x = tf.randomNormal(shape, 0, 1, 'float32', next());
      for (const axis of [0, 1, 2, -1, [0, 2], [1, 2], [0, 1, 2]] as (number | number[])[]) {
        for (const keepDims of [false, true]) {
          for (const op of ['sum', 'mean'] as const) {
            const axes = (Array.isArray(axis) ? axis : [axis]).map((a) => (a < 0 ? a + shape.length : a));
            const outShape = shape.filter((_, i) => !axes.includes(i));
            const w = Array.from({length: outShape.reduce((a, b) => a * b, 1)}, () => Math.random() * 2 - 1);
            const reduce = (t: tf.Tensor) => (op === 'sum' ? tf.sum(t, axis, keepDims) : tf.mean(t, axis, keepDims));
            const g = tf.grad((t: tf.Tensor) =>
              tf.sum(tf.mul(tf.reshape(reduce(t), outShape.length ? outShape : []), tf.tensor(w, outShape))),
            )(x);
            expect(g.shape).to.deep.equal(shape);
            const got = await g.data();
            const n = op === 'mean' ? axes.reduce((p, a) => p * shape[a], 1) : 1;
            for (let i = 0; i < got.length; ++i) {
              const idx = [Math.floor(i / 20), Math.floor(i / 5) % 4, i % 5];
              const kept = idx.filter((_, d) => !axes.includes(d));
              let flat = 0;
              kept.forEach((v, d) => (flat = flat * outShape[d] + v));
              expect(got[i], `${op} axis ${axis} keepDims ${keepDims} [${idx}]`).to.be.closeTo(w[flat] / n, 1e-6);
            }
            g.dispose();
          }
        }
      }
      // Empty input: an empty gradient, no error.
      const e = tf.grad((t: tf.Tensor) => tf.mean(tf.sum(t, 1)))(tf.zeros([0, 3]));
      expect(e.shape).to.deep.equal([0, 3]);
      x.dispose();
    });
    it('Slice', async () => {
      for (const dtype of ['float32', 'int32', 'bool'] as tf.DataType[]) {
        await checkAgainstCpu(`Slice ${dtype}`, [randomInput([5, 6, 7], dtype, next())], (x) => tf.slice(x, [1, 2, 3], [3, -1, 2]), {
          kernels: ['Slice'],
        });
        await checkAgainstCpu(`Slice empty ${dtype}`, [randomInput([5, 6], dtype, next())], (x) => tf.slice(x, [1, 2], [0, 2]), {
          kernels: ['Slice'],
        });
      }
    });
    it('Slice of whole rows on the GPU is a view: the same memory, valid after its parent is disposed or moved to another backend, neither written in place; unaligned starts copy', async function () {
      gpuOnly(this);
      await tf.setBackend(wm.BACKEND_NAME);
      const b = wm.backend();
      const before = wm.memoryInfo().deviceAllocations;
      const values = randomInput([64, 64], 'float32', next()).values as Float32Array;
      const x = tf.tensor2d(values, [64, 64]);
      const y = tf.slice(x, [4, 0], [6, 64]);
      expect(b.devicePtr(y), 'a view starts 4 rows into its parent').to.equal(b.devicePtr(x) + 4 * 64 * 4);
      expect(b.ownsDeviceData(x), 'the parent is not written in place while a view lives').to.equal(false);
      expect(b.ownsDeviceData(y), 'nor the view').to.equal(false);
      const [p0, p1] = tf.split(x, [32, 32]);
      expect(b.devicePtr(p1)).to.equal(b.devicePtr(x) + 32 * 64 * 4);
      x.dispose();
      // The parent's memory must not go back to the pool: fresh tensors of its size must not land on it.
      const others = Array.from({length: 4}, () => tf.fill([64, 64], -1));
      expect(Array.from(await y.data())).to.deep.equal(Array.from(values.subarray(4 * 64, 10 * 64)));
      expect(Array.from(await p1.data())).to.deep.equal(Array.from(values.subarray(32 * 64)));
      const flat = tf.reshape(p1, [32 * 64]);
      const z = tf.slice(flat, [3], [5]); // starts 12 bytes in: copied
      expect(b.devicePtr(z)).to.not.equal(b.devicePtr(p1) + 12);
      expect(Array.from(await z.data())).to.deep.equal(Array.from(values.subarray(32 * 64 + 3, 32 * 64 + 8)));
      tf.dispose([y, p0, p1, flat, z, ...others]);
      expect(wm.memoryInfo().deviceAllocations, 'views and parents all freed').to.equal(before);
      // A parent moved to another backend (tfjs frees its data here by force) leaves its view whole.
      const solo = tf.tensor2d(values, [64, 64]);
      const v = tf.slice(solo, [8, 0], [8, 64]);
      await tf.setBackend('cpu');
      const moved = tf.add(solo, 1);
      await tf.setBackend(wm.BACKEND_NAME);
      const fresh = Array.from({length: 4}, () => tf.fill([64, 64], -2));
      expect(Array.from(await v.data())).to.deep.equal(Array.from(values.subarray(8 * 64, 16 * 64)));
      tf.dispose([solo, v, moved, ...fresh]);
      expect(wm.memoryInfo().deviceAllocations, 'the moved parent freed with its view').to.equal(before);
    });
    it('PadV2 (and the gradient of Slice, which pads)', async () => {
      for (const dtype of ['float32', 'int32', 'bool'] as tf.DataType[]) {
        const value = dtype === 'bool' ? 1 : dtype === 'int32' ? -7 : 2.5;
        await checkAgainstCpu(
          `PadV2 ${dtype}`,
          [randomInput([5, 6, 7], dtype, next())],
          (x) =>
            tf.pad(
              x,
              [
                [1, 2],
                [0, 3],
                [4, 0],
              ],
              value,
            ),
          {kernels: ['PadV2']},
        );
        await checkAgainstCpu(`PadV2 1-D ${dtype}`, [randomInput([9], dtype, next())], (x) => tf.pad(x, [[3, 1]]), {kernels: ['PadV2']});
        await checkAgainstCpu(
          `PadV2 empty input ${dtype}`,
          [randomInput([0, 3], dtype, next())],
          (x) =>
            tf.pad(
              x,
              [
                [1, 1],
                [0, 2],
              ],
              value,
            ),
          {kernels: ['PadV2']},
        );
      }
      await checkAgainstCpu(
        'Slice gradient',
        [randomInput([31, 17], 'float32', next())],
        (x) => tf.grad((t: tf.Tensor) => tf.sum(tf.mul(tf.slice(t, [3, 2], [20, 9]), tf.slice(t, [3, 2], [20, 9]))))(x),
        {kernels: ['PadV2']},
      );
    });
    it('Concat along every axis, with empty inputs', async () => {
      for (const dtype of ['float32', 'int32', 'bool'] as tf.DataType[]) {
        for (const axis of [0, 1, 2]) {
          const shapes = [
            [2, 3, 4],
            [2, 3, 4],
            [2, 3, 4],
          ].map((s, i) => s.map((d, k) => (k === axis ? d + i : d)));
          await checkAgainstCpu(
            `Concat ${dtype} axis ${axis}`,
            shapes.map((s) => randomInput(s, dtype, next())),
            (...xs) => tf.concat(xs, axis),
            {kernels: ['Concat']},
          );
        }
        // More inputs than one GPU launch takes (eight), of odd widths, along rows and along columns.
        const widths = [1, 7, 0, 13, 2, 5, 9, 3, 1, 11, 4];
        await checkAgainstCpu(
          `Concat ${dtype} of ${widths.length} inputs along columns`,
          widths.map((w) => randomInput([5, w], dtype, next())),
          (...xs) => tf.concat(xs, 1),
          {kernels: ['Concat']},
        );
        await checkAgainstCpu(
          `Concat ${dtype} of ${widths.length} inputs along rows`,
          widths.map((w) => randomInput([w, 3], dtype, next())),
          (...xs) => tf.concat(xs, 0),
          {kernels: ['Concat']},
        );
        await checkAgainstCpu(
          `Concat ${dtype} with empty`,
          [randomInput([2, 0], dtype, next()), randomInput([2, 5], dtype, next()), randomInput([2, 3], dtype, next())],
          (...xs) => tf.concat(xs, 1),
          {kernels: ['Concat']},
        );
      }
    });
    it('Pack and Unpack', async () => {
      for (const dtype of ['float32', 'int32', 'bool'] as tf.DataType[]) {
        for (const axis of [0, 1, 2, -1]) {
          await checkAgainstCpu(
            `Pack ${dtype} axis ${axis}`,
            [0, 1, 2].map(() => randomInput([3, 5], dtype, next())),
            (...xs) => tf.stack(xs, axis),
            {kernels: ['Pack']},
          );
        }
        for (const axis of [0, 1, 2]) {
          await checkAgainstCpu(`Unpack ${dtype} axis ${axis}`, [randomInput([3, 4, 5], dtype, next())], (x) => tf.unstack(x, axis), {
            kernels: ['Unpack'],
          });
        }
      }
    });
    it('Tile', async () => {
      for (const dtype of ['float32', 'int32', 'bool'] as tf.DataType[]) {
        await checkAgainstCpu(`Tile ${dtype}`, [randomInput([2, 3, 1], dtype, next())], (x) => tf.tile(x, [3, 1, 4]), {kernels: ['Tile']});
        await checkAgainstCpu(`Tile zero reps ${dtype}`, [randomInput([2, 3], dtype, next())], (x) => tf.tile(x, [0, 2]), {
          kernels: ['Tile'],
        });
      }
    });
  });

  describe('reductions', () => {
    const shapes: [number[], (number | number[] | undefined)[]][] = [
      [[1001], [0, undefined]],
      [
        [7, 33],
        [0, 1, [0, 1]],
      ],
      [
        [3, 4, 5],
        [0, 1, 2, [0, 2], [1, 2]],
      ],
      [[2, 70000], [1]],
      [[300007], [0]],
      [[0, 5], [1]],
      [[200003, 3], [0]], // long sums: the host core adds fixed chunks over its threads
      // Leading or middle axes reduced in place on the GPU: columns split over 8 threads, and short ones (one thread each).
      [[3, 50, 700], [1]],
      [[40, 2000], [0]],
      [[2, 3000], [0]],
      [
        [5, 3, 333],
        [0, 1, [0, 1]],
      ],
      [[2, 0, 1500], [1]],
    ];
    const ops: [string, (x: tf.Tensor, axis: number | number[] | undefined, keepDims: boolean) => tf.Tensor, tf.DataType[]][] = [
      ['Sum', (x, a, k) => tf.sum(x, a, k), ['float32', 'int32']],
      ['Prod', (x, a, k) => tf.prod(x, a, k), ['float32', 'int32']],
      ['Max', (x, a, k) => tf.max(x, a, k), ['float32', 'int32']],
      ['Min', (x, a, k) => tf.min(x, a, k), ['float32', 'int32']],
      ['Mean', (x, a, k) => tf.mean(x, a, k), ['float32']],
      ['All', (x, a, k) => tf.all(x, a, k), ['bool']],
      ['Any', (x, a, k) => tf.any(x, a, k), ['bool']],
    ];
    for (const [name, f, dtypes] of ops) {
      for (const dtype of dtypes) {
        it(`${name} ${dtype} over axes, keepDims`, async () => {
          for (const [shape, axesList] of shapes) {
            if (name === 'Prod' && (shape[1] === 70000 || shape[0] === 300007)) continue; // overflows to inf/0 on both
            for (const axes of axesList) {
              for (const keep of [false, true]) {
                const range = name === 'Prod' ? {min: 0.5, max: 1.5} : {min: -100, max: 100};
                const input = randomInput(shape, dtype, next(), name === 'Prod' && dtype === 'int32' ? {min: -2, max: 2} : range);
                // Max, Min, Mean and All over an empty axis take tfjs-backend-cpu's values (its own kernels).
                const emptyAxis = [axes ?? []].flat().some((a) => shape[a] === 0) && ['Max', 'Min', 'Mean', 'All'].includes(name);
                await checkAgainstCpu(`${name} ${dtype} ${shape} axis=${axes} keep=${keep}`, [input], (x) => f(x, axes, keep), {
                  kernels: emptyAxis ? [] : [name],
                  rtol: 1e-4,
                  atol: 1e-3,
                });
              }
            }
          }
        });
      }
    }
    for (const name of ['ArgMax', 'ArgMin']) {
      const f = name === 'ArgMax' ? tf.argMax : tf.argMin;
      it(`${name} float32 and int32, with ties and NaN`, async () => {
        for (const dtype of ['float32', 'int32'] as tf.DataType[]) {
          for (const [shape, axis] of [
            [[1001], 0],
            [[7, 33], 1],
            [[7, 33], 0],
            [[3, 4, 5], 2],
            [[2, 70001], 1],
            [[40, 2000], 0],
            [[3, 50, 700], 1],
            [[3, 2100], 0],
          ] as [number[], number][]) {
            await checkAgainstCpu(
              `${name} ${dtype} ${shape} ${axis}`,
              [randomInput(shape, dtype, next(), {min: -3, max: 3})],
              (x) => f(x, axis),
              {kernels: [name]},
            );
          }
        }
        for (const axis of [1, 0]) {
          await checkAgainstCpu(
            `${name} NaN axis ${axis}`,
            [{shape: [3, 4], dtype: 'float32', values: Float32Array.from([NaN, 1, 2, 2, 1, NaN, 5, 5, 3, 3, 3, NaN])}],
            (x) => f(x, axis),
            {kernels: [name]},
          );
        }
      });
    }
    it('Softmax over the last axis', async () => {
      for (const shape of [
        [1, 7],
        [13, 1001],
        [4, 3, 10],
        [0, 5],
      ]) {
        await checkAgainstCpu(`Softmax ${shape}`, [randomInput(shape, 'float32', next(), {min: -20, max: 20})], (x) => tf.softmax(x), {
          kernels: ['Softmax'],
        });
      }
    });
  });

  describe('running sums and products', () => {
    it('Cumsum and Cumprod along every axis, exclusive and reversed, float32 and int32 (wrapping), odd and empty sizes', async () => {
      const cases: [number[], number][] = [
        [[7], 0],
        [[4, 9], 0],
        [[4, 9], 1],
        [[5, 1], 1],
        [[2, 3, 5], 1],
        [[2, 3, 5], 2],
        [[3, 0, 2], 1],
        [[1], 0],
      ];
      for (const [kernel, f] of [
        ['Cumsum', tf.cumsum],
        ['Cumprod', tf.cumprod],
      ] as const) {
        for (const dtype of ['float32', 'int32'] as tf.DataType[]) {
          for (const [shape, axis] of cases) {
            for (const [exclusive, reverse] of [
              [false, false],
              [true, false],
              [false, true],
              [true, true],
            ]) {
              // Products of float32 stay in range over a few terms near 1; int32 products wrap on purpose.
              const range =
                kernel === 'Cumprod' && dtype === 'float32' ? {min: 0.5, max: 1.5} : dtype === 'int32' ? {min: -50000, max: 50000} : {};
              await checkAgainstCpu(
                `${kernel} ${dtype} ${shape} axis ${axis} exclusive ${exclusive} reverse ${reverse}`,
                [randomInput(shape, dtype, next(), range)],
                (x) => f(x, axis, exclusive, reverse),
                {kernels: [kernel]},
              );
            }
          }
        }
      }
    });
    it('Cumsum over a long row (a scan, on the GPU by CUB): within float32 rounding of tfjs-backend-cpu, int32 exactly', async () => {
      for (const [dtype, n] of [
        ['float32', 100003],
        ['int32', 100003],
        ['float32', 5000],
      ] as [tf.DataType, number][]) {
        for (const [exclusive, reverse] of [
          [false, false],
          [true, true],
        ]) {
          // Terms of one sign keep the partial sums away from cancellation, so a relative bound holds.
          await checkAgainstCpu(
            `Cumsum long ${dtype} ${n} ${exclusive} ${reverse}`,
            [randomInput([2, n], dtype, next(), {min: 0, max: dtype === 'int32' ? 30000 : 1})],
            (x) => tf.cumsum(x, 1, exclusive, reverse),
            {kernels: ['Cumsum'], rtol: 1e-4, atol: 1e-3},
          );
        }
      }
    });
  });

  describe('top k', () => {
    it('TopK: values largest first and their positions, ties by position, few and many rows, long rows, float32 and int32, k = 0', async () => {
      const cases: [number[], number][] = [
        [[7], 3],
        [[4, 9], 9],
        [[3, 100], 5],
        [[2, 0], 0],
        [[5, 6], 0],
        [[33, 500], 10],
        [[2, 20000], 7],
        [[2, 3, 40], 4],
      ];
      for (const dtype of ['float32', 'int32'] as tf.DataType[]) {
        for (const [shape, k] of cases) {
          // Few distinct values: many ties, broken by position.
          for (const range of [
            {min: -1000, max: 1000},
            {min: 0, max: 3},
          ]) {
            const x = randomInput(shape, dtype, next(), range);
            if (dtype === 'float32' && range.max === 3) x.values.forEach((v, i) => (x.values[i] = Math.round(v)));
            await checkAgainstCpu(
              `TopK ${dtype} ${shape} k ${k} range ${range.max}`,
              [x],
              (t) => {
                const {values, indices} = tf.topk(t, k);
                return [values, indices];
              },
              {kernels: ['TopK']},
            );
          }
        }
      }
      // sorted: false may order the same set differently: compared sorted.
      await checkAgainstCpu(
        'TopK unsorted',
        [randomInput([6, 50], 'float32', next())],
        (t) => tf.topk(tf.topk(t, 8, false).values, 8).values,
        {kernels: ['TopK']},
      );
    });
    it('SearchSorted: left and right, ties, values outside the row, NaN, one-entry, many and long rows, float32 and int32 (tf.searchSorted refuses empty inputs)', async () => {
      const cases: [number[], number[]][] = [
        [[9], [5]],
        [
          [3, 17],
          [3, 40],
        ],
        [
          [2, 1000],
          [2, 333],
        ],
        [
          [1, 1],
          [1, 4],
        ],
        [
          [4, 6],
          [4, 1],
        ],
        [
          [65, 3],
          [65, 2],
        ],
      ];
      for (const dtype of ['float32', 'int32'] as tf.DataType[]) {
        for (const [seqShape, valShape] of cases) {
          // Few distinct values: many ties; values reach past both ends of the rows.
          const seq = randomInput(seqShape, dtype, next(), {min: -5, max: 5});
          const rowLen = seqShape[seqShape.length - 1];
          for (let r = 0; rowLen > 0 && r < seq.values.length / rowLen; ++r) {
            const row = Array.from(seq.values.subarray(r * rowLen, (r + 1) * rowLen))
              .map((v) => Math.round(v))
              .sort((a, b) => a - b);
            seq.values.set(row, r * rowLen);
          }
          const vals = randomInput(valShape, dtype, next(), {min: -7, max: 7});
          if (dtype === 'float32' && vals.values.length > 1) vals.values[0] = NaN;
          for (const side of ['left', 'right'] as const) {
            await checkAgainstCpu(
              `SearchSorted ${dtype} ${seqShape} ${valShape} ${side}`,
              [seq, vals],
              (s, v) => tf.searchSorted(s, v, side),
              {
                kernels: ['SearchSorted'],
              },
            );
          }
        }
      }
    });
  });

  describe('matrix products and indexing', () => {
    it('BatchMatMul with transposes, batches, broadcast batch and odd sizes', async () => {
      const cases: [number[], number[], boolean, boolean][] = [
        [[4096, 128], [128, 128], false, false],
        [[3, 5], [5, 7], false, false],
        [[5, 3], [5, 7], true, false],
        [[3, 5], [7, 5], false, true],
        [[5, 3], [7, 5], true, true],
        [[4, 17, 9], [4, 9, 13], false, false],
        [[4, 17, 9], [9, 13], false, false],
        [[17, 9], [4, 9, 13], false, false],
        [[2, 0], [0, 3], false, false],
        [[1, 1], [1, 1], false, false],
        [[33, 65], [65, 31], false, false],
        // The host core's tiles: 12 and 6 rows by 32 and 16 columns, ragged edges, several k panels, A and B read transposed in place.
        [[37, 515], [515, 45], false, false],
        [[515, 37], [45, 515], true, true],
        [[515, 29], [515, 16], true, false],
        [[29, 515], [7, 515], false, true],
        [[8, 29, 300], [8, 300, 50], false, false],
        [[8, 300, 29], [8, 50, 300], true, true],
        [[3, 0], [0, 40], false, false],
        // 8 columns or fewer (a product into a few classes): tiles of 12 rows by 8 columns.
        [[37, 300], [300, 7], false, false],
        [[300, 37], [5, 300], true, true],
        [[2708, 16], [16, 8], false, false],
        [[300, 13], [300, 1], true, false],
        // Ragged 8-column strips stored in pieces (7 = 4 + 2 + 1, 6, 5, 3), added to over several k panels.
        [[37, 600], [600, 7], false, false],
        [[37, 600], [600, 6], false, false],
        [[600, 37], [5, 600], true, true],
        [[37, 600], [600, 3], false, false],
        // Tile heights balanced (16 rows: 8 + 8; 25: 9 + 8 + 8) and a row-major A packed per row tile (rows of 1,024
        // floats, several strips).
        [[16, 300], [300, 40], false, false],
        [[25, 70], [70, 33], false, false],
        [[29, 1024], [1024, 70], false, false],
      ];
      for (const [sa, sb, ta, tb] of cases) {
        // A float32 dot product of k terms of order 1 is off by ~sqrt(k) roundings whatever its value: an entry that
        // nearly cancels (k = 515: -0.0506 against -0.0508) needs an absolute tolerance that grows with k.
        const k = ta ? sa[sa.length - 2] : sa[sa.length - 1];
        await checkAgainstCpu(
          `BatchMatMul ${sa} ${sb} ${ta} ${tb}`,
          [randomInput(sa, 'float32', next()), randomInput(sb, 'float32', next())],
          (a, b) => tf.matMul(a, b, ta, tb),
          {kernels: ['BatchMatMul'], rtol: 1e-4, atol: 1e-4 * Math.max(1, Math.sqrt(k) / 8)},
        );
      }
    });
    it("BatchMatMul of a GNN layer's shapes: long k split over blocks (weight gradients), tiles cut by odd edges", async () => {
      // On the GPU single products up to ~1 GFLOP run on our own tiles; k >= 1024 with few output tiles splits k.
      const cases: [number[], number[], boolean, boolean][] = [
        [[3000, 33], [3000, 17], true, false],
        [[2049, 130], [2049, 16], true, false],
        [[65, 5000], [16, 5000], false, true],
        [[5471, 128], [128, 128], false, false],
        [[1024, 16], [128, 16], false, true],
        [[70, 1030], [1030, 3], false, false],
        [[1030, 70], [3, 1030], true, true],
        // k long enough for the host core to split it into chunks (8192 and more), with a ragged last chunk.
        [[12289, 21], [12289, 9], true, false],
        [[2, 9000, 5], [2, 9000, 3], true, false],
        // A small result splits k from 1,024 (chunks of 512) in every layout: a few classes' Hᵀ·dY and its kin.
        [[2708, 16], [2708, 7], true, false],
        [[16, 2708], [7, 2708], false, true],
        [[5, 1500], [1500, 3], false, false],
        [[1500, 5], [3, 1500], true, true],
        [[3, 1100, 4], [3, 1100, 5], true, false],
        // More than 65,535 tiles of rows, then of columns (the grid's limits; without cuBLAS too).
        [[4200000, 1], [1, 2], false, false],
        [[2, 1], [1, 4200000], false, false],
      ];
      for (const [sa, sb, ta, tb] of cases) {
        // Sums over thousands of terms: float32 rounding grows with k.
        const k = ta ? sa[sa.length - 2] : sa[sa.length - 1]; // the contracted axis (batched shapes too)
        await checkAgainstCpu(
          `BatchMatMul ${sa} ${sb} ${ta} ${tb}`,
          [randomInput(sa, 'float32', next()), randomInput(sb, 'float32', next())],
          (a, b) => tf.matMul(a, b, ta, tb),
          {kernels: ['BatchMatMul'], rtol: 1e-4, atol: 1e-6 * k},
        );
      }
    });
    it("_FusedMatMul (tf.fused.matMul, tfjs-layers' Dense): every activation, bias shapes, transposes, batches, empty; its gradient", async () => {
      const products: [number[], number[], boolean, boolean][] = [
        [[3, 5], [5, 7], false, false],
        [[5, 3], [7, 5], true, true],
        [[33, 65], [65, 31], false, false],
        [[4, 17, 9], [4, 9, 13], false, false],
        [[4, 17, 9], [13, 9], false, true],
        [[0, 5], [5, 3], false, false],
        [[6, 8], [8, 12], false, false],
        [[2, 5, 3], [2, 3, 8], false, false], // rows of whole float4s (the GPU epilogue's fast path)
      ];
      const activations: tf.fused.Activation[] = ['linear', 'relu', 'relu6', 'elu', 'sigmoid', 'leakyrelu', 'prelu'];
      for (const [sa, sb, ta, tb] of products) {
        const out = [
          ...(sa.length > 2 ? [sa[0]] : []),
          ta ? sa[sa.length - 1] : sa[sa.length - 2],
          tb ? sb[sb.length - 2] : sb[sb.length - 1],
        ];
        const n = out[out.length - 1];
        for (const biasShape of [undefined, [n], [1], out.slice(-2)]) {
          for (const activation of activations) {
            const inputs = [randomInput(sa, 'float32', next()), randomInput(sb, 'float32', next())];
            if (biasShape) inputs.push(randomInput(biasShape, 'float32', next()));
            if (activation === 'prelu') inputs.push(randomInput([n], 'float32', next(), {min: 0, max: 0.5}));
            const what = `_FusedMatMul ${sa} ${sb} ${ta} ${tb} bias ${biasShape ?? 'none'} ${activation}`;
            await checkAgainstCpu(
              what,
              inputs,
              (a, b, ...rest) => {
                const bias = biasShape ? rest[0] : undefined;
                const preluActivationWeights = activation === 'prelu' ? rest[rest.length - 1] : undefined;
                return tf.fused.matMul({
                  a,
                  b,
                  transposeA: ta,
                  transposeB: tb,
                  bias,
                  activation,
                  preluActivationWeights,
                  leakyreluAlpha: 0.15,
                });
              },
              {kernels: ['_FusedMatMul', 'BatchMatMul'], rtol: 1e-4, atol: 1e-4},
            );
          }
        }
      }
      // Gradients: tfjs fuses a linear activation while taping, so the kernel runs under tf.grads.
      await checkAgainstCpu(
        '_FusedMatMul gradient',
        [randomInput([9, 6], 'float32', next()), randomInput([6, 5], 'float32', next()), randomInput([5], 'float32', next())],
        (a, b, bias) =>
          tf.grads((x: tf.Tensor, w: tf.Tensor, c: tf.Tensor) =>
            tf.sum(tf.square(tf.fused.matMul({a: x as tf.Tensor2D, b: w as tf.Tensor2D, bias: c, activation: 'linear'}))),
          )([a, b, bias]),
        {kernels: ['_FusedMatMul', 'BatchMatMul'], rtol: 1e-4, atol: 1e-4},
      );
    });
    it('GatherNd: rows of 1-3 indices into params of any rank, every dtype, empty; a row outside params named', async () => {
      const cases: [number[], number[]][] = [
        [
          [6, 4],
          [5, 1],
        ],
        [
          [6, 4],
          [3, 2],
        ],
        [
          [5, 4, 3],
          [2, 7, 2],
        ],
        [
          [3, 4, 5],
          [4, 3],
        ],
        [[7], [0, 1]],
        [
          [2, 3],
          [1, 2],
        ],
      ];
      for (const dtype of ['float32', 'int32', 'bool'] as tf.DataType[]) {
        for (const [ps, is] of cases) {
          const k = is[is.length - 1];
          const idx = randomInput(is, 'int32', next(), {min: 0, max: 1});
          // Each component within its own axis of params.
          idx.values.forEach((_, i) => (idx.values[i] = Math.floor((((i * 7919 + 13) % 1000) / 1000) * ps[i % k])));
          await checkAgainstCpu(`GatherNd ${dtype} ${ps} ${is}`, [randomInput(ps, dtype, next()), idx], (p, i) => tf.gatherND(p, i), {
            kernels: ['GatherNd'],
          });
        }
      }
      await tf.setBackend(wm.BACKEND_NAME);
      const p = tf.tensor2d([
        [1, 2],
        [3, 4],
      ]);
      expect(() =>
        tf.gatherND(
          p,
          tf.tensor2d(
            [
              [1, 1],
              [2, 0],
            ],
            [2, 2],
            'int32',
          ),
        ),
      ).to.throw(/GatherNd: indices do not index into params of shape \[2,2\]/);
      expect(Array.from(tf.gatherND(p, tf.tensor2d([[1, 0]], [1, 2], 'int32')).dataSync())).to.deep.equal([3]);
      p.dispose();
    });
    it('Einsum: products as one matmul (batched, broadcast, attention scores, pre-summed dims), others by broadcast', async () => {
      const cases: [string, number[][]][] = [
        [
          'ij,jk->ik',
          [
            [5, 7],
            [7, 3],
          ],
        ],
        [
          'bij,bjk->bik',
          [
            [2, 4, 6],
            [2, 6, 5],
          ],
        ],
        [
          'bhnd,bhmd->bhnm',
          [
            [2, 3, 5, 4],
            [2, 3, 7, 4],
          ],
        ],
        ['ij,j->i', [[6, 9], [9]]],
        ['i,j->ij', [[4], [5]]],
        ['i,i->', [[11], [11]]],
        [
          'ij,ij->ij',
          [
            [3, 5],
            [3, 5],
          ],
        ],
        [
          'bij,jk->bik',
          [
            [3, 2, 4],
            [4, 6],
          ],
        ],
        [
          'ijk,kj->i',
          [
            [3, 4, 5],
            [5, 4],
          ],
        ],
        [
          'nd,dn->',
          [
            [0, 3],
            [3, 0],
          ],
        ],
        [
          'ik,kj->ij',
          [
            [3, 0],
            [0, 4],
          ],
        ],
        ['ij->ji', [[4, 6]]],
        ['ij->', [[4, 6]]],
        ['ijk->ki', [[2, 3, 4]]],
        ['ijk->j', [[2, 3, 4]]],
      ];
      for (const [eq, shapes] of cases) {
        await checkAgainstCpu(
          `Einsum ${eq}`,
          shapes.map((s) => randomInput(s, 'float32', next())),
          (...xs) => tf.einsum(eq, ...xs),
          {kernels: ['Einsum'], rtol: 1e-4, atol: 1e-5},
        );
      }
      // An index in one operand only and not in the output is summed (tfjs-backend-cpu leaves 'ij,ik->i' as [4, 5]).
      const a = randomInput([4, 3], 'float32', next()),
        b = randomInput([4, 5], 'float32', next());
      await checkAgainstCpu('Einsum ij,ik->i', [a, b], (x, y) => tf.einsum('ij,ik->i', x, y), {
        kernels: ['Einsum'],
        rtol: 1e-5,
        atol: 1e-5,
      }).then(
        () => expect.fail('tfjs-backend-cpu now sums it: compare with it directly'),
        (e: Error) => expect(e.message).to.match(/shape/),
      );
      await tf.setBackend(wm.BACKEND_NAME);
      const got = await tf.einsum('ij,ik->i', tf.tensor(a.values, a.shape), tf.tensor(b.values, b.shape)).data();
      const want = Array.from({length: 4}, (_, i) => {
        let sa = 0,
          sb = 0;
        for (let j = 0; j < 3; ++j) sa += a.values[i * 3 + j];
        for (let k = 0; k < 5; ++k) sb += b.values[i * 5 + k];
        return sa * sb;
      });
      got.forEach((v, i) => expect(v).to.be.closeTo(want[i], 1e-4 * (1 + Math.abs(want[i]))));
    });
    it('MirrorPad reflect and symmetric, every dtype, up to the largest padding each mode allows', async () => {
      for (const dtype of ['float32', 'int32', 'bool'] as tf.DataType[]) {
        for (const mode of ['reflect', 'symmetric'] as const) {
          const e = mode === 'reflect' ? 1 : 0;
          const cases: [number[], [number, number][]][] = [
            [[7], [[2, 3]]],
            [
              [4, 5],
              [
                [3 - 1 + e, 1],
                [0, 4 - 1 + e],
              ],
            ],
            [
              [2, 3, 4],
              [
                [1, 1 - 1 + e],
                [2 - 1 + e, 0],
                [1, 3],
              ],
            ],
            [
              [1, 5],
              [
                [0, 0],
                [2, 2],
              ],
            ],
            [
              [3, 3],
              [
                [0, 0],
                [0, 0],
              ],
            ],
          ];
          for (const [shape, pads] of cases) {
            await checkAgainstCpu(
              `MirrorPad ${mode} ${dtype} ${shape} ${JSON.stringify(pads)}`,
              [randomInput(shape, dtype, next())],
              (x) => tf.mirrorPad(x, pads, mode),
              {kernels: ['MirrorPad']},
            );
          }
        }
      }
    });
    it('GatherV2 over axes, with batchDims, every dtype', async () => {
      for (const dtype of ['float32', 'int32', 'bool'] as tf.DataType[]) {
        await checkAgainstCpu(
          `Gather rows ${dtype}`,
          [randomInput([50, 7], dtype, next()), randomInput([33], 'int32', next(), {min: 0, max: 49})],
          (x, i) => tf.gather(x, i),
          {kernels: ['GatherV2']},
        );
        await checkAgainstCpu(
          `Gather 128-wide ${dtype}`,
          [randomInput([300, 128], dtype, next()), randomInput([4, 65], 'int32', next(), {min: 0, max: 299})],
          (x, i) => tf.gather(x, i),
          {kernels: ['GatherV2']},
        );
        await checkAgainstCpu(
          `Gather axis 1 ${dtype}`,
          [randomInput([3, 10, 5], dtype, next()), randomInput([6], 'int32', next(), {min: 0, max: 9})],
          (x, i) => tf.gather(x, i, 1),
          {kernels: ['GatherV2']},
        );
        await checkAgainstCpu(
          `Gather batchDims ${dtype}`,
          [randomInput([4, 10, 3], dtype, next()), randomInput([4, 6], 'int32', next(), {min: 0, max: 9})],
          (x, i) => tf.gather(x, i, 1, 1),
          {kernels: ['GatherV2']},
        );
        // Rows of whole 16-byte vectors, several outer slices and batches (the GPU's uint4 copies).
        await checkAgainstCpu(
          `Gather axis 1, 8 wide ${dtype}`,
          [randomInput([3, 10, 8], dtype, next()), randomInput([7], 'int32', next(), {min: 0, max: 9})],
          (x, i) => tf.gather(x, i, 1),
          {kernels: ['GatherV2']},
        );
        await checkAgainstCpu(
          `Gather batchDims, 4 wide ${dtype}`,
          [randomInput([5, 10, 4], dtype, next()), randomInput([5, 3], 'int32', next(), {min: 0, max: 9})],
          (x, i) => tf.gather(x, i, 1, 1),
          {kernels: ['GatherV2']},
        );
        await checkAgainstCpu(
          `Gather empty ${dtype}`,
          [randomInput([5, 3], dtype, next()), randomInput([0], 'int32', next())],
          (x, i) => tf.gather(x, i),
          {kernels: ['GatherV2']},
        );
      }
    });
    it('GatherV2 rejects an out-of-range index, from host and from device indices', async () => {
      await tf.setBackend(wm.BACKEND_NAME);
      const x = tf.tensor2d(randomInput([5, 3], 'float32', next()).values, [5, 3]);
      const hostIdx = tf.tensor1d([0, 5, 1], 'int32');
      const dataIds = tf.engine().backend.numDataIds();
      expect(() => tf.gather(x, hostIdx)).to.throw(/GatherV2: the index value 5 is not in \[0, 4\]/);
      expect(tf.engine().backend.numDataIds(), 'a rejected gather leaves no buffer behind').to.equal(dataIds);
      // Indices computed on the GPU have no host copy: the kernel reports.
      const devIdx = tf.add(tf.tensor1d([0, 1, 2], 'int32'), tf.scalar(5, 'int32'));
      expect(wm.isOnDevice(devIdx)).to.equal(wm.deviceInfo().gpu);
      expect(() => tf.gather(x, devIdx)).to.throw(/GatherV2: the index value 5 is not in \[0, 4\]/);
      // Indices are checked once per tensor and row count: a rejected tensor stays rejected, a
      // tensor valid for 5 rows is checked again against 3, and the valid ones still gather right.
      expect(() => tf.gather(x, hostIdx)).to.throw(/index value 5/);
      const ok = tf.tensor1d([4, 0, 2, 4], 'int32');
      for (let k = 0; k < 2; ++k) {
        const g = tf.gather(x, ok);
        expect(Array.from(g.dataSync())).to.deep.equal([12, 13, 14, 0, 1, 2, 6, 7, 8, 12, 13, 14].map((i) => x.dataSync()[i]));
        g.dispose();
      }
      const short = tf.slice(x, [0, 0], [3, 3]);
      expect(() => tf.gather(short, ok)).to.throw(/GatherV2: the index value 4 is not in \[0, 2\]/);
      tf.dispose([x, hostIdx, devIdx, ok, short]);
    });
    it('long rows over the host threads: a segment sum of 20,000 rows, a tile and a broadcast of one value to 180,000', async () => {
      await checkAgainstCpu(
        'UnsortedSegmentSum 20000 rows',
        [randomInput([20000, 8], 'float32', next()), randomInput([20000], 'int32', next(), {min: -2, max: 39})],
        (x, s) => tf.unsortedSegmentSum(x, s as tf.Tensor1D, 40),
        {kernels: ['UnsortedSegmentSum'], rtol: 1e-4, atol: 3e-4},
      ); // ~500 float32 additions per segment against tfjs' double sums
      for (const dtype of ['float32', 'int32', 'bool'] as tf.DataType[]) {
        await checkAgainstCpu(`Tile [1, 1] to [600, 300] ${dtype}`, [randomInput([1, 1], dtype, next())], (x) => tf.tile(x, [600, 300]), {
          kernels: ['Tile'],
        });
      }
      await checkAgainstCpu(
        'gradient of a sum (a broadcast of one value)',
        [randomInput([600, 300], 'float32', next())],
        (x) => tf.grad((a: tf.Tensor) => tf.sum(a))(x),
        {kernels: ['Tile']},
      );
    });
    it('UnsortedSegmentSum float32 and int32', async () => {
      for (const dtype of ['float32', 'int32'] as tf.DataType[]) {
        // Rows of whole float4s (one vector atomic each on the GPU) and rows that are not.
        await checkAgainstCpu(
          `UnsortedSegmentSum 128 wide ${dtype}`,
          [randomInput([300, 128], dtype, next()), randomInput([300], 'int32', next(), {min: 0, max: 40})],
          (x, s) => tf.unsortedSegmentSum(x, s as tf.Tensor1D, 41),
          {kernels: ['UnsortedSegmentSum'], rtol: 1e-5, atol: 1e-5},
        );
        await checkAgainstCpu(
          `UnsortedSegmentSum ${dtype}`,
          [randomInput([40, 6], dtype, next()), randomInput([40], 'int32', next(), {min: 0, max: 9})],
          (x, s) => tf.unsortedSegmentSum(x, s as tf.Tensor1D, 10),
          {kernels: ['UnsortedSegmentSum'], rtol: 1e-5, atol: 1e-5},
        );
        await checkAgainstCpu(
          `UnsortedSegmentSum 1-D ${dtype}`,
          [randomInput([101], dtype, next()), randomInput([101], 'int32', next(), {min: 0, max: 6})],
          (x, s) => tf.unsortedSegmentSum(x, s as tf.Tensor1D, 7),
          {kernels: ['UnsortedSegmentSum'], rtol: 1e-5, atol: 1e-5},
        );
      }
    });
    it('ScatterNd with duplicate indices', async () => {
      for (const dtype of ['float32', 'int32'] as tf.DataType[]) {
        await checkAgainstCpu(
          `ScatterNd ${dtype}`,
          [randomInput([30, 2], 'int32', next(), {min: 0, max: 3}), randomInput([30, 5], dtype, next())],
          (i, u) => tf.scatterND(i, u, [4, 4, 5]),
          {kernels: ['ScatterNd'], rtol: 1e-5, atol: 1e-5},
        );
        // Rows of 3,000 (the CPU core splits the columns over its threads), many updates per row.
        await checkAgainstCpu(
          `ScatterNd ${dtype} wide rows`,
          [randomInput([50, 1], 'int32', next(), {min: 0, max: 5}), randomInput([50, 3000], dtype, next())],
          (i, u) => tf.scatterND(i, u, [6, 3000]),
          {kernels: ['ScatterNd'], rtol: 1e-5, atol: 1e-5},
        );
      }
      await tf.setBackend(wm.BACKEND_NAME);
      expect(() => tf.scatterND(tf.tensor2d([[0], [9]], [2, 1], 'int32'), tf.ones([2, 3]), [4, 3])).to.throw(/Invalid indices/);
    });
    it('OneHot with out-of-range indices', async () => {
      for (const dtype of ['float32', 'int32'] as tf.DataType[]) {
        await checkAgainstCpu(
          `OneHot ${dtype}`,
          [randomInput([3, 11], 'int32', next(), {min: -1, max: 8})],
          (i) => tf.oneHot(i, 7, 3, -2, dtype),
          {kernels: ['OneHot']},
        );
      }
    });
  });

  it('leaves no device memory behind', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const before = wm.memoryInfo();
    for (let i = 0; i < 50; ++i) {
      tf.tidy(() => {
        tf.sum(tf.matMul(tf.randomNormal([64, 32]), tf.randomNormal([32, 16])));
      });
    }
    const after = wm.memoryInfo();
    expect(after.numTensors).to.equal(before.numTensors);
    expect(after.deviceBytesInUse).to.equal(before.deviceBytesInUse);
  });
});

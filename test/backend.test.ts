// The backend itself, on whatever this machine has (CPU path in CI, GPU on
// the GPU machines): registration, reads, disposal, memory, bad input.
import {spawnSync} from 'child_process';
import * as os from 'os';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';
import * as tfl from '@tensorflow/tfjs-layers';
import {expect} from 'chai';

import * as wm from '../src/index';
import {knownValid, markValid} from '../src/backend/index_validation';
import {writtenOp} from '../src/gradients/written_op';
import {tidyValues} from '../src/util/tidy_values';
import {nativeHere, randomInput} from './helpers';

const r2s = (r: {stdout: string; stderr: string}) => r.stdout + r.stderr;

describe('wholememory backend', () => {
  before(async () => {
    expect(await tf.setBackend(wm.BACKEND_NAME)).to.equal(true);
  });

  it("tidyValues: a tensor's values made in a tidy scope, nothing kept; a result too large for tf.tidy's walk of returned arrays", () => {
    const before = tf.memory().numTensors;
    const v = tidyValues(() => tf.add(tf.range(0, 1000, 1, 'int32'), tf.scalar(3, 'int32')));
    expect(v).to.be.instanceOf(Int32Array);
    expect(Array.from(v.subarray(0, 3))).to.deep.equal([3, 4, 5]);
    expect(v[999]).to.equal(1002);
    expect(tf.memory().numTensors).to.equal(before);
    // 40M values: tf.tidy returning them walks every element (4M: 482 ms against 7 ms read once, CPU box); tidyValues reads them once.
    const big = tidyValues(() => tf.fill([40_000_000], 2));
    expect(big.length).to.equal(40_000_000);
    expect(big[39_999_999]).to.equal(2);
    expect(tf.memory().numTensors).to.equal(before);
  });

  it('is the default backend once imported', () => {
    expect(tf.engine().backendNames()).to.include(wm.BACKEND_NAME);
    expect(tf.getBackend()).to.equal(wm.BACKEND_NAME);
  });

  it('says whether it uses a GPU, and why not', () => {
    const info = wm.deviceInfo();
    if (info.gpu) {
      expect(info.name).to.be.a('string');
    } else {
      expect(info.reason.length).to.be.greaterThan(0);
    }
  });

  it("sizes its CPU thread pool from WM_THREADS, else the CPUs it may use over the launcher's local ranks", () => {
    // Fresh processes: the pool is sized once per process.
    const threads = (env: NodeJS.ProcessEnv) => {
      const r = spawnSync(
        process.execPath,
        [
          '-e',
          `const wm = require(${JSON.stringify(path.resolve(__dirname, '..', 'src', 'index'))});
        try { console.log('threads', wm.deviceInfo().hostThreads); } catch (e) { console.log('error', e.message); }`,
        ],
        {encoding: 'utf8', env: {...process.env, WM_THREADS: '', LOCAL_WORLD_SIZE: '', ...env}},
      );
      return r.stdout.trim().split('\n').pop()!;
    };
    const cpus = os.availableParallelism();
    expect(threads({WM_THREADS: '3'})).to.equal('threads 3');
    expect(threads({})).to.equal(`threads ${Math.min(cpus, 16)}`);
    expect(threads({LOCAL_WORLD_SIZE: String(cpus * 2)})).to.equal('threads 1');
    expect(threads({LOCAL_WORLD_SIZE: '2'})).to.equal(`threads ${Math.min(16, Math.max(1, Math.floor(cpus / 2)))}`);
    expect(threads({WM_THREADS: 'many'})).to.equal("error environment: WM_THREADS must be an integer from 1 to 1024, got 'many'");
    expect(threads({WM_THREADS: '0'})).to.match(/^error environment: WM_THREADS must be an integer from 1 to 1024/);
    // How long idle threads poll before they sleep: checked when the pool starts.
    expect(threads({WM_THREADS: '2', WM_SPIN_US: '0'})).to.equal('threads 2');
    expect(threads({WM_SPIN_US: 'long'})).to.equal("error environment: WM_SPIN_US must be an integer from 0 to 10000, got 'long'");
  });

  it('host kernel outputs are written whole: a product and a scatter with outputs left unwritten filled with NaN first (WM_HOST_POISON), with and without polling threads', () => {
    const run = (env: NodeJS.ProcessEnv) =>
      spawnSync(
        process.execPath,
        [
          '-e',
          `const tf = require('@tensorflow/tfjs-core');
        const wm = require(${JSON.stringify(path.resolve(__dirname, '..', 'src', 'index'))});
        tf.setBackend('wholememory').then((ok) => {
          if (!ok) { console.log('no backend'); return; }
          const a = tf.ones([300, 40]), b = tf.ones([40, 7]);
          const p = tf.matMul(a, b).dataSync();
          const s = tf.scatterND(tf.tensor2d([[1], [3]], [2, 1], 'int32'), tf.ones([2, 2000]), [5, 2000]).dataSync();
          console.log('sums', p.reduce((x, y) => x + y, 0), s.reduce((x, y) => x + y, 0), s.some((v) => Number.isNaN(v)));
        });`,
        ],
        {encoding: 'utf8', env: {...process.env, TFJS_WHOLEMEMORY_DEVICE: 'cpu', ...env}},
      );
    for (const env of [{WM_HOST_POISON: '1'}, {WM_HOST_POISON: '1', WM_THREADS: '2', WM_SPIN_US: '0'}]) {
      const r = run(env);
      expect(r.stdout.trim().split('\n').pop(), r.stderr).to.equal(`sums ${300 * 7 * 40} 4000 false`);
    }
    const bad = run({WM_HOST_HEAP: 'huge'});
    expect(`${r2s(bad)}`).to.match(/WM_HOST_HEAP must be 'reuse' or 'system', got 'huge'/);
  });

  it("keeps a disposed tensor's host buffer for the next output of its size, never one a reader holds or a second tensor shares; emptyCache lets them go", () => {
    const r = spawnSync(
      process.execPath,
      [
        '-e',
        `const tf = require('@tensorflow/tfjs-core');
        const wm = require(${JSON.stringify(path.resolve(__dirname, '..', 'src', 'index'))});
        tf.setBackend('wholememory').then(async (ok) => {
          if (!ok) { console.log('no backend'); return; }
          const out = {};
          const kept = () => tf.memory().numBytesKeptOnHost;
          const a = tf.randomNormal([300, 40], 0, 1, 'float32', 1), b = tf.randomNormal([40, 7], 0, 1, 'float32', 2);
          const start = kept();
          let y = tf.matMul(a, b);
          y.dispose();
          out.keptAfterDispose = kept() - start;
          y = tf.matMul(a, b);
          out.takenBack = kept() === start;
          y.dispose();
          // Read arrays keep their values after the tensor goes and its size is made again ([256, 8]: 8 KiB,
          // a class's own size, so the reader gets the pooled buffer itself).
          const c = tf.randomNormal([256, 40], 0, 1, 'float32', 3), d = tf.randomNormal([40, 8], 0, 1, 'float32', 4);
          const churn = () => { for (let i = 0; i < 4; ++i) tf.dispose(tf.tidy(() => tf.matMul(c, d).mul(i + 3))); };
          churn();
          const held = kept();
          y = tf.matMul(c, d);
          const v = y.dataSync(), want = Array.from(v);
          y.dispose();
          out.readNotKept = kept() === held - 8192;
          churn();
          out.readIntact = want.every((x, i) => x === v[i]);
          y = tf.matMul(c, d);
          const w = await y.data(), wantAsync = Array.from(w);
          y.dispose();
          churn();
          out.asyncIntact = wantAsync.every((x, i) => x === w[i]);
          // A size between two classes: the reader gets an exact array of its own.
          const odd = tf.matMul(tf.ones([1100, 3]), tf.ones([3, 1]));
          const ov = odd.dataSync();
          out.exact = ov.length === 1100 && ov.buffer.byteLength === 4400 && ov.every((x) => x === 3);
          odd.dispose();
          // A second tensor over the same memory (tfjs-backend-cpu's slice of a contiguous run is a view): the
          // buffer is never reused.
          y = tf.matMul(c, d);
          const be = tf.backend(), vals = be.data.get(y.dataId).values;
          const {runOnCpu} = require(${JSON.stringify(path.resolve(__dirname, '..', 'src', 'backend', 'fallback'))});
          const sliced = runOnCpu('Slice', {inputs: {x: y}, backend: be, attrs: {begin: [0, 0], size: [1, 8]}});
          out.aView = be.data.get(sliced.dataId).values.buffer === vals.buffer;
          const view = tf.engine().makeTensorFromTensorInfo(sliced);
          const before = kept(), viewWant = Array.from(vals.subarray(0, 8));
          y.dispose();
          out.sharedNotKept = kept() === before;
          churn();
          out.viewIntact = Array.from(view.dataSync()).every((x, i) => x === viewWant[i]);
          // A native call's read of the values (hostFloats, as a table's step reads its gradients) hands nothing
          // out: no copy, and the buffer goes back to the pool with its tensor.
          const {hostFloats} = require(${JSON.stringify(path.resolve(__dirname, '..', 'src', 'backend', 'host_reads'))});
          const r = tf.tidy(() => tf.matMul(tf.ones([1100, 3]), tf.ones([3, 1])));
          const beforeRead = kept(), rv = hostFloats(r);
          out.readInPlace = rv.length === 1100 && rv.buffer.byteLength > 4400 && rv.every((x) => x === 3);
          r.dispose();
          out.readKept = kept() > beforeRead;
          // emptyCache lets every kept buffer go.
          wm.emptyCache();
          out.emptied = kept() === 0;
          console.log(JSON.stringify(out));
        });`,
      ],
      {encoding: 'utf8', env: {...process.env, TFJS_WHOLEMEMORY_DEVICE: 'cpu'}},
    );
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(out, r.stderr).to.deep.equal({
      keptAfterDispose: 9216, // 300 x 7 floats, 8,400 bytes: the class of 9,216 (steps of 1,024 from 8 KiB)
      takenBack: true,
      readNotKept: true,
      readIntact: true,
      asyncIntact: true,
      exact: true,
      aView: true,
      sharedNotKept: true,
      viewIntact: true,
      readInPlace: true,
      readKept: true,
      emptied: true,
    });
    const bad = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(path.resolve(__dirname, '..', 'src', 'index'))})`], {
      encoding: 'utf8',
      env: {...process.env, WM_HOST_POOL_MB: 'lots'},
    });
    expect(r2s(bad)).to.match(/WM_HOST_POOL_MB must be a number of MiB >= 0, got 'lots'/);
  });

  it('reads data back synchronously and asynchronously', async () => {
    const input = randomInput([17, 3], 'float32', 11);
    const x = tf.tensor(input.values, input.shape);
    const y = tf.mul(x, 2);
    const want = Array.from(input.values, (v) => Math.fround(v * 2));
    expect(Array.from(await y.data())).to.deep.equal(want);
    expect(Array.from(y.dataSync())).to.deep.equal(want);
    expect((await y.array()) as number[][]).to.have.length(17);
    tf.dispose([x, y]);
  });

  it('keeps int32, bool, string and complex64 tensors working', async () => {
    const i = tf.tensor1d([1, -2, 3], 'int32');
    expect(Array.from(await tf.abs(i).data())).to.deep.equal([1, 2, 3]);
    const b = tf.tensor1d([true, false, true], 'bool');
    expect(Array.from(await tf.logicalNot(b).data())).to.deep.equal([0, 1, 0]);
    const s = tf.tensor1d(['a', 'bc']);
    expect(await s.data()).to.deep.equal(['a', 'bc']);
    const c = tf.complex([1, 2], [3, 4]);
    expect(Array.from(await tf.real(tf.add(c, c)).data())).to.deep.equal([2, 4]);
    tf.dispose([i, b, s, c]);
  });

  it('frees tensors: counts return to where they were', () => {
    const before = wm.memoryInfo();
    const t = tf.tidy(() => tf.sum(tf.square(tf.randomNormal([100, 10]))));
    expect(wm.memoryInfo().numTensors).to.equal(before.numTensors + 1);
    t.dispose();
    const after = wm.memoryInfo();
    expect(after.numTensors).to.equal(before.numTensors);
    expect(after.numBytes).to.equal(before.numBytes);
    expect(after.deviceBytesInUse).to.equal(before.deviceBytesInUse);
  });

  it('counts kernels that ran on the CPU path', () => {
    wm.resetFallbackCounts();
    // Diag has no native kernel: it always takes the CPU path.
    tf.tidy(() => tf.diag(tf.tensor1d([1, 3, 2])));
    expect(wm.fallbackCounts().Diag).to.equal(1);
  });

  it('gives clear errors for bad input and keeps working', () => {
    const a = tf.ones([2, 3]);
    const b = tf.ones([4, 5]);
    expect(() => tf.add(a, b)).to.throw(/Operands could not be broadcast together with shapes 2,3 and 4,5/);
    expect(() => tf.matMul(a, b)).to.throw(/inner shapes \(3\) and \(4\)/);
    expect(() => tf.gather(a, tf.tensor1d([0, 2], 'int32'))).to.throw(/GatherV2: the index value 2 is not in \[0, 1\]/);
    const c = tf.ones([2]);
    c.dispose();
    expect(() => tf.add(c, c)).to.throw(/disposed/);
    expect(Array.from(tf.add(a, a).dataSync())).to.deep.equal([2, 2, 2, 2, 2, 2]);
    tf.dispose([a, b]);
  });

  it('keeps an index check through gathers, slices and concatenations of checked ids', () => {
    tf.tidy(() => {
      const ids = tf.tensor1d([3, 0, 2, 1], 'int32');
      markValid(ids, 4);
      const picked = tf.gather(ids, tf.tensor1d([2, 0], 'int32'));
      const part = tf.slice(ids, 1, 2);
      const joined = tf.concat([picked, part]);
      expect([picked, part, joined].map((t) => knownValid(t, 4))).to.deep.equal([true, true, true]);
      expect(Array.from(joined.dataSync())).to.deep.equal([2, 3, 0, 2]);
      // Unchecked ids, or ids checked against another count, pass nothing on.
      expect(knownValid(tf.concat([picked, tf.tensor1d([1, 2], 'int32')]), 4)).to.equal(false);
      expect(knownValid(tf.gather(tf.tensor1d([5, 1], 'int32'), tf.tensor1d([1], 'int32')), 4)).to.equal(false);
      expect(knownValid(part, 5)).to.equal(false);
    });
  });

  it('trains: gradients and optimizers are registered', () => {
    const w = tf.variable(tf.scalar(0));
    const opt = tf.train.sgd(0.1);
    for (let i = 0; i < 50; ++i) opt.minimize(() => tf.square(tf.sub(w, 3)) as tf.Scalar);
    expect(w.dataSync()[0]).to.be.closeTo(3, 1e-3);
    w.dispose();
    opt.dispose();
  });

  it('trains tfjs-layers models (Dense with every activation, BatchNormalization, Dropout) with no kernel on the CPU fallback, as tfjs-backend-cpu does', async () => {
    const x = randomInput([96, 12], 'float32', 41),
      labels = randomInput([96], 'int32', 42, {min: 0, max: 2});
    const build = (activation: string, dropout: boolean) =>
      tfl.sequential({
        layers: [
          // Seeded, so a run that drifts past the tolerance below happens again.
          tfl.layers.dense({
            units: 24,
            inputShape: [12],
            activation: activation as 'relu',
            kernelInitializer: tfl.initializers.glorotUniform({seed: 7}),
          }),
          tfl.layers.batchNormalization(),
          ...(dropout ? [tfl.layers.dropout({rate: 0.25})] : []),
          tfl.layers.dense({units: 3, activation: 'softmax', kernelInitializer: tfl.initializers.glorotUniform({seed: 8})}),
        ],
      });
    const fit = async (backend: string, activation: string, dropout: boolean, weights?: tf.Tensor[]) => {
      await tf.setBackend(backend);
      const model = build(activation, dropout);
      if (weights) model.setWeights(weights);
      const start = model.getWeights().map((w) => tf.tensor(w.dataSync(), w.shape)); // plain copies: setWeights takes them on another backend
      model.compile({optimizer: tf.train.adam(0.01), loss: 'sparseCategoricalCrossentropy'});
      const xs = tf.tensor(x.values, x.shape),
        ys = tf.tensor(labels.values, labels.shape, 'float32');
      const h = await model.fit(xs, ys, {epochs: 3, batchSize: 32, shuffle: false, verbose: 0});
      const predicted = Array.from((model.predict(xs) as tf.Tensor).dataSync());
      tf.dispose([xs, ys]);
      model.dispose();
      return {loss: h.history.loss as number[], predicted, start};
    };
    for (const activation of ['relu', 'elu', 'sigmoid', 'tanh', 'selu', 'linear']) {
      wm.resetFallbackCounts();
      const ours = await fit(wm.BACKEND_NAME, activation, false);
      await fit(wm.BACKEND_NAME, activation, true); // dropout's masks differ between backends: checked for fallbacks only
      // OneHot (the sparse loss) has no C++ host kernel yet: native on GPUs only.
      expect(Object.keys(wm.fallbackCounts()).filter(nativeHere), `${activation}: fell back`).to.deep.equal([]);
      const cpu = await fit('cpu', activation, false, ours.start);
      await tf.setBackend(wm.BACKEND_NAME);
      ours.loss.forEach((l, i) =>
        expect(l, `${activation} epoch ${i} loss`).to.be.closeTo(cpu.loss[i], 1e-4 * (1 + Math.abs(cpu.loss[i]))),
      );
      // Nine Adam steps apart, float32 sums in another order: predictions drift by a few 1e-4, and (H100,
      // unseeded weights) once by 2.02e-3 with every loss within 1e-4.
      ours.predicted.forEach((p, i) => expect(p, `${activation} prediction ${i}`).to.be.closeTo(cpu.predicted[i], 3e-3));
      tf.dispose(ours.start);
      tf.dispose(cpu.start);
    }
  });

  it('uploads of every size arrive whole', async function () {
    if (!wm.deviceInfo().gpu) this.skip();
    for (const dtype of ['float32', 'int32', 'bool'] as tf.DataType[]) {
      for (const n of [1, 2, 3, 15, 16, 17, 63, 64, 65, 200]) {
        const values = randomInput([n], dtype, 1000 + n).values;
        const t = tf.tensor(values, [n], dtype);
        wm.backend().devicePtr(t); // uploads now
        const copy = tf.tidy(() => tf.reshape(tf.concat([t, t]), [2, n]).slice([1, 0], [1, n])); // computed from the device copy
        expect(wm.isOnDevice(copy), `${dtype} ${n}: on the device`).to.equal(true);
        expect(Array.from(await copy.data()), `${dtype} ${n}`).to.deep.equal(Array.from(values));
        tf.dispose([t, copy]);
      }
    }
  });

  it('reports GPU memory in tf.memory(): what device tensors hold on a GPU, 0 on the CPU', () => {
    type Info = tf.MemoryInfo & {numBytesInGPU: number};
    const before = (tf.memory() as Info).numBytesInGPU;
    expect(before).to.be.a('number');
    // A 4 MiB tensor shows in the count while it lives (the allocator may round up), and leaves it when disposed.
    const t = tf.fill([1 << 20], 2);
    const during = (tf.memory() as Info).numBytesInGPU;
    if (wm.deviceInfo().gpu) expect(during - before).to.be.within(4 << 20, 8 << 20);
    else expect(during).to.equal(0);
    t.dispose();
    expect((tf.memory() as Info).numBytesInGPU).to.equal(before);
  });

  it('data() lets the event loop run while a device read is in flight', async function () {
    if (!wm.deviceInfo().gpu) this.skip();
    const big = tf.tidy(() => tf.add(tf.fill([32 * 1024 * 1024], 1.5), 1));
    expect(wm.isOnDevice(big)).to.equal(true);
    let ticks = 0;
    let reading = true;
    const spin = () => {
      if (!reading) return;
      ++ticks;
      setImmediate(spin);
    };
    setImmediate(spin);
    const values = await big.data();
    reading = false;
    expect(values[12345]).to.equal(2.5);
    expect(ticks).to.be.greaterThan(0);
    big.dispose();
  });

  it('setMatmulPrecision: TF32 and bfloat16 tensor cores on the GPU within their rounding of a float64 product, float32 on the CPU; bad names refused', () => {
    expect(wm.getMatmulPrecision()).to.equal('highest');
    expect(() => wm.setMatmulPrecision('low' as wm.MatmulPrecision)).to.throw(
      /setMatmulPrecision: precision must be one of 'highest', 'high', 'medium', got 'low'/,
    );
    const gpu = wm.deviceInfo().gpu && wm.deviceInfo().cublas;
    // Large enough for cuBLAS's tensor cores (over 64 MFLOP), odd sizes, each way of transposing, and a batch.
    const cases: {a: number[]; b: number[]; ta: boolean; tb: boolean}[] = [
      {a: [513, 301], b: [301, 701], ta: false, tb: false},
      {a: [301, 513], b: [701, 301], ta: true, tb: true},
      {a: [3, 257, 300], b: [3, 300, 301], ta: false, tb: false},
    ];
    // Worst error relative to sum_k |a_ik b_kj| (what one rounding of each input can move the sum by).
    const worst = (x: ReturnType<typeof randomInput>, y: ReturnType<typeof randomInput>, c: (typeof cases)[number], got: Float32Array) => {
      const batch = x.shape.length === 3 ? x.shape[0] : 1;
      const [m, k] = c.ta ? [x.shape.at(-1)!, x.shape.at(-2)!] : [x.shape.at(-2)!, x.shape.at(-1)!];
      const n = c.tb ? y.shape.at(-2)! : y.shape.at(-1)!;
      const A = (q: number, i: number, l: number) => x.values[q * m * k + (c.ta ? l * m + i : i * k + l)];
      const B = (q: number, l: number, j: number) => y.values[q * k * n + (c.tb ? j * k + l : l * n + j)];
      let w = 0;
      for (let q = 0; q < batch; ++q)
        for (let i = 0; i < m; i += 7)
          for (let j = 0; j < n; j += 5) {
            let sum = 0,
              abs = 0;
            for (let l = 0; l < k; ++l) {
              const p = A(q, i, l) * B(q, l, j);
              sum += p;
              abs += Math.abs(p);
            }
            w = Math.max(w, Math.abs(got[q * m * n + i * n + j] - sum) / abs);
          }
      return w;
    };
    try {
      cases.forEach((c, ci) => {
        const x = randomInput(c.a, 'float32', 10 + ci),
          y = randomInput(c.b, 'float32', 20 + ci);
        const errors: Record<string, number> = {};
        const results: Record<string, Float32Array> = {};
        for (const p of ['highest', 'high', 'medium'] as const) {
          wm.setMatmulPrecision(p);
          expect(wm.getMatmulPrecision()).to.equal(p);
          results[p] = tf.tidy(
            () => tf.matMul(tf.tensor(x.values, x.shape), tf.tensor(y.values, y.shape), c.ta, c.tb).dataSync() as Float32Array,
          );
          errors[p] = worst(x, y, c, results[p]);
        }
        const where = JSON.stringify({case: ci, ...errors});
        expect(errors.highest, where).to.be.below(1e-5);
        if (gpu) {
          // TF32 keeps 10 mantissa bits, bfloat16 7: each input rounded once, float32 sums.
          expect(errors.high, where).to.be.below(2 ** -9);
          expect(errors.medium, where).to.be.below(2 ** -6);
          expect(errors.medium, `${where}: bfloat16 inputs round more than float32's`).to.be.above(errors.highest);
        } else {
          expect(Array.from(results.high), 'the CPU computes float32 whatever the setting').to.deep.equal(Array.from(results.highest));
          expect(Array.from(results.medium)).to.deep.equal(Array.from(results.highest));
        }
      });
    } finally {
      wm.setMatmulPrecision('highest');
    }
  });

  it("writtenOp: several outputs; an input's gradient computed only where a gradient reaches it; an output no gradient reaches takes zeros; nothing left behind", () => {
    const v = tf.variable(tf.tensor1d([4, 5, 6]), true, 'written_op_v');
    const calls = {x: 0, v: 0};
    // p = x * v, q = x + v: dx = dp * v + dq, dv = dp * x + dq.
    const op = (x: tf.Tensor, w: tf.Tensor) =>
      writtenOp(
        [x, w],
        (save) => {
          save([x, w]);
          return [tf.mul(x, w), tf.add(x, w)];
        },
        ([dp, dq], [sx, sw]) => [() => (++calls.x, tf.add(tf.mul(dp, sw), dq)), () => (++calls.v, tf.add(tf.mul(dp, sx), dq))],
      );
    const before = tf.memory().numTensors;
    const x = tf.tensor1d([1, 2, 3]);
    const {value, grads} = tf.variableGrads(() =>
      tf.tidy(() => {
        const [p, q] = op(x, v);
        return tf.sum(tf.add(p, tf.mul(q, 2)));
      }),
    );
    expect(calls, 'the input x is no variable: its gradient is never computed').to.deep.equal({x: 0, v: 1});
    expect(Array.from(grads[v.name].dataSync())).to.deep.equal([3, 4, 5]);
    expect(value.dataSync()[0]).to.equal(4 + 10 + 18 + 2 * (5 + 7 + 9));
    const [dx] = tf.grads((xx: tf.Tensor) => tf.sum(op(xx, v)[0]))([x]); // q unused: its gradient is zeros
    expect(Array.from(dx.dataSync())).to.deep.equal([4, 5, 6]);
    expect(calls.x).to.equal(1);
    tf.dispose([value, dx, x, ...Object.values(grads)]);
    expect(tf.memory().numTensors).to.equal(before);
    v.dispose();
  });

  it('profileOps lists the native ops a call ran, their calls and time, where they ran; it does not nest and stops on errors', async () => {
    const where = wm.deviceInfo().gpu ? 'gpu' : 'cpu';
    const ai = randomInput([97, 61], 'float32', 1),
      bi = randomInput([61, 33], 'float32', 2);
    const a = tf.tensor(ai.values, ai.shape),
      b = tf.tensor(bi.values, bi.shape);
    const before = tf.tidy(() => tf.matMul(a, b).sum()); // untimed: not part of the profile below
    const p = wm.profileOps(() => tf.tidy(() => [0, 1, 2].map(() => tf.relu(tf.matMul(a, b)).dataSync()[0])));
    expect(p.result).to.have.length(3);
    const mm = p.ops.find((o) => o.name === 'batchMatMul')!;
    expect(mm, JSON.stringify(p.ops)).to.not.equal(undefined);
    expect(mm.calls).to.equal(3);
    expect(mm.where).to.equal(where);
    expect(mm.ms).to.be.greaterThan(0);
    expect(
      p.ops.find((o) => o.name === 'reduce'),
      'an op run before the profile',
    ).to.equal(undefined);
    for (let i = 1; i < p.ops.length; ++i) expect(p.ops[i - 1].ms).to.be.at.least(p.ops[i].ms);
    expect(p.wallMs).to.be.greaterThan(0);
    expect(() => wm.profileOps(() => wm.profileOps(() => 1))).to.throw(/profileOps: a profiled call is already running/);
    expect(() =>
      wm.profileOps(() => {
        tf.tidy(() => tf.matMul(a, b).dataSync());
        throw new Error('inside');
      }),
    ).to.throw('inside');
    const q = await wm.profileOps(async () => {
      const s = tf.sum(a);
      const v = (await s.data())[0];
      s.dispose();
      return v;
    });
    expect(q.result).to.be.closeTo(
      tf.tidy(() => tf.sum(a).dataSync()[0]),
      1e-3,
    );
    expect(q.ops.map((o) => o.name)).to.deep.equal(['reduce'], "only the second call's op, none of the failed call's");
    // More ops than the GPU's pending events are held for (added up as the GPU finishes them): every call counted.
    const many = wm.profileOps(() => {
      let x: tf.Tensor = tf.scalar(0);
      for (let i = 0; i < 5000; ++i) {
        const y = tf.add(x, 1);
        x.dispose();
        x = y;
      }
      const v = x.dataSync()[0];
      x.dispose();
      return v;
    });
    expect(many.result).to.equal(5000);
    const adds = many.ops.filter((o) => o.name.startsWith('binary'));
    expect(
      adds.reduce((n, o) => n + o.calls, 0),
      JSON.stringify(many.ops),
    ).to.equal(5000);
    tf.dispose([a, b, before]);
  });
});

// wm.train.adam (one native pass per step: a CUDA kernel on the GPU, a C++
// loop on the CPU) against tfjs' own Adam on tfjs-backend-cpu, and
// dataParallel's use of it.
import '@tensorflow/tfjs-backend-cpu';

import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {soloCommunicator} from '../src/memory/communicator';
import {rng} from './helpers';

// Odd sizes, a scalar, an empty tensor, one past the float4 width.
const SHAPES = [[7, 13], [1], [0, 5], [130], [64, 33], []];

interface Run {
  values: Float32Array[][]; // per step, per variable
  weights: Float32Array[]; // the optimizer's getWeights() at the end (iterations, then m and v)
}

// Random coefficients make every element's gradient different and depend on the variable.
function problem(seed: number) {
  const r = rng(seed);
  const init = SHAPES.map((s) => Float32Array.from({length: s.reduce((a, b) => a * b, 1)}, () => r() * 4 - 2));
  const coef = SHAPES.map((s) => Float32Array.from({length: s.reduce((a, b) => a * b, 1)}, () => r() * 6 - 3));
  return {init, coef};
}

async function train(
  backend: string,
  makeOpt: () => tf.Optimizer,
  steps: number,
  apply?: (opt: tf.Optimizer, loss: () => tf.Scalar, vars: tf.Variable[]) => void,
  restartAt?: number,
  makeAfter = makeOpt,
): Promise<Run> {
  await tf.setBackend(backend);
  const {init, coef} = problem(11);
  const vars = SHAPES.map((s, i) => tf.variable(tf.tensor(init[i], s, 'float32')));
  const cs = SHAPES.map((s, i) => tf.tensor(coef[i], s, 'float32'));
  // Loss: sum(c * w) + 0.3 * sum(w^2) + sum(sin(w)): gradients vary by element and step.
  const loss = () =>
    tf.addN(vars.map((v, i) => tf.addN([tf.sum(tf.mul(cs[i], v)), tf.mul(0.3, tf.sum(tf.square(v))), tf.sum(tf.sin(v))]))) as tf.Scalar;
  let opt = makeOpt();
  const values: Float32Array[][] = [];
  for (let s = 0; s < steps; ++s) {
    if (s === restartAt) {
      // A checkpoint: the state goes into a fresh optimizer, which must continue exactly.
      const saved = await opt.getWeights();
      const copies = saved.map((w) => ({name: w.name, tensor: tf.clone(w.tensor)}));
      opt.dispose();
      opt = makeAfter();
      await opt.setWeights(copies);
      tf.dispose(copies.map((c) => c.tensor));
    }
    if (apply) apply(opt, loss, vars);
    else opt.minimize(loss, true, vars)?.dispose();
    values.push(vars.map((v) => v.dataSync().slice() as Float32Array));
  }
  const weights = (await opt.getWeights()).map((w) => w.tensor.dataSync().slice() as Float32Array);
  tf.dispose([...vars, ...cs]);
  opt.dispose();
  return {values, weights};
}

function expectRunsClose(got: Run, want: Run): void {
  expect(got.values.length).to.equal(want.values.length);
  got.values.forEach((step, s) =>
    step.forEach((v, i) => {
      expect(v.length, `step ${s} variable ${i} size`).to.equal(want.values[s][i].length);
      v.forEach((x, k) => {
        const e = want.values[s][i][k];
        if (!(Math.abs(x - e) <= 1e-6 + 1e-5 * Math.abs(e))) expect.fail(`step ${s} variable ${i} [${k}]: ${x}, tfjs ${e}`);
      });
    }),
  );
  expect(got.weights.length, 'optimizer weights').to.equal(want.weights.length);
  got.weights.forEach((w, i) =>
    w.forEach((x, k) => {
      const e = want.weights[i][k];
      if (!(Math.abs(x - e) <= 1e-6 + 1e-5 * Math.abs(e))) expect.fail(`optimizer weight ${i} [${k}]: ${x}, tfjs ${e}`);
    }),
  );
}

describe('wm.train.adam (fused dense Adam)', () => {
  const make = (f: typeof tf.train.adam) => () => f(0.05, 0.8, 0.95, 1e-6);
  let reference: Run;
  before(async () => {
    reference = await train('cpu', make(tf.train.adam), 8);
  });
  after(async () => {
    await tf.setBackend(wm.BACKEND_NAME);
  });

  it('steps as tf.train.adam on tfjs-backend-cpu does: variables, moments and step count', async () => {
    const got = await train(wm.BACKEND_NAME, make(wm.train.adam), 8);
    expectRunsClose(got, reference);
    // The values moved: the comparison is not of two untouched copies.
    expect(got.values[7][0][0]).to.not.equal(got.values[0][0][0]);
  });

  it('continues exactly after its state is saved and loaded (getWeights/setWeights)', async () => {
    const got = await train(wm.BACKEND_NAME, make(wm.train.adam), 8, undefined, 3);
    expectRunsClose(got, reference);
  });

  it('shares its state with tf.train.adam both ways (switching optimizers mid-run changes nothing)', async () => {
    expectRunsClose(await train(wm.BACKEND_NAME, make(tf.train.adam), 8, undefined, 3, make(wm.train.adam)), reference);
    expectRunsClose(await train(wm.BACKEND_NAME, make(wm.train.adam), 8, undefined, 5, make(tf.train.adam)), reference);
  });

  it('setLearningRate: a schedule steps as tf.train.adam given the same step sizes; 0 stands still; bad values refused', async () => {
    // A linear decay to 0 at step 6: tfjs' Adam gets each step's size through its own field.
    const scheduled = () => {
      let step = 0;
      return (opt: tf.Optimizer, loss: () => tf.Scalar, vars: tf.Variable[]) => {
        const lr = 0.05 * Math.max(0, 1 - step++ / 6);
        // (tfjs' optimizers answer instanceof by their fields: the method itself tells them apart.)
        if ('setLearningRate' in opt) (opt as wm.train.FusedAdamOptimizer).setLearningRate(lr);
        else (opt as unknown as {learningRate: number}).learningRate = lr;
        opt.minimize(loss, true, vars)?.dispose();
      };
    };
    const want = await train('cpu', make(tf.train.adam), 8, scheduled());
    const got = await train(wm.BACKEND_NAME, make(wm.train.adam), 8, scheduled());
    expectRunsClose(got, want);
    got.values[7].forEach((v, i) => expect(v, `variable ${i} after the step of size 0`).to.deep.equal(got.values[6][i]));
    expect(got.values[5][0][0]).to.not.equal(got.values[0][0][0]);
    const opt = wm.train.adam(0.01);
    for (const bad of [-0.1, NaN, Infinity])
      expect(() => opt.setLearningRate(bad)).to.throw(RangeError, /learningRate must be a finite number >= 0/);
    opt.dispose();
  });

  it('dataParallel with tf.train.adam on one rank steps as tf.train.adam does (not as SGD)', async () => {
    const comm = soloCommunicator();
    try {
      const got = await train(wm.BACKEND_NAME, make(tf.train.adam), 8, (opt, loss, vars) => {
        tf.dispose(wm.dataParallel(opt, comm).minimize(loss, vars));
      });
      expectRunsClose(got, reference);
    } finally {
      comm.destroy();
    }
  });

  it('dataParallel still fuses plain SGD into its all-reduce, and leaves Momentum to tfjs', async () => {
    const comm = soloCommunicator();
    try {
      for (const [name, makeOpt] of [
        ['sgd', () => tf.train.sgd(0.05)],
        ['momentum', () => tf.train.momentum(0.05, 0.9)],
      ] as const) {
        const want = await train('cpu', makeOpt, 4);
        const got = await train(wm.BACKEND_NAME, makeOpt, 4, (opt, loss, vars) => {
          tf.dispose(wm.dataParallel(opt, comm).minimize(loss, vars));
        });
        got.values.forEach((step, s) =>
          step.forEach((v, i) =>
            v.forEach((x, k) => {
              const e = want.values[s][i][k];
              if (!(Math.abs(x - e) <= 1e-6 + 1e-5 * Math.abs(e))) expect.fail(`${name}: step ${s} variable ${i} [${k}]: ${x}, tfjs ${e}`);
            }),
          ),
        );
      }
    } finally {
      comm.destroy();
    }
  });

  it('updates variables in place only when nothing else shares their data', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const v = tf.variable(tf.tensor1d([1, 2, 3, 4, 5]));
    const alias = tf.clone(v); // shares v's data until v is updated
    const before = Array.from(alias.dataSync());
    const opt = wm.train.adam(0.1);
    opt.minimize(() => tf.sum(tf.square(v)) as tf.Scalar, false, [v]);
    expect(Array.from(alias.dataSync()), 'the alias keeps the old values').to.deep.equal(before);
    const moved = Array.from(v.dataSync());
    expect(moved.every((x, i) => x < before[i])).to.equal(true);
    alias.dispose();
    // Alone now: updated in place; reads after the step see the new values (no stale host copy).
    opt.minimize(() => tf.sum(tf.square(v)) as tf.Scalar, false, [v]);
    const again = Array.from(v.dataSync());
    expect(again.every((x, i) => x < moved[i])).to.equal(true);
    opt.minimize(() => tf.sum(tf.square(v)) as tf.Scalar, false, [v]);
    expect(Array.from(v.dataSync()).every((x, i) => x < again[i])).to.equal(true);
    tf.dispose(v);
    opt.dispose();
  });

  it('on the host, steps its own buffers in place, as tf.train.adam steps; never an array handed out, nor data a clone shares', async () => {
    const shapes = [[40, 37], [2001]]; // past the host pool's smallest buffers
    const r = rng(5);
    const init = shapes.map((s) => Float32Array.from({length: s.reduce((a, c) => a * c, 1)}, () => r() * 2 - 1));
    const run = async (backend: string, opt: tf.Optimizer, check?: (vars: tf.Variable[], step: () => void) => void) => {
      await tf.setBackend(backend);
      const vars = shapes.map((sh, i) => tf.variable(tf.tensor(init[i], sh)));
      const step = () =>
        opt.minimize(
          () => tf.addN(vars.map((v) => tf.add(tf.sum(tf.square(tf.sub(v, 0.3))), tf.sum(tf.sin(v))))) as tf.Scalar,
          false,
          vars,
        );
      for (let k = 0; k < 6; ++k) step();
      check?.(vars, step);
      const out = [...vars.map((v) => v.dataSync().slice()), ...(await opt.getWeights()).map((w) => w.tensor.dataSync().slice())];
      tf.dispose(vars);
      opt.dispose();
      return out;
    };
    const got = await run(wm.BACKEND_NAME, wm.train.adam(0.05), (vars, step) => {
      const b = wm.backend();
      if (!b.gpu) {
        const own = b.hostArray(vars[0]);
        step();
        expect(b.hostArray(vars[0]), 'stepped in place').to.equal(own);
      } else step();
      // An array handed out (dataSync) keeps what it held; so does a clone sharing the data.
      const held = vars[0].dataSync();
      const heldCopy = Array.from(held);
      const alias = tf.clone(vars[1]);
      const aliasBefore = Array.from(b.hostArray(vars[1]));
      step();
      expect(Array.from(held)).to.deep.equal(heldCopy);
      expect(Array.from(alias.dataSync())).to.deep.equal(aliasBefore);
      expect(Array.from(vars[1].dataSync())).to.not.deep.equal(aliasBefore);
      alias.dispose();
    });
    // The reference steps as many times: six, the in-place one, the one after the reads.
    const want = await run('cpu', tf.train.adam(0.05), (vars, step) => {
      step();
      step();
    });
    expect(got.length).to.equal(want.length);
    got.forEach((g, i) =>
      g.forEach((x, j) => expect(Math.abs(x - want[i][j]), `state ${i}[${j}]`).to.be.below(1e-5 * (1 + Math.abs(want[i][j])))),
    );
  });

  it('leaves no tensors or device memory behind over 200 steps', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const v = [tf.variable(tf.randomNormal([33, 17], 0, 1, 'float32', 3)), tf.variable(tf.randomNormal([17], 0, 1, 'float32', 4))];
    const opt = wm.train.adam(0.01);
    const loss = () => tf.add(tf.sum(tf.square(v[0])), tf.sum(tf.sin(v[1]))) as tf.Scalar;
    opt.minimize(loss, true, v)?.dispose();
    await wm.synchronize();
    const before = wm.memoryInfo();
    for (let i = 0; i < 200; ++i) opt.minimize(loss, true, v)?.dispose();
    await wm.synchronize();
    const after = wm.memoryInfo();
    expect(after.numTensors).to.equal(before.numTensors);
    expect(after.deviceBytesInUse).to.equal(before.deviceBytesInUse);
    tf.dispose(v);
    opt.dispose();
  });
});

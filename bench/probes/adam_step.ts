// Adam's dense step over a model's variables on this machine: wm.train.adam on the wholememory backend against
// tf.train.adam on tfjs-backend-cpu, the same gradients, PROBE_STEPS timed steps after three warm-up ones. The
// variables are the shapes of MAG240M-shaped R-GAT's (bench:mag240m: 768 features, hidden 1024, 5 relations, 153
// classes), 4,876,288 floats. `node dist/bench/probes/adam_step.js`
import '@tensorflow/tfjs-backend-cpu';

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';

const SHAPES = [[5, 768, 1024], [1024, 153], [768, 1024], [1024]];

async function msPerStep(backend: string, makeOpt: () => tf.Optimizer, steps: number): Promise<number> {
  await tf.setBackend(backend);
  const vars = SHAPES.map((s, i) => tf.variable(tf.randomNormal(s, 0, 0.02, 'float32', i)));
  const grads = vars.map((v, i) => tf.randomNormal(v.shape, 0, 0.01, 'float32', 10 + i));
  const opt = makeOpt();
  const named = () => Object.fromEntries(vars.map((v, i) => [v.name, grads[i]]));
  for (let i = 0; i < 3; ++i) opt.applyGradients(named());
  wm.synchronize();
  const t0 = performance.now();
  for (let i = 0; i < steps; ++i) opt.applyGradients(named());
  wm.synchronize();
  const ms = (performance.now() - t0) / steps;
  tf.dispose([...vars, ...grads]);
  opt.dispose();
  return ms;
}

async function main(): Promise<void> {
  const steps = Number(process.env.PROBE_STEPS ?? 20);
  const ours = await msPerStep(wm.BACKEND_NAME, () => wm.train.adam(0.001), steps);
  const theirs = await msPerStep('cpu', () => tf.train.adam(0.001), Math.max(3, Math.floor(steps / 4)));
  const floats = SHAPES.reduce((a, s) => a + s.reduce((x, y) => x * y, 1), 0);
  console.log(
    `Adam over ${floats} floats (${wm.deviceInfo().gpu ? 'GPU' : 'host'}): wm.train.adam ${ours.toFixed(2)} ms a step, ` +
      `tf.train.adam on tfjs-backend-cpu ${theirs.toFixed(2)} ms: ${(theirs / ours).toFixed(2)}x`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

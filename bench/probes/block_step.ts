// Where a GraphSAGE step sampled without replacement spends its time (bench:papers100m's BENCH_REPLACE=false on the
// low-skew graph, PROBE_VERTICES vertices, default 16M): each phase timed alone with the GPU drained before and after
// (the batch's sampling and relabelling, its features' read, forward, backward and Adam), the host's time to issue
// them, every native op's GPU time (wm.profileOps), the tfjs kernels that may copy (their shapes), and the costliest
// functions of a CPU profile of the issuing thread.
// PROBE_REPLACE=true: the same with replacement (the fixed fan-out path), for comparison.
import * as inspector from 'inspector';

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {DeviceCsr} from '../../src/graph/device_csr';
import {adam} from '../../src/optimizers/fused_adam';
import {setBenchMatmulPrecision} from '../bench_util';
import {FANOUTS, papersSage} from '../papers100m_model';

const post = (s: inspector.Session, method: string, params?: object): Promise<unknown> =>
  new Promise((res, rej) => s.post(method, params ?? {}, (e, r) => (e ? rej(e) : res(r))));

interface ProfileNode {
  id: number;
  callFrame: {functionName: string; url: string; lineNumber: number};
  hitCount?: number;
  children?: number[];
}

// A CPU profile's costliest functions by self time (ms), as "name (file:line) ms".
function selfTimes(profile: {nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]}, top: number): string[] {
  const ms = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
  const byFn = new Map<string, number>();
  for (const n of profile.nodes) {
    const f = n.callFrame;
    const key = `${f.functionName || '(anonymous)'} (${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1})`;
    byFn.set(key, (byFn.get(key) ?? 0) + (n.hitCount ?? 0) * ms);
  }
  return [...byFn]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, v]) => `${k} ${v.toFixed(0)}`);
}

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  setBenchMatmulPrecision();
  const vertices = Number(process.env.PROBE_VERTICES ?? 16_000_000);
  const steps = Number(process.env.PROBE_STEPS ?? 8);
  const replace = process.env.PROBE_REPLACE === 'true';
  const graph = wm.graph.csbmNative({vertices, classes: 2, degree: 29, homophily: 0.5, features: 0, seed: 1}).graph;
  const gpu = wm.deviceInfo().gpu;
  const csr = gpu ? new DeviceCsr(graph) : graph; // the CPU: a smoke run of the same steps
  if (gpu) graph.free();
  const n = csr.numVertices;
  const features = wm.nn.embedding({
    rows: n,
    dim: 128,
    dtype: 'float16',
    memory: gpu ? 'device' : 'host',
    init: {type: 'uniform', scale: 1, seed: 11},
  });
  const seedsOf = (k: number) => Int32Array.from({length: 1024}, (_, i) => ((k * 1024 + i) * 7_919_317) % n);
  const loader = new wm.nn.NeighborLoader(csr, seedsOf(0), {fanouts: FANOUTS, batchSize: 1024, replace, features});
  const model = papersSage(n, features);
  const opt = adam(0.003);
  const phases = {sample: 0, forward: 0, backward: 0, adam: 0};
  const lap = (name: keyof typeof phases, t: number) => {
    wm.synchronize();
    phases[name] += performance.now() - t;
    return performance.now();
  };
  const step = (k: number, timed: boolean) => {
    wm.synchronize();
    let t = performance.now();
    const seeds = seedsOf(k);
    const batch = loader.batch(seeds, k);
    if (timed) t = lap('sample', t);
    const y = Int32Array.from(seeds, (s) => s % 172);
    const {value, grads} = tf.variableGrads(() => {
      const loss = wm.nn.softmaxCrossEntropy(y, model.forward(batch, batch.seed)) as tf.Scalar;
      if (timed) t = lap('forward', t);
      return loss;
    }, model.trainableVariables);
    if (timed) t = lap('backward', t);
    opt.applyGradients(grads as Parameters<typeof opt.applyGradients>[0]);
    if (timed) lap('adam', t);
    tf.dispose([value, ...Object.values(grads)]);
    const sizes = [(batch.inputIds as tf.Tensor1D).size, ...batch.layers.map((l) => ('numDst' in l ? l.numDst : l.block.numRows))];
    batch.dispose();
    return sizes;
  };
  for (let k = 0; k < 3; ++k) step(k, false);
  wm.synchronize();
  let sizes: number[] = [];
  for (let k = 3; k < 3 + steps; ++k) sizes = step(k, true);
  let t = performance.now();
  for (let k = 3; k < 3 + steps; ++k) step(k, false);
  const wall = (performance.now() - t) / steps;
  const prof = wm.profileOps(() => {
    for (let k = 3; k < 3 + steps; ++k) step(k, false);
  });
  // The tfjs kernels that may copy through stridedCopy (slices that are not row runs, transposes, pads, concats),
  // with their output shapes: which ones a step runs.
  const copying = new Set(['Slice', 'StridedSlice', 'Transpose', 'PadV2', 'Concat', 'Pack', 'Unpack', 'Tile', 'Reverse', 'MirrorPad']);
  const kernels = (await tf.profile(() => void step(3, false))).kernels.filter((k) => copying.has(k.name));
  console.log(
    `copying kernels in a step: ${kernels.map((k) => `${k.name} [${k.inputShapes.map((sh) => `[${sh}]`).join(',')}] -> [${k.outputShapes.map((sh) => `[${sh}]`).join(',')}]`).join('; ')}`,
  );
  const s = new inspector.Session();
  s.connect();
  await post(s, 'Profiler.enable');
  await post(s, 'Profiler.setSamplingInterval', {interval: 200});
  await post(s, 'Profiler.start');
  for (let k = 3; k < 3 + steps; ++k) step(k, false);
  wm.synchronize();
  const {profile} = (await post(s, 'Profiler.stop')) as {
    profile: {nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]};
  };
  s.disconnect();
  const gpuMs = prof.ops.filter((o) => o.where === 'gpu').reduce((a, o) => a + o.ms, 0) / steps;
  console.log(`sizes (inputs, then each layer's rows): ${sizes.join('/')}`);
  console.log(
    `native ops per step: ${prof.ops.map((o) => `${o.name} ${o.where} ${(o.calls / steps).toFixed(0)}x ${(o.ms / steps).toFixed(2)}`).join(', ')}`,
  );
  console.log(`host self time over ${steps} steps (ms): ${selfTimes(profile, 16).join('; ')}`);
  const per = Object.entries(phases).map(([k, v]) => `${k} ${(v / steps).toFixed(2)}`);
  console.log(
    `block step (${vertices} vertices, replace ${replace}): wall ${wall.toFixed(2)} ms, GPU ops ${gpuMs.toFixed(2)} ms; phases drained (ms): ${per.join(', ')}`,
  );
  model.dispose();
  opt.dispose();
  features.dispose();
  if (csr instanceof DeviceCsr) csr.dispose();
  else csr.free();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

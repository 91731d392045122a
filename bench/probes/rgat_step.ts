// Where an R-GAT training step's time goes on bench:hetero's ogbn-mag-shaped graph (BENCH_HETERO_SCALE, default 1;
// batches of 1,024 papers, fan-out [25, 20], 4 heads of 16 then one head of the classes): each layer's blocks
// (rows, sources, entries), the step's wall time with the batches staged, the host's time to issue a step, the tfjs
// kernels a step runs (by name), every native op's GPU time (wm.profileOps), and a CPU profile of the issuing
// thread written to $OUT/rgat.cpuprofile (PROBE_CPUPROF=0: none).
import * as fs from 'fs';
import * as inspector from 'inspector';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {edgeTypeKey} from '../../src/graph/hetero_graph';
import {typedGraphFor} from '../../src/graph/device_hetero_graph';
import {RgatConv} from '../../src/nn/hetero/rgat_conv';
import {TypedBatch, TypedNeighborLoader} from '../../src/nn/typed_neighbor_loader';
import {adam} from '../../src/optimizers/fused_adam';
import {magShaped} from '../mag_shaped';
import {stageBlocks, typedStep} from '../typed_step';

const post = (s: inspector.Session, method: string, params?: object): Promise<unknown> =>
  new Promise((res, rej) => s.post(method, params ?? {}, (e, r) => (e ? rej(e) : res(r))));

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const scale = Number(process.env.BENCH_HETERO_SCALE ?? (wm.deviceInfo().gpu ? 1 : 0.01));
  const steps = Number(process.env.PROBE_STEPS ?? 10);
  const g = magShaped(scale);
  const relations = g.edgeTypes.map(edgeTypeKey);
  const sampled = typedGraphFor(g, 'auto');
  const loader = new TypedNeighborLoader(sampled.graph, {fanouts: [25, 20], batchSize: 1024, shuffle: true, seed: 1});
  const batches: TypedBatch[] = [];
  for await (const b of loader) {
    stageBlocks(b.sub);
    batches.push(b);
    if (batches.length >= steps + 2) break;
  }
  wm.synchronize();
  const b0 = batches[0];
  b0.sub.layers.forEach((layer, i) =>
    console.log(
      `layer ${i}: ` +
        Object.entries(layer.blocks)
          .map(([k, bl]) => `${k.split('___')[1]} ${bl.numRows}x${bl.numCols} ${bl.arrays.colIdx.length}${bl.scatters ? ' s' : ''}`)
          .join(', '),
    ),
  );
  const classes = g.labels!.numClasses;
  const gats = [
    new RgatConv({inDim: 128, units: 16, heads: 4, relations, seed: 3}),
    new RgatConv({inDim: 64, units: classes, heads: 1, relations, seed: 4}),
  ];
  const opt = adam(0.01);
  const step = typedStep(
    gats,
    opt,
    gats.flatMap((c) => c.variables),
    'paper',
  );
  step(batches[0]);
  step(batches[1]);
  wm.synchronize();
  let t = performance.now();
  for (let k = 2; k < batches.length; ++k) step(batches[k]);
  wm.synchronize();
  const wall = (performance.now() - t) / steps;
  let issue = 0;
  for (let k = 2; k < batches.length; ++k) {
    wm.synchronize();
    t = performance.now();
    step(batches[k]);
    issue += performance.now() - t;
  }
  wm.synchronize();
  const info = await tf.profile(() => step(batches[2]));
  const kernels = new Map<string, number>();
  for (const k of info.kernels) kernels.set(k.name, (kernels.get(k.name) ?? 0) + 1);
  const prof = wm.profileOps(() => {
    for (let k = 2; k < batches.length; ++k) step(batches[k]);
  });
  const gpuMs = prof.ops.filter((o) => o.where === 'gpu').reduce((a, o) => a + o.ms, 0) / steps;
  let cpuprof = '';
  if (process.env.PROBE_CPUPROF !== '0') {
    const s = new inspector.Session();
    s.connect();
    await post(s, 'Profiler.enable');
    await post(s, 'Profiler.setSamplingInterval', {interval: 100});
    await post(s, 'Profiler.start');
    for (let r = 0; r < 3; ++r) for (let k = 2; k < batches.length; ++k) step(batches[k]);
    wm.synchronize();
    const {profile} = (await post(s, 'Profiler.stop')) as {profile: object};
    cpuprof = path.join(process.env.OUT ?? '.', 'rgat.cpuprofile');
    fs.writeFileSync(cpuprof, JSON.stringify(profile));
    s.disconnect();
  }
  console.log(
    `native ops per step: ` +
      prof.ops.map((o) => `${o.name} ${o.where} ${(o.calls / steps).toFixed(0)}x ${(o.ms / steps).toFixed(3)}`).join(', '),
  );
  console.log(
    `tfjs kernels per step ${info.kernels.length}: ` +
      [...kernels]
        .sort((a, b) => b[1] - a[1])
        .map(([n, c]) => `${n} ${c}`)
        .join(', '),
  );
  console.log(
    `R-GAT step (scale ${scale}): wall ${wall.toFixed(2)} ms pipelined, host issue ${(issue / steps).toFixed(2)} ms, GPU ops ${gpuMs.toFixed(2)} ms, ` +
      `profiled wall ${(prof.wallMs / steps).toFixed(2)} ms${cpuprof ? `; cpu profile ${cpuprof}` : ''}`,
  );
  batches.forEach((b) => b.dispose());
  gats.forEach((c) => c.dispose());
  opt.dispose();
  loader.dispose();
  sampled.release();
  g.free();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

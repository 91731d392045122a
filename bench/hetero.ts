// `npm run bench:hetero` — R-GCN and R-GAT on a typed graph shaped like ogbn-mag against PyG's RGCNConv and
// HeteroConv of GATConv on the same GPU and the same sampled batches (on the CPU, both sides, where ours runs there). The graph: ogbn-mag's types and counts (736,389 papers, 1,134,649
// authors, 8,740 institutions, 59,965 fields of study), its four relations at their sizes (cites 5,416,271,
// writes 7,145,660, affiliated with 1,043,998, has topic 7,505,078) drawn uniformly and seeded, every
// relation made two-way (about 42M edges), 128 float32 features on papers, 349 classes; BENCH_HETERO_SCALE
// shrinks every count. Batches of 1024 training papers, fan-out [25, 20] per relation, two layers, hidden 64,
// numBases 8 (PyG: RGCNConv(num_bases=8) over each layer's homogeneous form, the same edges and inputs;
// types without features take zeros on both sides); R-GAT 4 heads of 16 then one head of the classes (PyG:
// HeteroConv({relation: GATConv((-1, -1), heads, add_self_loops=False)}, 'sum') per layer). Training steps per second (forward, backward, Adam) over
// BENCH_HETERO_BATCHES batches after two warm-up batches, each batch already on the device as PyG's are (its
// blocks staged before the clock), the steps back to back and one wait at the end on both sides; and ours end to end as a training loop runs it, the sampling (on the GPU
// where there is one; BENCH_HETERO_SAMPLE=host: on the host) and the staging included, no wait between
// batches (PyG's side has no sampler here: pyg-lib is absent), with each phase's time from a pass that waits
// after each; seeds/s = 1024 x steps/s. Then accuracy: BENCH_HETERO_SEEDS (default 3) fresh R-GCNs on each side, each
// trained BENCH_HETERO_PASSES passes (default 10) over the same timed batches and judged on the same
// BENCH_HETERO_VAL_BATCHES batches of validation papers (the papers' features carry their class): mean and spread. BENCH_TORCH= (empty) skips PyG.
// BENCH_MATMUL_PRECISION (default highest; high, medium): both sides' matrix products (wm.setMatmulPrecision,
// torch.set_float32_matmul_precision).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {edgeTypeKey} from '../src/graph/hetero_graph';
import {RgatConv} from '../src/nn/hetero/rgat_conv';
import {RgcnConv} from '../src/nn/hetero/rgcn_conv';
import {TypedBatch, TypedNeighborLoader} from '../src/nn/typed_neighbor_loader';
import {adam} from '../src/optimizers/fused_adam';
import {meanStd} from '../src/train/graph_classification';
import {envPositiveInt, setBenchMatmulPrecision, torchJson, writeBenchResult} from './bench_util';
import {stageBlocks, typedLogits, typedStep} from './typed_step';
import {magShaped} from './mag_shaped';
import {typedGraphFor, TypedSampling} from '../src/graph/device_hetero_graph';

/** A batch for PyG: each layer's types' input counts, its edges (source and destination index in the layer's homogeneous form) and relation ids. */
function dumpBatch(b: TypedBatch, types: string[], relations: string[], dir: string, name: string): object {
  const layers = b.sub.layers.map((layer, li) => {
    const offsets: Record<string, number> = {};
    let total = 0;
    for (const t of types) {
      offsets[t] = total;
      total += layer.src[t].length;
    }
    const src: number[] = [],
      dst: number[] = [],
      et: number[] = [];
    for (const [key, block] of Object.entries(layer.blocks)) {
      const [s, , d] = key.split('___');
      const {rowPtr, colIdx} = block.arrays;
      for (let i = 0; i + 1 < rowPtr.length; ++i)
        for (let e = rowPtr[i]; e < rowPtr[i + 1]; ++e) {
          src.push(offsets[s] + colIdx[e]);
          dst.push(offsets[d] + i);
          et.push(relations.indexOf(key));
        }
    }
    const file = `${name}l${li}.i32`;
    fs.writeFileSync(path.join(dir, file), Buffer.from(Int32Array.from([...src, ...dst, ...et]).buffer));
    return {file, edges: src.length, counts: types.map((t) => layer.src[t].length), outCounts: types.map((t) => layer.dst[t].length)};
  });
  const x = b.x.paper.dataSync() as Float32Array;
  fs.writeFileSync(path.join(dir, `${name}x.f32`), Buffer.from(x.buffer, x.byteOffset, x.byteLength));
  fs.writeFileSync(path.join(dir, `${name}y.i32`), Buffer.from((b.y!.dataSync() as Int32Array).buffer));
  return {name, layers, seeds: b.seeds.length};
}

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const matmulPrecision = setBenchMatmulPrecision();
  const dev = wm.deviceInfo();
  const scale = Number(process.env.BENCH_HETERO_SCALE ?? (dev.gpu ? 1 : 0.01));
  const batches = envPositiveInt('BENCH_HETERO_BATCHES', dev.gpu ? 20 : 4);
  // Accuracy beside PyG's: a fresh R-GCN trained BENCH_HETERO_PASSES passes over the timed batches (0: none), then
  // judged on BENCH_HETERO_VAL_BATCHES batches of validation papers; PyG's RGCNConv the same on the same batches.
  const passes = Number(process.env.BENCH_HETERO_PASSES ?? 10);
  if (!(Number.isInteger(passes) && passes >= 0)) throw new RangeError(`BENCH_HETERO_PASSES must be a non-negative integer, got ${passes}`);
  const seedRuns = envPositiveInt('BENCH_HETERO_SEEDS', 3); // fresh models a side, each from its own seeds
  const valCount = envPositiveInt('BENCH_HETERO_VAL_BATCHES', dev.gpu ? 8 : 2);
  const t0 = Date.now();
  const g = magShaped(scale);
  const types = g.nodeTypes,
    relations = g.edgeTypes.map(edgeTypeKey);
  const edges = [...g.relations.values()].reduce((a, r) => a + r.numEdges, 0);
  console.log(
    `ogbn-mag-shaped x ${scale}: ${types.map((t) => `${t} ${g.numNodes[t]}`).join(', ')}; ${edges} edges in ${relations.length} relations (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
  );
  const hidden = 64,
    classes = g.labels!.numClasses;
  const convs = [
    new RgcnConv({inDim: 128, units: hidden, relations, numBases: 8, seed: 1}),
    new RgcnConv({inDim: hidden, units: classes, relations, numBases: 8, seed: 2}),
  ];
  const vars = convs.flatMap((c) => c.variables);
  const opt = adam(0.01);
  // R-GAT: 4 heads of 16 concatenated (hidden 64), then one head of the classes; PyG's HeteroConv of GATConv alike.
  const gats = [
    new RgatConv({inDim: 128, units: hidden / 4, heads: 4, relations, seed: 3}),
    new RgatConv({inDim: hidden, units: classes, heads: 1, relations, seed: 4}),
  ];
  const gatVars = gats.flatMap((c) => c.variables);
  const gatOpt = adam(0.01);
  // Batches sampled on the GPU where there is one (BENCH_HETERO_SAMPLE=host: on the host).
  const sampleOn = (process.env.BENCH_HETERO_SAMPLE ?? 'auto') as TypedSampling;
  const sampled = typedGraphFor(g, sampleOn);
  const where = sampled.graph === g ? 'host' : 'device';
  console.log(`typed batches sampled on the ${where}`);
  const loader = new TypedNeighborLoader(sampled.graph, {fanouts: [25, 20], batchSize: 1024, shuffle: true, seed: 1});
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bench-hetero-'));
  const meta: object[] = [],
    valMeta: object[] = [];
  const kept: TypedBatch[] = [],
    valBatches: TypedBatch[] = [];
  let ours = NaN;
  try {
    let k = 0,
      timed = 0,
      sampleMs = 0,
      stepMs = 0,
      lastEnd = Date.now();
    const step = typedStep(convs, opt, vars, 'paper'),
      gatStep = typedStep(gats, gatOpt, gatVars, 'paper');
    let gatMs = 0;
    // A batch's blocks staged before its step: PyG's side reads its batches to the GPU before its clock starts, so the
    // step is timed alike.
    const stage = (b: TypedBatch) => stageBlocks(b.sub);
    let stageMs = 0;
    for await (const b of loader) {
      const t1 = Date.now();
      stage(b);
      wm.synchronize();
      const t2 = Date.now();
      step(b);
      wm.synchronize();
      const t3 = Date.now();
      gatStep(b);
      wm.synchronize();
      // The first two batches warm up; the rates count sampling, staging and steps, not the dump for PyG.
      if (k >= 2) {
        ++timed;
        sampleMs += t1 - lastEnd;
        stageMs += t2 - t1;
        stepMs += t3 - t2;
        gatMs += Date.now() - t3;
      }
      meta.push(dumpBatch(b, types, relations, dir, `b${k}`));
      kept.push(b);
      lastEnd = Date.now();
      if (++k >= batches + 2) break;
    }
    const phased = timed / ((sampleMs + stageMs + stepMs) / 1000);
    // Training steps timed as PyG's are (bench/torch/hetero.py): over the same batches, already on the device, two
    // warm-up steps, then the others back to back with one wait at the end.
    const backToBack = (train: (b: TypedBatch) => void): number => {
      kept.slice(0, 2).forEach(train);
      wm.synchronize();
      const t0 = Date.now();
      kept.slice(2).forEach(train);
      wm.synchronize();
      return (kept.length - 2) / ((Date.now() - t0) / 1000);
    };
    const oursSteps = backToBack(step);
    const gatSteps = backToBack(gatStep);
    if (passes === 0) kept.splice(0).forEach((b) => b.dispose());
    // As a training loop runs: no wait between batches, so the next batch is sampled (on the GPU's side stream,
    // or on the host) while the GPU still trains on this one; one wait at the end.
    const endToEnd = async (train: (b: TypedBatch) => void): Promise<number> => {
      const again = new TypedNeighborLoader(sampled.graph, {fanouts: [25, 20], batchSize: 1024, shuffle: true, seed: 3});
      let n = 0,
        t0 = 0;
      for await (const b of again) {
        stage(b);
        train(b);
        b.dispose();
        if (++n === 2) {
          wm.synchronize();
          t0 = Date.now(); // after two warm-up batches
        }
        if (n >= batches + 2) break;
      }
      wm.synchronize();
      again.dispose();
      return batches / ((Date.now() - t0) / 1000);
    };
    ours = await endToEnd(step);
    const gatEndToEnd = await endToEnd(gatStep);
    console.log(
      `ours, each phase waited for: ${timed} steps, ${(sampleMs / timed).toFixed(1)} ms sampling, ${(stageMs / timed).toFixed(1)} ms staging the blocks ` +
        `(transposes, uploads) and ${(stepMs / timed).toFixed(1)} ms training a step (R-GAT: ${(gatMs / timed).toFixed(1)} ms)`,
    );
    // BENCH_PROFILE_STEPS (default 3; 0: none) more steps under wm.profileOps, sampling and staging included: each op's ms per step.
    const profiled = Number(process.env.BENCH_PROFILE_STEPS ?? 3);
    for (const [name, train] of profiled > 0
      ? ([
          ['R-GCN', step],
          ['R-GAT', gatStep],
        ] as const)
      : []) {
      const again = new TypedNeighborLoader(sampled.graph, {fanouts: [25, 20], batchSize: 1024, shuffle: true, seed: 2});
      try {
        const prof = await wm.profileOps(async () => {
          let n = 0;
          for await (const b of again) {
            stage(b);
            train(b);
            b.dispose();
            if (++n >= profiled) break;
          }
        });
        console.log(
          `${name} profiled (${profiled} steps, sampling and staging included): ${(prof.wallMs / profiled).toFixed(1)} ms a step; per step: ` +
            prof.ops
              .slice(0, 14)
              .map((o) => `${o.name} ${o.where} ${(o.ms / profiled).toFixed(2)}`)
              .join(', '),
        );
      } finally {
        again.dispose();
      }
    }
    let accuracy: {ours: number; oursSd: number; oursRuns: number[]; trainBatches: number; passes: number; valPapers: number} | undefined;
    if (passes > 0) {
      const valLoader = new TypedNeighborLoader(sampled.graph, {fanouts: [25, 20], batchSize: 1024, seed: 4, seeds: g.labels!.split!.val});
      for await (const b of valLoader) {
        valMeta.push(dumpBatch(b, types, relations, dir, `v${valBatches.length}`));
        valBatches.push(b);
        if (valBatches.length >= valCount) break;
      }
      valLoader.dispose();
      // Each of `runs` fresh models from its own seeds (PyG's: torch.manual_seed(run)); the mean and spread compared.
      const runs: number[] = [];
      let seen = 0;
      for (let run = 0; run < seedRuns; ++run) {
        const fresh = [
          new RgcnConv({inDim: 128, units: hidden, relations, numBases: 8, seed: 5 + 2 * run}),
          new RgcnConv({inDim: hidden, units: classes, relations, numBases: 8, seed: 6 + 2 * run}),
        ];
        const freshOpt = adam(0.01);
        try {
          const train = typedStep(
            fresh,
            freshOpt,
            fresh.flatMap((c) => c.variables),
            'paper',
          );
          for (let p = 0; p < passes; ++p) for (const b of kept) train(b);
          let right = 0;
          seen = 0;
          for (const b of valBatches) {
            const predicted = tf.tidy(() => tf.argMax(typedLogits(fresh, b, 'paper'), 1)).dataSync();
            const y = b.y!.dataSync();
            for (let i = 0; i < y.length; ++i) right += predicted[i] === y[i] ? 1 : 0;
            seen += y.length;
          }
          runs.push(right / seen);
        } finally {
          fresh.forEach((c) => c.dispose());
          freshOpt.dispose();
        }
      }
      const [mean, sd] = meanStd(runs);
      accuracy = {ours: mean, oursSd: sd, oursRuns: runs, trainBatches: kept.length, passes, valPapers: seen};
      console.log(
        `R-GCN accuracy: ${passes} passes over ${kept.length} batches, ${(100 * mean).toFixed(2)} ± ${(100 * sd).toFixed(2)} % of ${seen} validation papers (${runs.length} seeds)`,
      );
    }
    fs.writeFileSync(
      path.join(dir, 'meta.json'),
      // PyG runs where ours ran: on the GPU, or on the CPU where there is none (or none is visible).
      JSON.stringify({
        types,
        relations,
        hidden,
        classes,
        batches: meta,
        val: valMeta,
        passes,
        seeds: seedRuns,
        device: dev.gpu ? 'cuda' : 'cpu',
      }),
    );
    const pyg =
      process.env.BENCH_TORCH !== ''
        ? torchJson<{
            stepsPerSecond: number;
            rgatStepsPerSecond: number;
            accuracy?: number;
            accuracySd?: number;
            accuracyRuns?: number[];
            torch: string;
            pyg: string;
          }>('hetero.py', [dir])
        : undefined;
    const row = {
      oursStepsPerSecond: ours,
      oursPhasedStepsPerSecond: phased,
      oursSeedsPerSecond: ours * 1024,
      oursTrainingStepsPerSecond: oursSteps,
      pygStepsPerSecond: pyg?.stepsPerSecond,
      ratio: pyg ? ours / pyg.stepsPerSecond : undefined,
      trainingRatio: pyg ? oursSteps / pyg.stepsPerSecond : undefined,
      rgat: {
        oursStepsPerSecond: gatEndToEnd,
        oursTrainingStepsPerSecond: gatSteps,
        pygStepsPerSecond: pyg?.rgatStepsPerSecond,
        ratio: pyg ? gatEndToEnd / pyg.rgatStepsPerSecond : undefined,
        trainingRatio: pyg ? gatSteps / pyg.rgatStepsPerSecond : undefined,
      },
    };
    const rgcnAccuracy = accuracy && {...accuracy, pyg: pyg?.accuracy, pygSd: pyg?.accuracySd, pygRuns: pyg?.accuracyRuns};
    writeBenchResult('hetero', {
      device: dev,
      matmulPrecision,
      scale,
      batches,
      edges,
      fanouts: [25, 20],
      hidden,
      sampledOn: where,
      ...row,
      rgcnAccuracy,
      pyg,
    });
    if (rgcnAccuracy?.pyg !== undefined)
      console.log(
        `R-GCN validation accuracy after ${passes} passes over the same ${kept.length} batches, ${seedRuns} seeds each: ours ` +
          `${(100 * rgcnAccuracy.ours).toFixed(2)} ± ${(100 * rgcnAccuracy.oursSd).toFixed(2)} %, PyG RGCNConv ${(100 * rgcnAccuracy.pyg).toFixed(2)} ± ` +
          `${(100 * (rgcnAccuracy.pygSd ?? 0)).toFixed(2)} % (${(100 * (rgcnAccuracy.ours - rgcnAccuracy.pyg)).toFixed(2)} points)`,
      );
    console.log(
      `\nR-GCN, batch 1024, fan-out [25, 20]: training steps on batches already on the device, ours ${oursSteps.toFixed(2)} steps/s` +
        (pyg ? `, PyG RGCNConv ${pyg.stepsPerSecond.toFixed(2)} steps/s: ${(oursSteps / pyg.stepsPerSecond).toFixed(2)}x` : '') +
        `; ours with sampling (on the ${where}) and staging, ${ours.toFixed(2)} steps/s (${Math.round(ours * 1024)} seeds/s)` +
        (pyg ? `: ${(ours / pyg.stepsPerSecond).toFixed(2)}x PyG's steps alone` : ''),
    );
    console.log(
      `R-GAT (4 heads): training steps ours ${gatSteps.toFixed(2)} steps/s` +
        (pyg ? `, PyG HeteroConv(GATConv) ${pyg.rgatStepsPerSecond.toFixed(2)}: ${(gatSteps / pyg.rgatStepsPerSecond).toFixed(2)}x` : '') +
        `; end to end ${gatEndToEnd.toFixed(2)} steps/s` +
        (pyg ? `: ${(gatEndToEnd / pyg.rgatStepsPerSecond).toFixed(2)}x PyG's steps alone` : ''),
    );
  } finally {
    [...kept, ...valBatches].forEach((b) => b.dispose());
    fs.rmSync(dir, {recursive: true, force: true});
    [...convs, ...gats].forEach((c) => c.dispose());
    opt.dispose();
    gatOpt.dispose();
    loader.dispose();
    sampled.release();
    g.free();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

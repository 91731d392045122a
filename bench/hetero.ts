// `npm run bench:hetero` — R-GCN on a typed graph shaped like ogbn-mag against PyG's RGCNConv on the same
// GPU and the same sampled batches. The graph: ogbn-mag's types and counts (736,389 papers, 1,134,649
// authors, 8,740 institutions, 59,965 fields of study), its four relations at their sizes (cites 5,416,271,
// writes 7,145,660, affiliated with 1,043,998, has topic 7,505,078) drawn uniformly and seeded, every
// relation made two-way (about 42M edges), 128 float32 features on papers, 349 classes; BENCH_HETERO_SCALE
// shrinks every count. Batches of 1024 training papers, fan-out [25, 20] per relation, two layers, hidden 64,
// numBases 8 (PyG: RGCNConv(num_bases=8) over each layer's homogeneous form, the same edges and inputs;
// types without features take zeros on both sides). Training steps per second (forward, backward, Adam) over
// BENCH_HETERO_BATCHES batches after two warm-up batches; seeds/s = 1024 x steps/s.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {edgeTypeKey} from '../src/graph/hetero_graph';
import {RgcnConv} from '../src/nn/hetero/rgcn_conv';
import {softmaxCrossEntropy} from '../src/nn/softmax_cross_entropy';
import {TypedBatch, TypedNeighborLoader} from '../src/nn/typed_neighbor_loader';
import {adam} from '../src/optimizers/fused_adam';
import {envPositiveInt, torchJson, writeBenchResult} from './bench_util';
import {magShaped} from './mag_shaped';

/** A batch for PyG: each layer's types' input counts, its edges (source and destination index in the layer's homogeneous form) and relation ids. */
function dumpBatch(b: TypedBatch, types: string[], relations: string[], dir: string, k: number): object {
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
    const file = `b${k}l${li}.i32`;
    fs.writeFileSync(path.join(dir, file), Buffer.from(Int32Array.from([...src, ...dst, ...et]).buffer));
    return {file, edges: src.length, counts: types.map((t) => layer.src[t].length), outCounts: types.map((t) => layer.dst[t].length)};
  });
  const x = b.x.paper.dataSync() as Float32Array;
  fs.writeFileSync(path.join(dir, `b${k}x.f32`), Buffer.from(x.buffer, x.byteOffset, x.byteLength));
  fs.writeFileSync(path.join(dir, `b${k}y.i32`), Buffer.from((b.y!.dataSync() as Int32Array).buffer));
  return {layers, seeds: b.seeds.length};
}

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const dev = wm.deviceInfo();
  const scale = Number(process.env.BENCH_HETERO_SCALE ?? (dev.gpu ? 1 : 0.01));
  const batches = envPositiveInt('BENCH_HETERO_BATCHES', dev.gpu ? 20 : 4);
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
  const loader = new TypedNeighborLoader(g, {fanouts: [25, 20], batchSize: 1024, shuffle: true, seed: 1});
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bench-hetero-'));
  const meta: object[] = [];
  let ours = NaN;
  try {
    let k = 0,
      timed = 0,
      sampleMs = 0,
      stepMs = 0,
      lastEnd = Date.now();
    for await (const b of loader) {
      const t1 = Date.now();
      opt.minimize(
        () => {
          let h = b.x;
          b.sub.layers.forEach((layer, i) => {
            const out = convs[i].apply(h, layer);
            h = i === 0 ? Object.fromEntries(Object.entries(out).map(([t, x]) => [t, tf.relu(x) as tf.Tensor2D])) : out;
          });
          return softmaxCrossEntropy(b.y!, h.paper);
        },
        false,
        vars,
      );
      wm.synchronize();
      // The first two batches warm up; the rate counts sampling and steps, not the dump for PyG.
      if (k >= 2) {
        ++timed;
        sampleMs += t1 - lastEnd;
        stepMs += Date.now() - t1;
      }
      meta.push(dumpBatch(b, types, relations, dir, k));
      b.dispose();
      lastEnd = Date.now();
      if (++k >= batches + 2) break;
    }
    ours = timed / ((sampleMs + stepMs) / 1000);
    console.log(`ours: ${timed} steps, ${(sampleMs / timed).toFixed(1)} ms sampling and ${(stepMs / timed).toFixed(1)} ms training a step`);
    fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({types, relations, hidden, classes, batches: meta}));
    const pyg = dev.gpu ? torchJson<{stepsPerSecond: number; torch: string; pyg: string}>('hetero.py', [dir]) : undefined;
    const row = {
      oursStepsPerSecond: ours,
      oursSeedsPerSecond: ours * 1024,
      pygStepsPerSecond: pyg?.stepsPerSecond,
      ratio: pyg ? ours / pyg.stepsPerSecond : undefined,
    };
    writeBenchResult('hetero', {device: dev, scale, batches, edges, fanouts: [25, 20], hidden, ...row, pyg});
    console.log(
      `\nR-GCN, batch 1024, fan-out [25, 20]: ours ${ours.toFixed(2)} steps/s (${Math.round(ours * 1024)} seeds/s)` +
        (pyg ? `, PyG RGCNConv ${pyg.stepsPerSecond.toFixed(2)} steps/s: ${(ours / pyg.stepsPerSecond).toFixed(2)}x` : ''),
    );
  } finally {
    fs.rmSync(dir, {recursive: true, force: true});
    convs.forEach((c) => c.dispose());
    opt.dispose();
    loader.dispose();
    g.free();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

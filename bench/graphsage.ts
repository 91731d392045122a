// `npm run bench:graphsage`: sampled GraphSAGE training throughput (seeds per
// second) on a seeded R-MAT graph: 128-wide float32 node embeddings in
// WholeMemory (continuous, over every rank's GPU; shared host memory on the
// CPU), 2 layers, mean aggregation over compact sampled subgraphs, fan-out
// 25/10, 1,024 seeds per rank per step, data parallel over the ranks.
// BENCH_SCALE sets the graph (2^scale vertices, 16 edges each; default 16),
// BENCH_RANKS the ranks (default: every GPU, or 1). Starts its own ranks.
import * as fs from 'fs';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {CsrGraph} from '../src/graph/csr';
import {rmat} from '../src/graph/rmat';
import {sampleSubgraph} from '../src/graph/subgraph';
import {GraphSageClassifier} from '../src/nn/graphsage';
import {seededRng} from '../src/util/random';
import {rankOrMain, resultOnRanks} from './bench_util';

const root = path.resolve(__dirname, '..', '..');
const SCALE = Number(process.env.BENCH_SCALE ?? 16);
const BATCH = Number(process.env.BENCH_BATCH ?? 1024);
const STEPS = Number(process.env.BENCH_STEPS ?? 20);
const DIM = 128, CLASSES = 16;

async function rank(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const comm = wm.communicatorFromEnv();
  const t0 = Date.now();
  const graph = CsrGraph.fromEdges(rmat({scale: SCALE, seed: 1}), {symmetric: true});
  const built = (Date.now() - t0) / 1000;
  const n = graph.numVertices;
  const model = new GraphSageClassifier({numNodes: n, numClasses: CLASSES, embeddingDim: DIM, hiddenDim: DIM, numLayers: 2, dropout: 0,
                                         seed: 3, embeddingLearningRate: 0.01, embeddingMemory: 'continuous', communicator: comm});
  const dp = wm.dataParallel(tf.train.adam(0.01), comm);
  dp.broadcastVariables(model.denseVariables);
  const rng = seededRng(100 + comm.rank);
  const step = () => {
    const seeds = new Int32Array(BATCH);
    const seen = new Set<number>();
    for (let i = 0; i < BATCH;) {
      const v = Math.floor(rng() * n);
      if (!seen.has(v)) {
        seen.add(v);
        seeds[i++] = v;
      }
    }
    const sub = sampleSubgraph(graph, seeds, [25, 10], {seed: Math.floor(rng() * 2 ** 31)});
    // Synthetic labels: the task does not matter, the work does.
    const y = tf.tidy(() => tf.oneHot(tf.tensor1d(Int32Array.from(seeds, (v) => v % CLASSES), 'int32'), CLASSES));
    const loss = dp.minimize(() => tf.losses.softmaxCrossEntropy(y, model.forwardSubgraph(sub, true)) as tf.Scalar, model.trainableVariables);
    model.embedding.step();
    sub.dispose();
    tf.dispose([y, loss]);
  };
  for (let i = 0; i < 3; ++i) step();
  wm.synchronize();
  comm.barrier();
  const s0 = process.hrtime.bigint();
  for (let i = 0; i < STEPS; ++i) step();
  wm.synchronize();
  comm.barrier();
  const seconds = Number(process.hrtime.bigint() - s0) / 1e9;
  const result = {ranks: comm.size, seedsPerSecond: (BATCH * STEPS * comm.size) / seconds, msPerStep: (1000 * seconds) / STEPS, built};
  if (comm.rank === 0) process.stdout.write(`RESULT ${JSON.stringify({...result, vertices: n, edges: graph.numEdges / 2})}\n`);
  model.dispose();
  comm.destroy();
}

function main(): void {
  const info = wm.deviceInfo();
  const maxRanks = Number(process.env.BENCH_RANKS ?? (info.gpu ? info.deviceCount : 1));
  const counts = [1, 2, 4, 8].filter((r) => r <= maxRanks);
  const rows: {ranks: number; seedsPerSecond: number; msPerStep: number; built: number; vertices: number; edges: number}[] = [];
  for (const ranks of counts) rows.push(resultOnRanks(ranks, __filename, 'RESULT '));
  const where = info.gpu ? `${info.name}` : 'CPU (host memory)';
  console.log(`\nGraphSAGE on R-MAT scale ${SCALE} (${rows[0].vertices} vertices, ${rows[0].edges} edges), ${DIM}-wide embeddings in continuous WholeMemory,` +
              ` fan-out 25/10, ${BATCH} seeds per rank per step, ${where}`);
  console.log('| ranks | seeds/s | ms per step | scaling |');
  console.log('| --- | --- | --- | --- |');
  for (const r of rows) console.log(`| ${r.ranks} | ${r.seedsPerSecond.toFixed(0)} | ${r.msPerStep.toFixed(1)} | ${(r.seedsPerSecond / rows[0].seedsPerSecond).toFixed(2)}× |`);
  const out = process.env.BENCH_OUT ?? path.join(root, 'runs', 'bench', 'graphsage.json');
  fs.mkdirSync(path.dirname(out), {recursive: true});
  fs.writeFileSync(out, JSON.stringify({date: new Date().toISOString(), scale: SCALE, batch: BATCH, device: where, results: rows}, null, 2));
}

rankOrMain(rank, main);

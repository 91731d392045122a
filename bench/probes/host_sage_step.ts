// GraphSAGE trained from a NeighborLoader over a host graph (the CPU path): a CSBM of PROBE_VERTICES (200,000)
// vertices, 128 features, fan-out 15/10, hidden 128, batch 1024, without replacement (the host sampler's default).
// Prints the mean ms of a step over an epoch of 40 batches (sampling ahead included), one batch's sampling by
// sampleSubgraph (its native ops), and one step's ops (wm.profileOps). Run: node dist/bench/probes/host_sage_step.js
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {envPositiveInt} from '../bench_util';

const VERTICES = envPositiveInt('PROBE_VERTICES', 200_000);

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const data = wm.graph.csbm({vertices: VERTICES, classes: 8, features: 128, degree: 15, homophily: 0.7, signal: 1, seed: 3});
  const features = wm.nn.featureTable(data.features!.values, VERTICES, 128);
  const model = new wm.nn.GraphSageClassifier({
    numNodes: VERTICES,
    numClasses: 8,
    embeddingDim: 0,
    features,
    hiddenDim: 128,
    numLayers: 2,
    dropout: 0,
    seed: 3,
    embeddingLearningRate: 0,
  });
  const optimizer = wm.train.adam(0.003);
  const seeds = Int32Array.from({length: 40 * 1024}, (_, i) => (i * 7) % VERTICES);
  const loader = new wm.nn.NeighborLoader(data.graph, seeds, {fanouts: [15, 10], batchSize: 1024, seed: 2, labels: data.labels});
  let steps = 0;
  let profile: ReturnType<typeof wm.profileOps> | undefined;
  const t0 = process.hrtime.bigint();
  for await (const b of loader) {
    const step = () => {
      const loss = optimizer.minimize(
        () => wm.nn.softmaxCrossEntropy(b.y!, model.forward(b, b.seed)) as tf.Scalar,
        true,
        model.trainableVariables,
      )!;
      loss.dataSync();
      loss.dispose();
    };
    if (steps === 10) profile = wm.profileOps(step);
    else step();
    b.dispose();
    ++steps;
  }
  const stepMs = Number(process.hrtime.bigint() - t0) / 1e6 / steps;
  const batch = seeds.subarray(0, 1024);
  const sampled = wm.profileOps(() => {
    for (let k = 0; k < 10; ++k) wm.graph.sampleSubgraph(data.graph, batch, [15, 10], {seed: k}).dispose();
  });
  const per = (ops: {name: string; ms: number}[], n: number) => ops.map((o) => `${o.name} ${(o.ms / n).toFixed(2)}`).join(', ');
  console.log(`${steps} steps, ${stepMs.toFixed(1)} ms a step (sampling ahead included)`);
  console.log(`sampleSubgraph: ${(sampled.wallMs / 10).toFixed(2)} ms a batch (${per(sampled.ops, 10)})`);
  console.log(`one step's ops: ${per(profile!.ops.slice(0, 8), 1)}`);
  model.dispose();
  features.dispose();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

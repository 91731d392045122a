// A full-batch GCN training epoch on a Cora-shaped citation graph as a PyG user writes it (docs/gnn-guide.md's
// loop: input dropout, gcnConv 16 wide with ReLU, dropout, gcnConv to the classes, Adam 0.01, weight decay
// 5e-4 on the first layer): the median ms of an epoch over PROBE_EPOCHS (200), then where 20 epochs' time goes
// (wm.profileOps). Run: node dist/bench/probes/gcn_epoch.js
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-layers';
import * as tfl from '@tensorflow/tfjs-layers';

import * as wm from '../../src/index';
import {envPositiveInt} from '../bench_util';

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const data = wm.graph.citationGraph({seed: 1});
  const {values, dim} = data.features!;
  const rows = new Float32Array(values.length);
  for (let v = 0; v < data.graph.numVertices; ++v) {
    let s = 0;
    for (let j = 0; j < dim; ++j) s += values[v * dim + j];
    for (let j = 0; j < dim; ++j) rows[v * dim + j] = s > 0 ? values[v * dim + j] / s : 0;
  }
  const x = tf.tensor2d(rows, [data.graph.numVertices, dim]);
  const train = data.split!.train;
  const trainIds = tf.tensor1d(train, 'int32');
  const yTrain = Int32Array.from(train, (v) => data.labels[v]);
  const block = wm.graph.CsrBlock.fromGraph(data.graph);
  const model = tfl.sequential({
    layers: [
      wm.nn.dropoutLayer({rate: 0.5, seed: 1, inputShape: [dim]}),
      wm.nn.gcnConv({units: 16, activation: 'relu', kernelRegularizer: {weightDecay: 5e-4}}),
      wm.nn.dropoutLayer({rate: 0.5, seed: 2}),
      wm.nn.gcnConv({units: data.numClasses}),
    ],
  });
  const opt = tf.train.adam(0.01);
  const epoch = () =>
    tf.dispose(
      opt.minimize(() => {
        const out = wm.nn.withGraph(block, () => model.apply(x, {training: true}) as tf.Tensor2D);
        const loss = wm.nn.softmaxCrossEntropy(yTrain, tf.gather(out, trainIds));
        return tf.add(loss, tf.addN(model.calculateLosses())) as tf.Scalar;
      }, true) ?? undefined,
    );
  for (let i = 0; i < 10; ++i) epoch();
  const times: number[] = [];
  for (let i = 0; i < envPositiveInt('PROBE_EPOCHS', 200); ++i) {
    const t0 = process.hrtime.bigint();
    epoch();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  const {ops, wallMs} = wm.profileOps(() => {
    for (let i = 0; i < 20; ++i) epoch();
  });
  console.log(
    `${wm.deviceInfo().gpu ? wm.deviceInfo().name : `CPU, ${wm.deviceInfo().hostThreads} threads`}: epoch median ${times[times.length >> 1].toFixed(2)} ms (min ${times[0].toFixed(2)})`,
  );
  console.log(`20 epochs ${wallMs.toFixed(1)} ms; native ops, ms per epoch:`);
  for (const o of ops.slice(0, 14))
    console.log(
      `  ${o.name.padEnd(28)} ${o.where.padEnd(4)} ${String(o.calls / 20).padStart(5)} calls ${(o.ms / 20).toFixed(3).padStart(8)} ms`,
    );
  console.log('fallbacks', JSON.stringify(wm.fallbackCounts()));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

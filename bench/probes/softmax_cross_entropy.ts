// Softmax cross-entropy and its gradient as a classifier's step takes them (wm.nn.softmaxCrossEntropy over class
// ids): PROBE_ROWS rows of PROBE_CLASSES logits (ogbn-mag's 349 classes by default, a batch of 1024), the median ms
// of the loss with its gradient over three rounds of 50, and each op's share (wm.profileOps).
// Run: node dist/bench/probes/softmax_cross_entropy.js
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {envPositiveInt, median} from '../bench_util';

const ROWS = envPositiveInt('PROBE_ROWS', 1024),
  CLASSES = envPositiveInt('PROBE_CLASSES', 349);

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const logits = tf.randomNormal([ROWS, CLASSES], 0, 3, 'float32', 7);
  const labels = tf.tensor1d(
    Int32Array.from({length: ROWS}, (_, i) => (i * 7919) % CLASSES),
    'int32',
  );
  const step = () => {
    const {value, grad} = tf.valueAndGrad((x: tf.Tensor) => wm.nn.softmaxCrossEntropy(labels, x as tf.Tensor2D) as tf.Scalar)(logits);
    value.dataSync();
    grad.dataSync();
    tf.dispose([value, grad]);
  };
  const where = wm.deviceInfo().gpu ? wm.deviceInfo().name : 'CPU';
  for (let round = 0; round < 3; ++round) {
    const ms: number[] = [];
    for (let i = 0; i < 50; ++i) {
      const t0 = performance.now();
      step();
      ms.push(performance.now() - t0);
    }
    const p = wm.profileOps(step);
    const ops = p.ops.map((o) => `${o.name} ${o.ms.toFixed(3)}`).join(', ');
    console.log(`${where}: [${ROWS}, ${CLASSES}] loss and gradient ${median(ms).toFixed(3)} ms (median of 50); ops: ${ops}`);
  }
  tf.dispose([logits, labels]);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

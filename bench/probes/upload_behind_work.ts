// Whether an upload from JavaScript memory waits for the GPU's queue: a few large products are queued (tens of
// ms of GPU work), then tensors of 4 KiB to 16 MiB are made from Float32Arrays and sent to the GPU, and the host
// time of each is read; then the same with the queue empty. If an upload behind queued work takes as long as the work, the
// host cannot run ahead of the GPU across uploads (each batch's features, blocks and labels), and the launches
// of a small model's step are paid one after another. Host ms per upload, median of 5 tries each way.
// Run on a GPU: node dist/bench/probes/upload_behind_work.js
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../../src/backend/backend_wholememory';
import * as wm from '../../src/index';
import {median} from '../bench_util';

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  if (!wm.deviceInfo().gpu) throw new Error('upload_behind_work: needs a GPU');
  const backend = tf.backend() as WholeMemoryBackend;
  // A tensor made from an array goes to the GPU when a kernel first reads it: made and sent at once here.
  const upload = (values: Float32Array) => {
    const t = tf.tensor1d(values);
    backend.devicePtr(t);
    return t;
  };
  const a = tf.randomNormal([4096, 4096]),
    b = tf.randomNormal([4096, 4096]);
  const queueWork = () => tf.dispose([tf.matMul(a, b), tf.matMul(a, b), tf.matMul(a, b), tf.matMul(a, b)]);
  // How long the queued work takes the GPU.
  queueWork();
  wm.synchronize();
  let t0 = performance.now();
  queueWork();
  wm.synchronize();
  const workMs = performance.now() - t0;
  console.log(`queued work: ${workMs.toFixed(2)} ms of GPU time`);
  console.log('bytes      upload behind work (ms)  upload, queue empty (ms)');
  for (const bytes of [4 << 10, 64 << 10, 1 << 20, 16 << 20]) {
    const values = new Float32Array(bytes / 4).fill(1);
    const behind: number[] = [],
      idle: number[] = [];
    for (let k = 0; k < 5; ++k) {
      queueWork();
      t0 = performance.now();
      const t = upload(values);
      behind.push(performance.now() - t0);
      wm.synchronize();
      t.dispose();
      t0 = performance.now();
      const u = upload(values);
      idle.push(performance.now() - t0);
      wm.synchronize();
      u.dispose();
    }
    console.log(`${String(bytes).padEnd(10)} ${median(behind).toFixed(3).padStart(24)}  ${median(idle).toFixed(3).padStart(24)}`);
  }
  tf.dispose([a, b]);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

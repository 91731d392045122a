// Host µs of one tf.add on the paths a step takes: tiny and mid-size
// tensors, made on the device or uploaded from the host, and reshape views
// of them (conv_parts saw 22 µs for an add of views where bench:ops sees
// ~6 for a tiny add). Median of 9 windows of 200 calls; every case twice (the first pass warms V8 up).
// Run: node dist/bench/probes/add_paths.js
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {callWindowsUs} from '../bench_util';

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const tiny = tf.randomUniform([16]);
  const mid = tf.randomUniform([144, 32]);
  const midDevice = tf.add(mid, 0); // computed on the device (no host copy)
  const view = tf.reshape(tf.randomNormal([3, 3, 16, 32]), [144, 32]);
  const keptScalar = tf.add(tf.scalar(1), 0); // a scalar already on the device
  const cases: [string, () => void][] = [
    ['tiny [16] + itself', () => tf.add(tiny, tiny).dispose()],
    ['[144,32] uploaded + itself', () => tf.add(mid, mid).dispose()],
    ['[144,32] device-made + itself', () => tf.add(midDevice, midDevice).dispose()],
    ['[144,32] reshape view + itself', () => tf.add(view, view).dispose()],
    ['[144,32] + scalar (broadcast)', () => tf.tidy(() => tf.add(midDevice, 1)).dispose()],
    ['[144,32] + device scalar (no upload)', () => tf.add(midDevice, keptScalar).dispose()],
    ['tf.scalar made and disposed (no upload)', () => tf.scalar(1).dispose()],
    ['device scalar + itself', () => tf.add(keptScalar, keptScalar).dispose()],
    ['fresh scalar (uploaded) + device scalar', () => tf.tidy(() => tf.add(tf.scalar(1), keptScalar)).dispose()],
  ];
  console.log(`| tf.add (${wm.deviceInfo().gpu ? wm.deviceInfo().name : 'CPU'}) | µs per call | host µs |\n| --- | --- | --- |`);
  for (const [what, fn] of [...cases, ...cases]) {
    const t = callWindowsUs(fn, 200, 500);
    console.log(`| ${what} | ${t.us.toFixed(2)} | ${t.hostUs.toFixed(2)} |`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

// Where a window-copy convolution's time goes: the parts conv_windows.ts
// builds it from (padding, the window copy, the product), each timed alone,
// next to the whole tf.conv2d (on the GPU an implicit GEMM;
// WM_CONV_IMPLICIT=0 takes the window copies there too), on the bench:conv shapes. µs per call (median of 9 windows,
// GPU synchronised per window). Run: node dist/bench/probes/conv_parts.js
import * as tf from '@tensorflow/tfjs-core';

import {runnerFor} from '../../src/backend/runner';
import * as wm from '../../src/index';
import {geometryOf, padForWindows, windows} from '../../src/kernel_utils/conv_windows';
import {callWindowsUs} from '../bench_util';

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const b = wm.backend();
  const runner = runnerFor(b)!;
  const x = tf.randomNormal([16, 32, 32, 16]);
  const w = tf.randomNormal([3, 3, 16, 32]);
  const info = tf.backend_util.computeConv2DInfo([16, 32, 32, 16], [3, 3, 16, 32], 1, 1, 'same');
  const p = padForWindows(b, x, geometryOf(info), 0);
  const cols = windows(runner, p.t, p.g, 0, 16);
  const a = tf.randomNormal([16 * 32 * 32, 144]);
  const f = tf.reshape(w, [144, 32]);
  const time = (fn: () => void) => callWindowsUs(fn, 50, 20);
  const rows: [string, {us: number; hostUs: number}][] = [
    ['tf.conv2d whole', time(() => tf.conv2d(x as tf.Tensor4D, w as tf.Tensor4D, 1, 'same').dispose())],
    [
      'pad (fill + copy)',
      time(() => {
        const q = padForWindows(b, x, geometryOf(info), 0);
        b.disposeIntermediateTensorInfo(q.t);
      }),
    ],
    ['window copy [16384, 144]', time(() => b.disposeIntermediateTensorInfo(windows(runner, p.t, p.g, 0, 16)))],
    ['matMul [16384,144]x[144,32]', time(() => tf.matMul(a, f).dispose())],
    [
      'window copy, into a kept buffer (no allocation)',
      time(() =>
        runner.native.stridedCopy(
          4,
          runner.input(p.t),
          0,
          [p.g.inH * p.g.inW * 16, (32 * p.g.inW * 16) / 32, 16, p.g.inW * 16, 16, 1],
          [16, 32, 32, 3, 3, 16],
          runner.input(cols),
          0,
          [32 * 32 * 144, 32 * 144, 144, 48, 16, 1],
          [16, 32, 32, 3, 3, 16],
        ),
      ),
    ],
    ['tiny add (launch cost)', time(() => tf.add(f, f).dispose())],
  ];
  console.log(`| part (${wm.deviceInfo().gpu ? wm.deviceInfo().name : 'CPU'}) | µs per call | host µs per call |\n| --- | --- | --- |`);
  for (const [what, t] of rows) console.log(`| ${what} | ${t.us.toFixed(1)} | ${t.hostUs.toFixed(1)} |`);
  b.disposeIntermediateTensorInfo(cols);
  if (p.owned) b.disposeIntermediateTensorInfo(p.t);
  tf.dispose([x, w, a, f]);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

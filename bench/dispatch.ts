// `npm run bench:dispatch` (GPU): host time per call of ops whose
// shapes change from step to step, as a sampled subgraph's do. Queues calls
// without synchronising, so the time is what the host spends per call.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../src/backend/backend_wholememory';
import * as wm from '../src/index';

// Host µs per call of f, queued without synchronising. The warm-up is long
// enough for V8 to optimise the path (with 5 calls an add cost 3x).
function hostUs(f: (i: number) => void, calls: number, warm: (i: number) => void = f): number {
  for (let i = 0; i < 1000; ++i) warm(i);
  wm.synchronize();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; ++i) f(i);
  const us = Number(process.hrtime.bigint() - t0) / 1e3 / calls;
  wm.synchronize();
  return us;
}

// The same for an op: its output is disposed at once.
function perCallUs(f: (i: number) => tf.Tensor, calls: number, warm: (i: number) => tf.Tensor = f): number {
  return hostUs(
    (i) => f(i).dispose(),
    calls,
    (i) => warm(i).dispose(),
  );
}

async function main(): Promise<void> {
  const info = wm.deviceInfo();
  if (!info.gpu) {
    console.log(`bench/dispatch.ts times GPU launches; there is no GPU here (${info.reason})`);
    return;
  }
  await tf.setBackend(wm.BACKEND_NAME);
  if (process.env.DISPATCH_ADDS) {
    // For `node --cpu-prof`: nothing but small adds.
    const a = tf.randomNormal([8, 8]);
    console.log(`${perCallUs(() => tf.add(a, a), Number(process.env.DISPATCH_ADDS)).toFixed(1)} µs per add`);
    return;
  }
  const w = tf.randomNormal([128, 128]);
  const big = tf.randomNormal([30000, 128]);
  const rows = (m: number) => tf.slice(big, [0, 0], [m, 128]);
  const xs = Array.from({length: 400}, (_, i) => rows(24000 + 7 * i));
  const fixed = rows(25000);
  const out: {[k: string]: number} = {};
  out['matMul [25000,128]x[128,128], same shape'] = perCallUs(() => tf.matMul(fixed, w), 2000);
  out['matMul [m,128]x[128,128], a new m each call'] = perCallUs(
    (i) => tf.matMul(xs[(i + 5) % 400], w),
    390,
    () => tf.matMul(fixed, w),
  );
  out['matMul [m,128]x[128,128], the same m values again'] = perCallUs((i) => tf.matMul(xs[(i + 5) % 400], w), 390);
  out['matMul [m,128]^T x [m,128] (weight gradient), new m'] = perCallUs(
    (i) => tf.matMul(xs[(i * 13) % 400], xs[(i * 13) % 400], true, false),
    390,
    () => tf.matMul(fixed, fixed, true, false),
  );
  out['add [25000,128] (12.8 MB output)'] = perCallUs(() => tf.add(fixed, fixed), 2000);
  const small = tf.randomNormal([8, 8]);
  out['add [8,8] (a small block)'] = perCallUs(() => tf.add(small, small), 2000);
  // The native calls under one op, alone: where the host time goes.
  const be = tf.backend() as WholeMemoryBackend;
  const nativeUs = (f: () => void) => hostUs(f, 2000);
  const p = be.native.alloc(256),
    q = be.native.alloc(256);
  out['native alloc + free of 256 bytes'] = nativeUs(() => be.native.free(be.native.alloc(256)));
  // Above 1 MiB: cudaMallocAsync + cudaFreeAsync from the driver's pool (measured at 0.5 µs on an H200: not worth caching).
  out['native alloc + free of 12.8 MB'] = nativeUs(() => be.native.free(be.native.alloc(12.8e6)));
  out['native fill of 64 floats (a launch)'] = nativeUs(() => be.native.fill(0, p, 64, 1));
  out['native binaryFlat of 64 floats (a launch)'] = nativeUs(() => be.native.binaryFlat(0, 0, 0, p, p, q, 64));
  be.native.free(p);
  be.native.free(q);
  for (const [k, v] of Object.entries(out)) console.log(`${v.toFixed(1).padStart(8)} µs  ${k}`);
  console.log(JSON.stringify(wm.deviceInfo()));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

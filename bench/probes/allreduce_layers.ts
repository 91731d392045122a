// Where a GPU all-reduce call's host time goes, layer by layer, on one rank
// (the one-shot kernel then reads only its own buffer, so the GPU side is
// short and the host's cost shows): comm.allReduce with a fresh output tensor
// per call; the addon call alone on preallocated buffers; the same calls
// queued from C++ (allReduceLoop). µs per call, median of 9 windows.
// Run: node dist/bin/tfjs-wm-run.js -n 1 dist/bench/probes/allreduce_layers.js
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../../src/backend/backend_wholememory';
import {WIRE_CODES} from '../../src/memory/allreduce';
import {AllReducePlan} from '../../src/memory/allreduce_plan';
import * as wm from '../../src/index';
import {callWindowsUs, median} from '../bench_util';

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const comm = wm.communicatorFromEnv();
  const b = tf.backend() as WholeMemoryBackend;
  const windowUs = (fn: () => void, reps: number) => callWindowsUs(fn, reps, 300);
  const rows: string[] = [
    '| wire | bytes | tensor call µs (host) | addon call µs (host) | from C++ µs |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const bytes of [1 << 10, 64 << 10, 1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20]) {
    for (const wire of ['bfloat16', 'float32'] as const) {
      const n = bytes / (wire === 'float32' ? 4 : 2);
      const x = tf.randomNormal([n]);
      const reps = bytes <= 1 << 20 ? 400 : 100;
      const full = windowUs(() => comm.allReduce(x, {wire})[0].dispose(), reps);
      const out = b.makeDeviceOutput(x.shape, 'float32');
      const xp = b.devicePtr(x);
      const plan = new AllReducePlan(1);
      plan.header(WIRE_CODES[wire], false, 0, false);
      plan.tensor(0, xp, out.ptr, n);
      const addon = windowUs(() => comm.nativeComm.allReduceDevice(plan.data), reps);
      comm.nativeComm.allReduceLoop(xp, out.ptr, n, WIRE_CODES[wire], 1, 20);
      const cpp = median(Array.from({length: 5}, () => comm.nativeComm.allReduceLoop(xp, out.ptr, n, WIRE_CODES[wire], 1, reps)));
      b.disposeData(out.info.dataId);
      x.dispose();
      rows.push(
        `| ${wire} | ${bytes} | ${full.us.toFixed(2)} (${full.hostUs.toFixed(2)}) | ${addon.us.toFixed(2)} (${addon.hostUs.toFixed(2)}) | ${cpp.toFixed(2)} |`,
      );
    }
  }
  console.log(`all-reduce layers on 1 rank, ${wm.deviceInfo().name}, ${comm.lastAllReducePath}`);
  console.log(rows.join('\n'));
  comm.destroy();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

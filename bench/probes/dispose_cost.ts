// What making and disposing a device tensor costs the host in tfjs bookkeeping (no GPU needed: the
// buffer is a stand-in): our disposeData against one that calls tfjs-backend-cpu's and then frees the
// buffer, alternated in one process. ns per tensor, median of 12 windows of 200,000 each.
// Run: node dist/bench/probes/dispose_cost.js
import * as tf from '@tensorflow/tfjs-core';
import {MathBackendCPU} from '@tensorflow/tfjs-backend-cpu';

import {WholeMemoryBackend} from '../../src/backend/backend_wholememory';
import * as wm from '../../src/index';
import {median} from '../bench_util';

type Dispose = WholeMemoryBackend['disposeData'];

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const b = tf.backend() as WholeMemoryBackend;
  const ours: Dispose = WholeMemoryBackend.prototype.disposeData;
  // The reference: tfjs-backend-cpu's disposeData, then the buffer freed once its entry is gone.
  const throughCpu: Dispose = function (this: WholeMemoryBackend, dataId, force = false) {
    const d = this.data.has(dataId) ? (this.data.get(dataId) as {device?: {release?: () => void}}) : undefined;
    const released = MathBackendCPU.prototype.disposeData.call(this, dataId, force);
    if (d?.device?.release && !this.data.has(dataId)) d.device.release();
    return released;
  };
  const buffer = {ptr: 4096, bytes: 16, managed: false, release: () => {}};
  const window = (n: number) => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; ++i)
      tf.engine()
        .makeTensorFromTensorInfo(b.adoptBuffer([4], 'float32', buffer))
        .dispose();
    return Number(process.hrtime.bigint() - t0) / n;
  };
  const ns: {[k: string]: number[]} = {ours: [], throughCpu: []};
  for (let w = 0; w < 12; ++w) {
    for (const [k, f] of [
      ['ours', ours],
      ['throughCpu', throughCpu],
    ] as const) {
      b.disposeData = f;
      window(20000);
      ns[k].push(window(200000));
    }
  }
  b.disposeData = ours;
  console.log(
    `ns per device tensor made and disposed (median of 12 alternated windows): ours ${median(ns.ours).toFixed(0)}, ` +
      `through tfjs-backend-cpu's disposeData ${median(ns.throughCpu).toFixed(0)}`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

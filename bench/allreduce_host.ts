// Where the host's time per small all-reduce call goes, per rank: the whole
// comm.allReduce, the native call alone (output made once), and making and
// disposing an output tensor (no GPU work at all: it shows a rank whose host
// is slower). Run on 2+ GPUs: node dist/bin/tfjs-wm-run.js -n 2 dist/bench/allreduce_host.js
// PIN="0-7;8-15" pins rank i to the i-th CPU list (taskset) first; PIN_MAIN="2;18" its JavaScript thread alone.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../src/backend/backend_wholememory';
import {AllReducePlan} from '../src/memory/allreduce_plan';
import * as wm from '../src/index';
import {pinFromEnv} from './bench_util';

async function main(): Promise<void> {
  pinFromEnv('PIN');
  await tf.setBackend(wm.BACKEND_NAME);
  if (!wm.deviceInfo().gpu) {
    console.log('allreduce_host measures the GPU all-reduce: no GPU here');
    return;
  }
  const comm = wm.communicatorFromEnv();
  pinFromEnv('PIN_MAIN', 'mainThread');
  const b = tf.backend() as WholeMemoryBackend;
  const x = tf.randomNormal([16384]);
  const calls = 3000;
  // Median of 5 windows: µs per call to queue the calls, and until the GPU has run them.
  const run = (name: string, fn: () => void) => {
    for (let i = 0; i < 1000; ++i) fn();
    const res: [number, number][] = [];
    for (let w = 0; w < 5; ++w) {
      wm.synchronize();
      comm.barrier();
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < calls; ++i) fn();
      const t1 = process.hrtime.bigint();
      wm.synchronize();
      res.push([Number(t1 - t0) / 1e3 / calls, Number(process.hrtime.bigint() - t0) / 1e3 / calls]);
    }
    res.sort((p, q) => p[1] - q[1]);
    console.log(`${name}: host ${res[2][0].toFixed(2)} µs per call, total ${res[2][1].toFixed(2)}`);
  };
  const out = b.makeDeviceOutput(x.shape, 'float32');
  const px = b.devicePtr(x);
  run('comm.allReduce (64 KiB float32) + dispose', () => comm.allReduce(x)[0].dispose());
  const plan = new AllReducePlan(1);
  plan.header(0, false, 0, false);
  plan.tensor(0, px, out.ptr, x.size);
  run('the native call alone', () => comm.nativeComm.allReduceDevice(plan.data));
  run('make + dispose an output tensor', () => tf.engine().makeTensorFromTensorInfo(b.makeDeviceOutput(x.shape, 'float32').info).dispose());
  b.disposeData(out.info.dataId);
  comm.destroy();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

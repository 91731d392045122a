// The JavaScript share of a GPU all-reduce call, measurable anywhere: comm.allReduce's device path with
// the addon's all-reduce and the output buffer stubbed (no GPU needed), so what remains is the front
// end's checks, tfjs' tensor bookkeeping and the backend's. µs per call, median of 9 windows.
// Run: node dist/bin/tfjs-wm-run.js -n 1 dist/bench/probes/allreduce_js_cost.js
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../../src/backend/backend_wholememory';
import * as wm from '../../src/index';
import {callWindowsUs} from '../bench_util';

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const comm = wm.communicatorFromEnv();
  const b = tf.backend() as WholeMemoryBackend;
  const fake = 1 << 20;
  // Stubs: the device path without a device.
  const x = tf.randomNormal([1024]);
  comm.allReduce(x)[0].dispose(); // makes the reducer (the CPU path: no GPU here)
  const stub = comm as unknown as {reducer: {gpu: boolean}; nativeComm: {allReduceDevice: (plan: Float64Array) => number}};
  stub.reducer.gpu = true;
  Object.defineProperty(stub.nativeComm, 'allReduceDevice', {value: () => 0}); // the prototype's is read-only
  b.devicePtr = () => fake;
  const fakeBuffer = () => ({ptr: fake, bytes: 4, managed: false, release: () => {}});
  b.makeDeviceOutput = (shape, dtype) => ({info: b.adoptBuffer(shape, dtype, fakeBuffer()), ptr: fake});
  b.adoptDeviceAllocation = (shape, dtype) => b.adoptBuffer(shape, dtype, fakeBuffer());
  const rows: string[] = ['| what | µs per call |', '| --- | --- |'];
  const row = (what: string, fn: () => void) => rows.push(`| ${what} | ${callWindowsUs(fn, 20000, 20000).us.toFixed(3)} |`);
  row('comm.allReduce(x)[0].dispose()', () => comm.allReduce(x)[0].dispose());
  row('comm.allReduce(x, {wire: bfloat16})[0].dispose()', () => comm.allReduce(x, {wire: 'bfloat16'})[0].dispose());
  row('output tensor made and disposed', () =>
    tf
      .engine()
      .makeTensorFromTensorInfo(b.makeDeviceOutput([1024], 'float32').info)
      .dispose(),
  );
  console.log(rows.join('\n'));
  comm.destroy();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

// A host table's sparse optimizer step as node2vec's context table takes it on the CPU: PROBE_IDS random rows (with
// repeats) of a table of PROBE_ROWS x PROBE_DIM (cond-mat-2005's vertices by default), their float32 gradient rows,
// sparse lazy Adam. Prints the median ms of a step over three rounds of 30.
// Run: node dist/bench/probes/host_sparse_step.js
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {seededRng} from '../../src/util/random';
import {envPositiveInt, median} from '../bench_util';

const ROWS = envPositiveInt('PROBE_ROWS', 40_421),
  DIM = envPositiveInt('PROBE_DIM', 128),
  IDS = envPositiveInt('PROBE_IDS', 300_000);

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const rng = seededRng(3);
  const table = wm.nn.embedding({rows: ROWS, dim: DIM, init: {type: 'uniform', scale: 0.1, seed: 1}, optimizer: wm.nn.adam({lr: 0.01})});
  const ids = tf.tensor1d(
    Int32Array.from({length: IDS}, () => Math.floor(rng() * ROWS)),
    'int32',
  );
  const grads = tf.randomNormal([IDS, DIM], 0, 0.01, 'float32', 5);
  const where = wm.deviceInfo().gpu ? wm.deviceInfo().name : 'CPU';
  for (let round = 0; round < 3; ++round) {
    const ms: number[] = [];
    for (let i = 0; i < 30; ++i) {
      const t0 = performance.now();
      table.applyGradients(ids, grads);
      wm.synchronize();
      ms.push(performance.now() - t0);
    }
    console.log(`${where}: step of ${IDS} rows of ${DIM} into ${ROWS}: ${median(ms).toFixed(2)} ms (median of 30)`);
  }
  tf.dispose([ids, grads]);
  table.dispose();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

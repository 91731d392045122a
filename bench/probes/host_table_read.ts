// A float32 host table's read of many rows (what a loader gathers for a batch's input rows on the CPU path): the mean
// ms of a read of PROBE_ROWS (150,000) random rows of PROBE_DIM (96) from a table of 40,421 rows (cond-mat-2005's
// vertices), each read's tensor disposed before the next, over three rounds of 100.
// Run: node dist/bench/probes/host_table_read.js
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {envPositiveInt} from '../bench_util';

const ROWS = envPositiveInt('PROBE_ROWS', 150_000),
  DIM = envPositiveInt('PROBE_DIM', 96),
  TABLE = 40_421;

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const values = Float32Array.from({length: TABLE * DIM}, (_, i) => Math.sin(i));
  const table = wm.nn.featureTable(values, TABLE, DIM);
  const ids = tf.tensor1d(
    Int32Array.from({length: ROWS}, (_, i) => (i * 7919) % TABLE),
    'int32',
  );
  for (let round = 0; round < 3; ++round) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 100; ++i) table.read(ids).dispose();
    console.log(`read of ${ROWS} rows of ${DIM}: ${(Number(process.hrtime.bigint() - t0) / 1e8).toFixed(2)} ms`);
  }
  ids.dispose();
  table.dispose();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

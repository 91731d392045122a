// What a row cache costs a first layer's neighbour mean read in place (embedding.neighborRows on a 'continuous'
// table, one GPU): PROBE_IDS distinct random input ids of a table of PROBE_ROWS rows x PROBE_DIM float16 (papers100M's
// shape by default), PROBE_DST rows of PROBE_FANOUT neighbours each (positions drawn uniformly among the ids, as a
// low-skew graph's sampler gives them), read with no cache, with every row cached (every read from the cache's
// slots: the same memory), with the second half cached (what each of two ranks caches: the rows the other holds) and
// with the odd rows cached (a cache that is not all rows but one run: through the row map). Prints the median ms of PROBE_READS
// reads of each, and one read's native ops. Run: node dist/bench/probes/cached_gather_mean.js
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {markValid} from '../../src/backend/index_validation';
import {seededRng} from '../../src/util/random';
import {envPositiveInt, median} from '../bench_util';

const ROWS = envPositiveInt('PROBE_ROWS', 111_059_956),
  DIM = envPositiveInt('PROBE_DIM', 128),
  IDS = envPositiveInt('PROBE_IDS', 6_800_000),
  DST = envPositiveInt('PROBE_DST', 940_000),
  FANOUT = envPositiveInt('PROBE_FANOUT', 30),
  READS = envPositiveInt('PROBE_READS', 20);

// n distinct rows below `rows`, in random order.
function distinctRows(n: number, rows: number, rng: () => number): Int32Array {
  const seen = new Uint8Array(rows);
  const out = new Int32Array(n);
  for (let i = 0; i < n;) {
    const r = Math.floor(rng() * rows);
    if (!seen[r]) {
      seen[r] = 1;
      out[i++] = r;
    }
  }
  return out;
}

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  if (!wm.deviceInfo().gpu) throw new Error('cached_gather_mean: needs a GPU (the CPU path reads no table in place)');
  const rng = seededRng(5);
  const table = wm.nn.embedding({rows: ROWS, dim: DIM, dtype: 'float16', memory: 'continuous', init: {type: 'uniform', scale: 1, seed: 3}});
  const ids = tf.tensor1d(distinctRows(IDS, ROWS, rng), 'int32');
  markValid(ids, ROWS);
  const neighbors = tf.tensor1d(
    Int32Array.from({length: DST * FANOUT}, () => Math.floor(rng() * IDS)),
    'int32',
  );
  const time = (label: string): void => {
    const ms: number[] = [];
    for (let k = 0; k < READS + 2; ++k) {
      const t0 = performance.now();
      const out = table.neighborRows(ids, {neighbors, fanout: FANOUT}, DST);
      if (!out) throw new Error('cached_gather_mean: the table is not read in place');
      wm.synchronize();
      if (k >= 2) ms.push(performance.now() - t0);
      tf.dispose(out);
    }
    const hit = table.cacheStats()?.hitRate;
    const p = wm.profileOps(() => table.neighborRows(ids, {neighbors, fanout: FANOUT}, DST));
    tf.dispose(p.result);
    const ops = p.ops.map((o) => `${o.name} ${o.ms.toFixed(3)}`).join(', ');
    console.log(`| ${label} | ${median(ms).toFixed(3)} | ${hit === undefined ? '-' : hit.toFixed(3)} | ${ops} |`);
  };
  console.log(
    `${ROWS} rows x ${DIM} float16 ('continuous', ${wm.deviceInfo().name}), ${IDS} ids, ${DST} rows x ${FANOUT} neighbours, ${READS} reads\n` +
      '| cache | ms a read (median) | hit rate | native ops of one read (ms) |\n| --- | ---: | ---: | --- |',
  );
  time('none');
  const all = Int32Array.from({length: ROWS}, (_, r) => r);
  table.cache({rows: all});
  time('every row');
  // What each of two ranks caches of a continuous table: the rows the other holds.
  table.cache({rows: all.subarray(ROWS >> 1)});
  time('the second half');
  table.cache({rows: all.filter((r) => r % 2 === 1)});
  time('odd rows');
  table.cache(null);
  tf.dispose([ids, neighbors]);
  table.dispose();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

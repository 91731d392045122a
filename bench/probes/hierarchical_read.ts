// What a read of a 'hierarchical' table costs across two hosts: two simulated hosts (network namespaces,
// test/two_hosts.ts; needs root), one rank a host (on a GPU each where there are GPUs: both hosts drive GPU 0 when
// there is one), a table of PROBE_ROWS rows of PROBE_DIM float16 values split between the hosts; each rank reads
// PROBE_IDS random rows (device indices on GPUs) PROBE_READS times, with no cache, with half the other host's rows
// cached, and with every one cached (no row crosses). Prints rank 0's median ms a read for each.
// `node dist/bench/probes/hierarchical_read.js`
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {TwoHosts} from '../../test/two_hosts';
import {seededRng} from '../../src/util/random';
import {median} from '../bench_util';

const ROWS = Number(process.env.PROBE_ROWS ?? 2_000_000);
const DIM = Number(process.env.PROBE_DIM ?? 128);
const IDS = Number(process.env.PROBE_IDS ?? 200_000);
const READS = Number(process.env.PROBE_READS ?? 30);

async function rank(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const comm = wm.communicatorFromEnv({timeoutMs: 120_000});
  const gpu = wm.deviceInfo().gpu;
  const t = wm.nn.embedding({rows: ROWS, dim: DIM, memory: 'hierarchical', communicator: comm, dtype: 'float16', init: {seed: 1}});
  const rng = seededRng(7 + comm.rank);
  const batches = Array.from({length: 4}, () => {
    const ids = Int32Array.from({length: IDS}, () => Math.floor(rng() * ROWS));
    return gpu ? tf.tensor1d(ids, 'int32') : ids;
  });
  const all = Array.from({length: ROWS}, (_, r) => r);
  const time = (label: string) => {
    const ms: number[] = [];
    for (let k = 0; k < READS + 3; ++k) {
      comm.barrier();
      const t0 = performance.now();
      const x = t.read(batches[k % batches.length]);
      if (gpu) wm.synchronize();
      else x.dataSync();
      if (k >= 3) ms.push(performance.now() - t0);
      x.dispose();
    }
    const hit = t.cacheStats()?.hitRate;
    if (comm.rank === 0) console.log(`| ${label} | ${median(ms).toFixed(2)} | ${hit === undefined ? '-' : hit.toFixed(3)} |`);
  };
  if (comm.rank === 0)
    console.log(
      `${ROWS} rows x ${DIM} float16, ${IDS} random ids a read, ${READS} reads, ${gpu ? wm.deviceInfo().name : 'CPU'}, 2 simulated hosts\n` +
        '| cache | ms a read (rank 0, median) | hit rate |\n| --- | ---: | ---: |',
    );
  time('none');
  t.cache({rows: all.filter((r) => r % 2 === 0)});
  time("half the other host's rows");
  t.cache({rows: all});
  time("every row of the other host's");
  t.cache(null);
  comm.barrier();
  t.dispose();
  wm.finalize();
}

async function main(): Promise<void> {
  const hosts = TwoHosts.make();
  if (!(hosts instanceof TwoHosts)) throw new Error(`hierarchical_read: no simulated hosts here (${hosts.why})`);
  try {
    const gpus = wm.deviceInfo().deviceCount;
    const runs = await Promise.all(
      ([0, 1] as const).map((node) =>
        hosts.run(
          node,
          hosts.launcherCommand(node, 29760, __filename, [], 1),
          hosts.rankEnv({
            PROBE_RANK: '1',
            ...(gpus > 0 ? {CUDA_VISIBLE_DEVICES: TwoHosts.gpuOf(node, gpus)} : {}),
            ...TwoHosts.ncclEnv,
          }),
          600_000,
        ),
      ),
    );
    if (runs.some((r) => r.status !== 0)) throw new Error(`hierarchical_read: a rank failed\n${runs[0].out}\n${runs[1].out}`);
    console.log(
      runs[0].out
        .split('\n')
        .filter((l) => /^\[0\] (\||\d)/.test(l))
        .map((l) => l.replace(/^\[0\] /, ''))
        .join('\n'),
    );
  } finally {
    hosts.dispose();
  }
}

(process.env.PROBE_RANK ? rank() : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});

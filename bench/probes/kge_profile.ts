// Where a KGE training epoch's time goes (wm.profileOps): native op time against wall time, per model.
// Default: the WN18RR-sized generated graph of bench:kge with its default chunked negatives (BENCH_KGE_PYG=1: PyG's setting). With
// BENCH_KGE_FREEBASE=<fraction>: bench:kge-freebase's setting and rows (bench/freebase_shaped.ts) on a graph that
// fraction of Freebase's size.
// Under tfjs-wm-run (`node dist/bin/tfjs-wm-run.js -n 2 dist/bench/probes/kge_profile.js`): every rank trains its
// share of batches of BENCH_KGE_FREEBASE_BATCH triples a rank over tables in BENCH_KGE_MEMORY (default continuous),
// and each rank prints its own profile.
// BENCH_KGE_MODELS names the models (transE2: transE with the L2 distance). Prints the twelve costliest ops.
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {patternedKg} from '../../src/graph/kg_patterns';
import {KgeModelName} from '../../src/nn/kge/kge_model';
import {KgeTrainOptions, trainKge} from '../../src/train/kge';
import {readLaunchEnv} from '../../src/memory/launch_env';
import {EmbeddingMemory} from '../../src/nn/embedding';
import {FREEBASE_ROWS, freebaseKg, freebaseOptions} from '../freebase_shaped';

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const fraction = Number(process.env.BENCH_KGE_FREEBASE ?? 0);
  const comm = readLaunchEnv() ? wm.communicatorFromEnv() : undefined;
  const ranks = comm?.size ?? 1;
  const who = ranks > 1 ? `rank ${comm!.rank}: ` : '';
  const kg = fraction > 0 ? freebaseKg(fraction) : patternedKg({entities: 40943, pairs: 15500, seed: 1});
  // BENCH_KGE_PYG=1: bench:kge's row in PyG's setting (a negative per positive), else its chunked negatives.
  const pygSetting =
    process.env.BENCH_KGE_PYG === '1' ? {chunkSize: 1, negatives: 1, adversarialTemperature: 0} : {chunkSize: 256, negatives: 256};
  const fallback = fraction > 0 ? FREEBASE_ROWS.map((r) => r.name).join(',') : 'distMult,rotatE';
  for (const spec of (process.env.BENCH_KGE_MODELS ?? fallback).split(',')) {
    const row = fraction > 0 ? FREEBASE_ROWS.find((r) => r.name === spec) : undefined; // bench:kge's rows share names with these
    if (fraction > 0 && !row) throw new RangeError(`BENCH_KGE_MODELS: '${spec}' is none of ${fallback}`);
    const base: Partial<KgeTrainOptions> = row
      ? freebaseOptions(row)
      : {
          model: (spec === 'transE2' ? 'transE' : spec) as KgeModelName,
          ...(spec === 'transE2' ? {pNorm: 2 as const} : {}),
          dim: 128,
          epochs: 1,
          batchSize: 1024,
          ...pygSetting,
        };
    const opts: Partial<KgeTrainOptions> =
      ranks > 1
        ? {
            ...base,
            batchSize: base.batchSize! * ranks,
            communicator: comm,
            memory: (process.env.BENCH_KGE_MEMORY ?? 'continuous') as EmbeddingMemory,
          }
        : base;
    const warm = await trainKge(kg, opts); // warm-up, unprofiled: the ops overlap as in a run
    warm.model.dispose();
    console.log(`${who}${spec}: unprofiled ${warm.epochs[0].triplesPerSecond.toFixed(0)} triples/s (the warm-up epoch)`);
    const p = await wm.profileOps(() => trainKge(kg, opts));
    p.result.model.dispose();
    const native = p.ops.reduce((a, o) => a + o.ms, 0);
    console.log(
      `${who}${spec}: wall ${p.wallMs.toFixed(0)} ms, native ops ${native.toFixed(0)} ms in ${p.ops.reduce((a, o) => a + o.calls, 0)} calls, ` +
        `${p.result.epochs[0].triplesPerSecond.toFixed(0)} triples/s`,
    );
    for (const o of [...p.ops].sort((a, b) => b.ms - a.ms).slice(0, 12))
      console.log(`${who}  ${o.name.padEnd(28)} ${o.where} ${String(o.calls).padStart(6)} ${o.ms.toFixed(1).padStart(8)} ms`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

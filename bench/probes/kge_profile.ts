// Where a KGE training epoch's time goes (wm.profileOps): native op time against wall time, per model.
// Default: the WN18RR-sized generated graph of bench:kge with its default chunked negatives. With
// BENCH_KGE_FREEBASE=<fraction>: bench:kge's Freebase-shaped setting (dim 400 numbers a row, bfloat16
// tables, batch 8192, 256 negatives per chunk of 256, sparse SGD or BENCH_KGE_FREEBASE_OPTIMIZER) on a graph
// that fraction of Freebase's size.
// Prints the ten costliest ops.
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {freebaseShapedKg, patternedKg} from '../../src/graph/kg_patterns';
import {KgeModelName} from '../../src/nn/kge/kge_model';
import {KgeTrainOptions, trainKge} from '../../src/train/kge';
import {envChoice} from '../bench_util';

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const fraction = Number(process.env.BENCH_KGE_FREEBASE ?? 0);
  const kg =
    fraction > 0
      ? freebaseShapedKg({
          entities: Math.round(86054151 * fraction),
          relations: 14824,
          triples: Math.round(338586276 * fraction),
          seed: 1,
        })
      : patternedKg({entities: 40943, pairs: 15500, seed: 1});
  const fallback = fraction > 0 ? 'transE,transE2,complEx' : 'distMult,rotatE';
  // transE2: transE with the L2 distance.
  for (const spec of (process.env.BENCH_KGE_MODELS ?? fallback).split(',')) {
    const model = (spec === 'transE2' ? 'transE' : spec) as KgeModelName;
    const pNorm = spec === 'transE2' ? 2 : undefined;
    const opts: Partial<KgeTrainOptions> =
      fraction > 0
        ? {
            model,
            pNorm,
            dim: model === 'complEx' || model === 'rotatE' ? 200 : 400,
            dtype: 'bfloat16',
            epochs: 1,
            batchSize: 8192,
            chunkSize: 256,
            negatives: 256,
            optimizer: envChoice('BENCH_KGE_FREEBASE_OPTIMIZER', ['sgd', 'rowAdagrad'] as const, 'sgd'),
            learningRate: 0.1,
          }
        : {model, dim: 128, epochs: 1, batchSize: 1024, chunkSize: 256, negatives: 256};
    const warm = await trainKge(kg, opts); // warm-up, unprofiled: the ops overlap as in a run
    warm.model.dispose();
    console.log(`${spec}: unprofiled ${warm.epochs[0].triplesPerSecond.toFixed(0)} triples/s (the warm-up epoch)`);
    const p = await wm.profileOps(() => trainKge(kg, opts));
    p.result.model.dispose();
    const native = p.ops.reduce((a, o) => a + o.ms, 0);
    console.log(
      `${spec}: wall ${p.wallMs.toFixed(0)} ms, native ops ${native.toFixed(0)} ms in ${p.ops.reduce((a, o) => a + o.calls, 0)} calls, ` +
        `${p.result.epochs[0].triplesPerSecond.toFixed(0)} triples/s`,
    );
    for (const o of [...p.ops].sort((a, b) => b.ms - a.ms).slice(0, 12))
      console.log(`  ${o.name.padEnd(28)} ${o.where} ${String(o.calls).padStart(6)} ${o.ms.toFixed(1).padStart(8)} ms`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

// Where a KGE training epoch's time goes (wm.profileOps): native op time against wall time, per model, on the
// WN18RR-sized generated graph of bench:kge with its default chunked negatives. Prints the ten costliest ops.
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {patternedKg} from '../../src/graph/kg_patterns';
import {KgeModelName} from '../../src/nn/kge/kge_model';
import {trainKge} from '../../src/train/kge';

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const kg = patternedKg({entities: 40943, pairs: 15500, seed: 1});
  for (const model of (process.env.BENCH_KGE_MODELS ?? 'distMult,rotatE').split(',') as KgeModelName[]) {
    const opts = {model, dim: 128, epochs: 1, batchSize: 1024, chunkSize: 256, negatives: 256};
    (await trainKge(kg, opts)).model.dispose(); // warm-up
    const p = await wm.profileOps(() => trainKge(kg, opts));
    p.result.model.dispose();
    const native = p.ops.reduce((a, o) => a + o.ms, 0);
    console.log(
      `${model}: wall ${p.wallMs.toFixed(0)} ms, native ops ${native.toFixed(0)} ms in ${p.ops.reduce((a, o) => a + o.calls, 0)} calls`,
    );
    for (const o of [...p.ops].sort((a, b) => b.ms - a.ms).slice(0, 10))
      console.log(`  ${o.name.padEnd(28)} ${o.where} ${String(o.calls).padStart(6)} ${o.ms.toFixed(1).padStart(8)} ms`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

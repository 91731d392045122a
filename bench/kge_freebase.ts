// `npm run bench:kge-freebase` — knowledge-graph embeddings at Freebase's shape (bench/freebase_shaped.ts):
// BENCH_KGE_FREEBASE the fraction of Freebase's size (default 1, the whole), BENCH_KGE_FREEBASE_MODELS the rows
// (transE, transE2: L2, complEx; default all), BENCH_MATMUL_PRECISION a comma list of the precisions of the scoring
// products (wm.setMatmulPrecision; default highest), each row run at each. Each row one epoch: triples/s and the
// epoch's seconds.
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {trainKge} from '../src/train/kge';
import {envMatmulPrecisions, writeBenchResult} from './bench_util';
import {FREEBASE_ROWS, freebaseKg, freebaseOptions} from './freebase_shaped';

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const dev = wm.deviceInfo();
  const fraction = Number(process.env.BENCH_KGE_FREEBASE ?? 1);
  if (!(fraction > 0 && fraction <= 1)) throw new RangeError(`BENCH_KGE_FREEBASE must be a fraction in (0, 1], got ${fraction}`);
  const started = Date.now();
  const kg = freebaseKg(fraction);
  console.log(
    `Freebase-shaped x ${fraction}: ${kg.numEntities} entities, ${kg.train.heads.length} triples drawn in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  const chosen = (process.env.BENCH_KGE_FREEBASE_MODELS ?? FREEBASE_ROWS.map((r) => r.name).join(',')).split(',');
  const precisions = envMatmulPrecisions();
  const freebase: object[] = [];
  for (const r of FREEBASE_ROWS.filter((row) => chosen.includes(row.name)))
    for (const precision of precisions) {
      wm.setMatmulPrecision(precision);
      const o = freebaseOptions(r);
      const {model, epochs} = await trainKge(kg, o);
      model.dispose();
      const row = {
        model: r.model,
        dim: r.dim,
        ...('pNorm' in r ? {pNorm: r.pNorm} : {}),
        batch: o.batchSize,
        optimizer: o.optimizer,
        matmulPrecision: precision,
        triplesPerSecond: epochs[0].triplesPerSecond,
        epochSeconds: epochs[0].seconds,
        loss: epochs[0].loss,
        gpu: dev.gpu,
      };
      console.log(JSON.stringify(row));
      freebase.push(row);
    }
  wm.setMatmulPrecision('highest');
  writeBenchResult('kge-freebase', {device: dev, fraction, freebase});
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

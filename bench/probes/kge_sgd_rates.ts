// Sparse SGD's learning rate for knowledge-graph embeddings against the default recipe's Adagrad: the
// validation MRR each rate reaches on generated graphs with planted relation patterns (two families, the mean
// of both), per model and batch size. SGD's step is the rate times the batch's mean gradient, so its useful
// rate moves with the model and the batch; Adagrad's does not.
// BENCH_KGE_EPOCHS (default 20), BENCH_KGE_RATES (default 1,3,10,30,100), BENCH_KGE_BATCHES (default 256,1024).
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {patternedKg} from '../../src/graph/kg_patterns';
import {KgeModelName} from '../../src/nn/kge/kge_model';
import {trainKge} from '../../src/train/kge';

const list = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').map(Number);

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const epochs = Number(process.env.BENCH_KGE_EPOCHS ?? 20);
  const rates = list('BENCH_KGE_RATES', '1,3,10,30,100');
  const batches = list('BENCH_KGE_BATCHES', '256,1024');
  for (const [name, v] of [
    ['BENCH_KGE_EPOCHS', [epochs]],
    ['BENCH_KGE_RATES', rates],
    ['BENCH_KGE_BATCHES', batches],
  ] as const)
    if (!v.every((x) => Number.isFinite(x) && x > 0))
      throw new RangeError(`${name} must list positive numbers, got '${process.env[name]}'`);
  const graphs = [patternedKg({entities: 4000, pairs: 1600, seed: 1}), patternedKg({entities: 8000, pairs: 2000, seed: 2})];
  const settings: ['sgd' | 'adagrad', number][] = [...rates.map((r) => ['sgd', r] as ['sgd', number]), ['adagrad', 0.05]];
  console.log(
    `validation MRR (filtered, 500 triples), mean of ${graphs.length} graphs, ${epochs} epochs, dim 64, 64 negatives per chunk of 64`,
  );
  console.log(`batch  model     ${settings.map(([o, r]) => `${o} ${r}`.padStart(13)).join('')}`);
  for (const batchSize of batches)
    for (const model of ['transE', 'distMult', 'complEx', 'rotatE'] as KgeModelName[]) {
      const cells: string[] = [];
      for (const [optimizer, learningRate] of settings) {
        let sum = 0;
        for (const kg of graphs) {
          const r = await trainKge(kg, {
            model,
            dim: 64,
            epochs,
            batchSize,
            chunkSize: 64,
            negatives: 64,
            optimizer,
            learningRate,
            evalEvery: epochs,
            evalTriples: 500,
          });
          sum += r.epochs[r.epochs.length - 1].valid!.mrr;
          r.model.dispose();
        }
        cells.push((sum / graphs.length).toFixed(3).padStart(13));
      }
      console.log(`${String(batchSize).padEnd(6)} ${model.padEnd(9)} ${cells.join('')}`);
    }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

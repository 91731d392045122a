// `npm run bench:kge-patterns` — which relation patterns each model recovers: for each planted pattern
// (patternedKg with that pattern alone: 300 entities, 300 pairs, 20% of the implied triples held out), each
// model trained with the default recipe (trainKge's defaults: dim 200, the model's margin, sparse Adagrad at 0.05) but 100 epochs of
// batches of 256 in chunks of 64 sharing 64 negatives (the graphs are small),
// then the filtered MRR of the held-out triples (both sides); antisymmetry as the share of training triples
// scored above their reverse. Seeds 1-3, mean.
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {patternedKg, RELATION_PATTERNS, triplesOf} from '../src/graph/kg_patterns';
import {KGE_MODELS} from '../src/nn/kge/kge_model';
import {trainKge} from '../src/train/kge';
import {evaluateKge} from '../src/train/kge_ranking';
import {writeBenchResult} from './bench_util';

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const seeds = [1, 2, 3];
  const table: Record<string, Record<string, number>> = {};
  for (const pattern of RELATION_PATTERNS) {
    table[pattern] = {};
    for (const model of KGE_MODELS) {
      let sum = 0;
      for (const seed of seeds) {
        const kg = patternedKg({entities: 300, pairs: 300, seed, patterns: [pattern]});
        const {model: m} = await trainKge(kg, {
          model,
          epochs: 100,
          batchSize: 256,
          chunkSize: 64,
          negatives: 64,
          seed,
        });
        if (pattern === 'antisymmetric') {
          const a = triplesOf(kg.train, 0);
          const [s1, s2] = [m.score(a.heads, a.relations, a.tails), m.score(a.tails, a.relations, a.heads)];
          const [x, y] = [s1.dataSync(), s2.dataSync()];
          tf.dispose([s1, s2]);
          sum += x.filter((v, i) => v > y[i]).length / x.length;
        } else {
          sum += evaluateKge(m, kg.test, {filter: [kg.train, kg.valid, kg.test]}).mrr;
        }
        m.dispose();
      }
      table[pattern][model] = sum / seeds.length;
    }
    console.log(`${pattern.padEnd(14)} ${KGE_MODELS.map((m) => `${m} ${table[pattern][m].toFixed(3)}`).join('  ')}`);
  }
  writeBenchResult('kge-patterns', {device: wm.deviceInfo(), seeds, table});
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

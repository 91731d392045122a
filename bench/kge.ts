// `npm run bench:kge` — knowledge-graph embeddings against PyG's torch_geometric.nn.kge on the same GPU (or CPU),
// the same triples, dimension, batch, negatives and epochs, each library with its own optimizer (PyG's dense
// Adam at BENCH_KGE_PYG_LR, default 0.01, as its examples train; ours the default recipe's sparse one,
// BENCH_KGE_OPTIMIZER / BENCH_KGE_LR to change it): a WN18RR-sized generated graph with planted
// relation patterns (BENCH_KGE_ENTITIES entities, about 5.6 x BENCH_KGE_PAIRS training triples). For each
// model: PyG's own recipe (one random negative per positive), ours in the same setting (chunks of one
// positive, one negative each), and ours with the default chunked negatives (BENCH_KGE_NEGATIVES shared
// by chunks of BENCH_KGE_CHUNK). Training triples per second and filtered MRR / Hits@10 (both sides,
// a seeded sample of BENCH_KGE_EVAL test triples, one protocol for both libraries).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {patternedKg} from '../src/graph/kg_patterns';
import {Triples} from '../src/graph/triples';
import {KgeModelName} from '../src/nn/kge/kge_model';
import {DEFAULT_KGE, KgeTrainOptions, trainKge} from '../src/train/kge';
import {evaluateKge} from '../src/train/kge_ranking';
import {seededRng, shuffle} from '../src/util/random';
import {envPositiveInt, torchJson, writeBenchResult} from './bench_util';

interface Row {
  model: string;
  setting: string;
  triplesPerSecond: number;
  mrr: number;
  hits10: number;
  pygTriplesPerSecond?: number;
  pygMrr?: number;
}

function sampleTriples(t: Triples, k: number): Triples {
  const at = shuffle(Int32Array.from(t.heads.keys()), seededRng(7)).subarray(0, Math.min(k, t.heads.length));
  return {heads: at.map((i) => t.heads[i]), relations: at.map((i) => t.relations[i]), tails: at.map((i) => t.tails[i])};
}

function writeIds(file: string, t: Triples): void {
  const lines: string[] = [];
  for (let i = 0; i < t.heads.length; ++i) lines.push(`${t.heads[i]}\t${t.relations[i]}\t${t.tails[i]}`);
  fs.writeFileSync(file, lines.join('\n') + '\n');
}

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const dev = wm.deviceInfo();
  const entities = envPositiveInt('BENCH_KGE_ENTITIES', dev.gpu ? 40943 : 2000);
  const pairs = envPositiveInt('BENCH_KGE_PAIRS', dev.gpu ? 15500 : 800);
  const dim = envPositiveInt('BENCH_KGE_DIM', 128);
  const epochs = envPositiveInt('BENCH_KGE_EPOCHS', dev.gpu ? 20 : 3);
  const batch = envPositiveInt('BENCH_KGE_BATCH', 1024);
  const negatives = envPositiveInt('BENCH_KGE_NEGATIVES', 256),
    chunk = envPositiveInt('BENCH_KGE_CHUNK', 256);
  const evalTriples = envPositiveInt('BENCH_KGE_EVAL', 500);
  const lr = Number(process.env.BENCH_KGE_LR ?? DEFAULT_KGE.learningRate);
  const optimizer = (process.env.BENCH_KGE_OPTIMIZER ?? DEFAULT_KGE.optimizer) as KgeTrainOptions['optimizer'];
  const pygLr = Number(process.env.BENCH_KGE_PYG_LR ?? 0.01);
  const models = (process.env.BENCH_KGE_MODELS ?? 'transE,distMult,complEx,rotatE').split(',') as KgeModelName[];
  const kg = patternedKg({entities, pairs, seed: 1});
  console.log(
    `${kg.numEntities} entities, ${kg.numRelations} relations, ${kg.train.heads.length} / ${kg.valid.heads.length} / ${kg.test.heads.length} triples; dim ${dim}, batch ${batch}, ${epochs} epochs; ours ${optimizer} lr ${lr}, PyG's Adam lr ${pygLr}`,
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bench-kge-'));
  const rows: Row[] = [];
  try {
    for (const s of ['train', 'valid', 'test'] as const) writeIds(path.join(dir, `${s}.txt`), kg[s]);
    const filter = [kg.train, kg.valid, kg.test];
    // A seeded sample across every pattern's test triples (they are stored pattern by pattern); PyG's side ranks the same ones.
    const test = sampleTriples(kg.test, evalTriples);
    writeIds(path.join(dir, 'eval.txt'), test);
    for (const model of models) {
      // PyG where ours runs: on the GPU, or on the CPU where ours has none.
      const pyg = torchJson<{triplesPerSecond: number; mrr: number; hits10: number}>('kge.py', [
        dir,
        model,
        String(dim),
        String(epochs),
        String(batch),
        String(pygLr),
        String(evalTriples),
        String(kg.numEntities),
        String(kg.numRelations),
        dev.gpu ? 'cuda' : 'cpu',
      ]);
      const settings: [string, Partial<KgeTrainOptions>][] = [
        ['1 negative per positive (PyG)', {chunkSize: 1, negatives: 1, adversarialTemperature: 0}],
        [`${negatives} negatives per chunk of ${chunk}`, {chunkSize: chunk, negatives}],
      ];
      for (const [setting, extra] of settings) {
        let seen = 0,
          seconds = 0;
        const {model: m} = await trainKge(kg, {model, dim, epochs, batchSize: batch, optimizer, learningRate: lr, ...extra}, (e) => {
          // The first epoch warms up (kernels, the allocator's pool); the rate is over the rest.
          if (e.epoch > 1 || epochs === 1) {
            seen += e.triplesPerSecond * e.seconds;
            seconds += e.seconds;
          }
        });
        const r = evaluateKge(m, test, {filter});
        m.dispose();
        const row: Row = {model, setting, triplesPerSecond: seen / seconds, mrr: r.mrr, hits10: r.hits10};
        if (pyg && setting.endsWith('(PyG)')) Object.assign(row, {pygTriplesPerSecond: pyg.triplesPerSecond, pygMrr: pyg.mrr});
        rows.push(row);
        console.log(JSON.stringify(row));
      }
    }
  } finally {
    fs.rmSync(dir, {recursive: true, force: true});
  }
  writeBenchResult('kge', {device: dev, entities, pairs, dim, epochs, batch, negatives, chunk, optimizer, lr, pygLr, evalTriples, rows});
  console.log('\nmodel     setting                              ours triples/s  PyG triples/s  ratio  ours MRR  PyG MRR');
  for (const r of rows) {
    const ratio = r.pygTriplesPerSecond ? (r.triplesPerSecond / r.pygTriplesPerSecond).toFixed(2) + 'x' : '-';
    console.log(
      `${r.model.padEnd(9)} ${r.setting.padEnd(36)} ${r.triplesPerSecond.toFixed(0).padStart(14)} ${(r.pygTriplesPerSecond?.toFixed(0) ?? '-').padStart(14)} ${ratio.padStart(6)} ${r.mrr.toFixed(3).padStart(9)} ${(r.pygMrr?.toFixed(3) ?? '-').padStart(8)}`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

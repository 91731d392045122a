// `npm run bench:gcn-accuracy` — accuracy parity with PyG: the GCN paper's
// recipe (2 layers, hidden 64, dropout 0.5, weight decay 5e-4, Adam 0.01,
// row-normalised features, 200 epochs, the test accuracy at the best
// validation epoch) trained by us and by torch-geometric's GCNConv
// (bench/torch/gcn_accuracy.py) on the same citation-like graphs and splits,
// 5 seeds each, the models' own predictions (no smoothing). Where PyG is not
// installed, our side alone. Also the time per run on each side.
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {rowNormalized} from '../src/graph/transforms';
import {GCN_RECIPE} from '../src/train/model_search';
import {trainNodeClassification} from '../src/train/node_classification';
import {envPositiveInt, torchJsonWithFiles, writeBenchResult} from './bench_util';

const GRAPHS: [string, wm.graph.CitationOptions][] = [
  ['citation-like A (2,708 vertices, 1,433 words, 7 classes)', {seed: 1}],
  [
    'citation-like B (3,327 vertices, 3,703 words, 6 classes)',
    {vertices: 3327, classes: 6, words: 3703, wordsPerVertex: 32, degree: 2.8, homophily: 0.74, wordSignal: 0.11, seed: 1},
  ],
];

const stats = (xs: number[]) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return {mean: m, std: Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length)};
};
const pct = (s: {mean: number; std: number}) => `${(100 * s.mean).toFixed(1)} ± ${(100 * s.std).toFixed(1)} %`;

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const dev = wm.deviceInfo();
  const seeds = envPositiveInt('BENCH_SEEDS', 5);
  const rows: object[] = [];
  console.log(`| graph | ours (${dev.gpu ? dev.name : 'CPU'}) | s per run | PyG GCNConv | s per run |`);
  console.log('| --- | --- | --- | --- | --- |');
  for (const [name, options] of GRAPHS) {
    const data = wm.graph.citationGraph(options);
    const ours: number[] = [];
    const t0 = Date.now();
    for (let seed = 0; seed < seeds; ++seed) {
      // The recipe's 200 epochs in full, as the PyG side runs them.
      const r = await trainNodeClassification(data, {
        ...GCN_RECIPE,
        patience: 0,
        model: 'gcn',
        inputs: 'features',
        normalizeFeatures: true,
        smooth: false,
        baselines: false,
        seed,
      });
      ours.push(r.modelTestAcc);
    }
    const oursSeconds = (Date.now() - t0) / 1000 / seeds;
    const s = data.split!;
    const theirs = torchJsonWithFiles<{acc: number[]; seconds: number; pyg: string; device: string}>(
      'gcn_accuracy.py',
      {
        'features.f32': rowNormalized(data.features!),
        'row_ptr.i32': data.graph.rowPtr,
        'col_idx.i32': data.graph.colIdx,
        'labels.i32': data.labels,
        'train.i32': s.train,
        'val.i32': s.val,
        'test.i32': s.test,
      },
      [String(data.features!.dim), String(data.numClasses), String(seeds)],
    );
    const o = stats(ours);
    const p = theirs ? stats(theirs.acc) : undefined;
    console.log(
      `| ${name} | ${pct(o)} | ${oursSeconds.toFixed(2)} | ${p ? pct(p) : 'not run'} | ${theirs ? theirs.seconds.toFixed(2) : ''} |`,
    );
    rows.push({graph: name, ours, oursSeconds, pyg: theirs});
  }
  writeBenchResult('gcn-accuracy', {device: dev, seeds, rows});
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

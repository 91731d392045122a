// Redraws the plots of a metrics.jsonl written by a training run:
//   npm run plot -- runs/node-classification/metrics.jsonl
import * as fs from 'fs';
import * as path from 'path';

import {MetricSeries, PlotRecord, plotTrainingCurves} from '../src/train/plot';

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file || !fs.existsSync(file)) {
    console.error(`usage: npm run plot -- <metrics.jsonl>${file ? ` (no file ${file})` : ''}`);
    process.exit(2);
  }
  const records = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .filter((r) => r.type === 'epoch')
    .map((r) => ({seed: 0, ...r})) as PlotRecord[];
  if (records.length === 0) throw new Error(`${file} has no epoch records`);
  // Node classification logs accuracies; link prediction logs AUC and Hits@50.
  const series: MetricSeries =
    'valAuc' in records[0]
      ? {valAuc: 'val AUC', testAuc: 'test AUC', valHits50: 'val Hits@50', testHits50: 'test Hits@50'}
      : {trainAcc: 'train', valAcc: 'validation', testAcc: 'test'};
  const prefix = path.join(path.dirname(file), path.basename(file, '.jsonl'));
  const written = await plotTrainingCurves(
    records,
    prefix,
    path.basename(path.dirname(path.resolve(file))),
    series,
    'valAuc' in records[0] ? 'AUC / Hits@50' : 'accuracy',
  );
  console.log(`plots: ${written.join(', ')}`);
}

main().catch((e) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});

// Redraws the plots of a metrics.jsonl written by a training run:
//   npm run plot -- runs/node-classification/metrics.jsonl
import * as fs from 'fs';
import * as path from 'path';

import {MetricSeries, PlotRecord, plotTrainingCurves} from '../src/train/plot';
import {readMetrics} from '../src/train/metrics_log';

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file || !fs.existsSync(file)) {
    console.error(`usage: npm run plot -- <metrics.jsonl>${file ? ` (no file ${file})` : ''}`);
    process.exit(2);
  }
  // A metrics file another user could have written is not drawn as this run's.
  const lines = readMetrics(file, 'plot') as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  // The run's own plot record (title, series, and on a file of several models the one drawn); for a log
  // without one, guessed from the fields.
  const drawn = lines.filter((r) => r.type === 'plot').pop() as
    {title: string; series: MetricSeries; panel: string; model?: string} | undefined;
  const records = lines
    .filter((r) => r.type === 'epoch' && (drawn?.model === undefined || r.model === drawn.model))
    .map((r) => ({seed: 0, ...r})) as PlotRecord[];
  if (records.length === 0) throw new Error(`${file} has no epoch records`);
  const auc = 'valAuc' in records[0];
  const series: MetricSeries =
    drawn?.series ??
    (auc
      ? {valAuc: 'val AUC', testAuc: 'test AUC', valHits50: 'val Hits@50', testHits50: 'test Hits@50'}
      : {trainAcc: 'train', valAcc: 'validation', testAcc: 'test'});
  const prefix = path.join(path.dirname(file), path.basename(file, '.jsonl'));
  const written = await plotTrainingCurves(
    records,
    prefix,
    drawn?.title ?? path.basename(path.dirname(path.resolve(file))),
    series,
    drawn?.panel ?? (auc ? 'AUC / Hits@50' : 'accuracy'),
  );
  console.log(`plots: ${written.join(', ')}`);
}

main().catch((e) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});

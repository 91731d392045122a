// The main job on graph classification data (`npm start -- --graphs` or `--data <TU folder>`): the model chosen
// on the validation folds of the first two folds among GIN (sum pooling), GCN and GraphSAGE (mean pooling), then
// k-fold cross-validation of the chosen one beside the baseline that never reads the edges (the pooled features
// alone), on the same folds; each epoch in metrics.jsonl, the curves drawn beside it. Data whose labels are values
// (`regression`) is a graph regression: chosen on and reported by the mean absolute error.
import * as path from 'path';

import type {SmallGraph} from '../src/graph/graph_batch';
import type {Split} from '../src/graph/split';
import {GraphConvKind, GraphPool} from '../src/nn/graph_classifier';

import {GraphClassificationOptions, trainGraphClassification} from '../src/train/graph_classification';
import {MetricsLog} from '../src/train/metrics_log';
import {plotTrainingCurves, PlotRecord} from '../src/train/plot';
import {EpochProgress} from '../src/train/progress';

const CANDIDATES: {conv: GraphConvKind; pool: GraphPool; name: string}[] = [
  {conv: 'gin', pool: 'add', name: 'GIN, sum pooling'},
  {conv: 'gcn', pool: 'mean', name: 'GCN, mean pooling'},
  {conv: 'sage', pool: 'mean', name: 'GraphSAGE, mean pooling'},
];
const BASELINE = {conv: 'none' as const, pool: 'add' as const, name: 'the pooled features alone (edges unused)'};
const SEARCH_FOLDS = [0, 1];

const pct = ([m, s]: number[]) => `${(100 * m).toFixed(2)} ± ${(100 * s).toFixed(2)} %`;

export async function runGraphs(
  data: {graphs: SmallGraph[]; numClasses: number; name: string; split?: Split; regression?: boolean},
  where: string,
  o: {out: string; search: boolean; options: Partial<GraphClassificationOptions>},
): Promise<void> {
  const {graphs, numClasses} = data;
  const regression = data.regression === true;
  // Higher is better: the validation accuracy, or the negated validation MAE of a regression.
  const score = (r: {valAcc: [number, number]; valMae?: [number, number]}) => (regression ? -r.valMae![0] : r.valAcc[0]);
  const valText = (r: {valAcc: [number, number]; valMae?: [number, number]}) =>
    regression ? `MAE ${r.valMae![0].toFixed(4)}` : `${(100 * r.valAcc[0]).toFixed(1)} %`;
  const options = {...o.options, regression};
  const vertices = graphs.reduce((a, g) => a + g.numVertices, 0),
    edges = graphs.reduce((a, g) => a + g.src.length, 0);
  const dim = graphs[0].features ? graphs[0].features.length / Math.max(1, graphs[0].numVertices) : 0;
  const withEdges = graphs.find((g) => g.edgeFeatures && g.src.length > 0);
  const edgeDim = withEdges ? withEdges.edgeFeatures!.length / withEdges.src.length : 0;
  console.log(
    `${data.name}: ${graphs.length} graphs, ${regression ? 'a value to predict each' : `${numClasses} classes`}, ${(vertices / graphs.length).toFixed(1)} vertices and ` +
      `${(edges / graphs.length).toFixed(1)} edges a graph on average, ${dim || 'no'} features` +
      `${edgeDim ? `, ${edgeDim} edge features` : ''}; training on ${where}`,
  );
  const started = Date.now();
  // A folder's own split (OGB's): one run on it; else k-fold cross-validation.
  const split = data.split;
  const log = new MetricsLog(path.join(o.out, 'metrics.jsonl'));
  // With edge features, GINE (GIN reading them) joins the candidates.
  const candidates = edgeDim
    ? [{conv: 'gine' as const, pool: 'add' as const, name: 'GINE (edge features), sum pooling'}, ...CANDIDATES]
    : CANDIDATES;
  let chosen = candidates[0];
  if (o.search) {
    console.log(
      split
        ? "choosing the model on the folder's validation split:"
        : `choosing the model on the validation folds of folds ${SEARCH_FOLDS.join(' and ')}:`,
    );
    let best = -Infinity;
    for (const c of candidates) {
      const t0 = Date.now();
      const r = await trainGraphClassification(data, {...options, conv: c.conv, pool: c.pool, onlyFolds: SEARCH_FOLDS, split});
      console.log(`  ${c.name.padEnd(34)} validation ${valText(r)}  ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      if (score(r) > best) [best, chosen] = [score(r), c];
    }
    console.log(`chosen: ${chosen.name} (the best validation ${regression ? 'MAE' : 'accuracy'})`);
  }
  const folds = split ? 1 : (o.options.folds ?? 10);
  const epochs = o.options.epochs ?? 50;
  const records: PlotRecord[] = [];
  const progress = new EpochProgress(2 * folds * epochs, 'training');
  const run = async (c: {conv: GraphConvKind; pool: GraphPool; name: string}) =>
    trainGraphClassification(data, {...options, conv: c.conv, pool: c.pool, split}, (m) => {
      if (c === chosen) {
        log.write({type: 'epoch', model: c.name, ...m});
        records.push({...m, seed: m.fold});
      }
      progress.tick(
        `${c.conv} fold ${m.fold} epoch ${String(m.epoch).padStart(3)}/${epochs} loss ${m.loss.toFixed(4)} val ${regression ? `MAE ${m.valMae!.toFixed(4)}` : m.valAcc.toFixed(3)}`,
        `${(1 / Math.max(m.seconds, 1e-3)).toFixed(1)} epochs/s`,
      );
    });
  const model = await run(chosen);
  const baseline = await run(BASELINE);
  progress.stop();
  model.folds.forEach((f) =>
    console.log(
      regression
        ? `fold ${f.fold}: test MAE ${f.testMae!.toFixed(4)} (validation ${f.valMae!.toFixed(4)}, best epoch ${f.bestEpoch})`
        : `fold ${f.fold}: test ${(100 * f.testAcc).toFixed(1)} % (validation ${(100 * f.valAcc).toFixed(1)} %, best epoch ${f.bestEpoch})`,
    ),
  );
  const seconds = (Date.now() - started) / 1000;
  log.write({
    type: 'summary',
    dataset: data.name,
    device: where,
    folds,
    chosen: chosen.name,
    ...(regression
      ? {
          testMaeMean: model.testMae![0],
          testMaeStd: model.testMae![1],
          baselineTestMaeMean: baseline.testMae![0],
          baselineTestMaeStd: baseline.testMae![1],
        }
      : {
          testAccMean: model.testAcc[0],
          testAccStd: model.testAcc[1],
          ...(model.testAuc ? {testAucMean: model.testAuc[0], testAucStd: model.testAuc[1]} : {}),
          baselineTestAccMean: baseline.testAcc[0],
          baselineTestAccStd: baseline.testAcc[1],
        }),
    seconds,
  });
  const over = split ? "on the folder's test split" : `over ${folds} folds`;
  const auc = (r: typeof model) => (r.testAuc ? `; ROC-AUC ${r.testAuc[0].toFixed(4)} ± ${r.testAuc[1].toFixed(4)}` : '');
  const mae = (r: typeof model) => `MAE ${r.testMae![0].toFixed(4)} ± ${r.testMae![1].toFixed(4)}`;
  const result = (r: typeof model) => (regression ? mae(r) : `${pct(r.testAcc)}${auc(r)}`);
  console.log(
    `test ${regression ? mae(model) : `accuracy ${pct(model.testAcc)}`} ${over}, ${chosen.name}${regression ? '' : auc(model)} (${seconds.toFixed(1)} s on ${where})`,
  );
  console.log(`baseline, same ${split ? 'split' : 'folds'}: ${BASELINE.name} ${result(baseline)}`);
  const plots = await plotTrainingCurves(
    records,
    path.join(o.out, 'metrics'),
    `${chosen.name} on ${data.name} (${where})`,
    undefined,
    undefined,
    log,
  );
  console.log(`metrics: ${log.file}\nplots: ${plots.join(', ')}`);
}

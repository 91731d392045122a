// The main job on a typed graph (`npm start -- --data <ogb-hetero folder>` or `--hetero-csbm`): every
// relation with its reverse (ToUndirected), then R-GCN, R-GAT, a SAGE layer per relation (PyG's HeteroConv), HGT, the
// flattened graph (types ignored) and the labelled type's features alone, each over several seeds; the model with
// the best mean validation accuracy is the one chosen, and all are printed (what a relational model adds, by how much).
import * as path from 'path';

import type {HeteroGraph} from '../src/graph/hetero_graph';
import {MetricsLog} from '../src/train/metrics_log';
import {plotTrainingCurves, PlotRecord} from '../src/train/plot';
import {EpochProgress} from '../src/train/progress';
import {
  DEFAULT_TYPED_NODE_CLASSIFICATION,
  trainTypedNodeClassification,
  TYPED_MODELS,
  TypedModelKind,
  TypedNodeClassificationOptions,
} from '../src/train/typed_node_classification';

function meanSd(xs: number[]): string {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(xs.length - 1, 1));
  return `${(100 * m).toFixed(2)} ± ${(100 * sd).toFixed(2)}`;
}

export async function runTyped(
  graph: HeteroGraph,
  name: string,
  where: string,
  o: {seeds: number; out: string; options: Partial<TypedNodeClassificationOptions>},
): Promise<void> {
  const l = graph.labels;
  if (!l?.split) throw new Error(`${name}: a typed graph needs labels and a split on one vertex type (node-label/ and split/)`);
  const types = graph.nodeTypes.map((t) => `${t} ${graph.numNodes[t]}`).join(', ');
  const relations = graph.edgeTypes.map((t) => `${t.join(' ')} (${graph.relation(t).numEdges})`).join(', ');
  console.log(`${name}: vertices ${types}; relations ${relations}; ${l.numClasses} classes on '${l.type}'; training on ${where}`);
  const log = new MetricsLog(path.join(o.out, 'metrics.jsonl'));
  const rows: {model: TypedModelKind; val: number[]; test: number[]; curves: PlotRecord[]}[] = [];
  const epochs = o.options.epochs ?? DEFAULT_TYPED_NODE_CLASSIFICATION.epochs;
  const progress = new EpochProgress(TYPED_MODELS.length * o.seeds * epochs, 'training');
  for (const model of TYPED_MODELS) {
    const row = {model, val: [] as number[], test: [] as number[], curves: [] as PlotRecord[]};
    for (let seed = 0; seed < o.seeds; ++seed) {
      const r = await trainTypedNodeClassification(graph, {
        ...o.options,
        model,
        seed,
        onEpoch: (m) => {
          log.write({type: 'epoch', model, seed, ...m});
          row.curves.push({seed, epoch: m.epoch, loss: m.loss, ...(m.valAcc === undefined ? {} : {valAcc: m.valAcc})});
          const val = m.valAcc === undefined ? '' : ` val ${m.valAcc.toFixed(3)}`;
          progress.tick(
            `${model} seed ${seed} epoch ${String(m.epoch).padStart(3)}/${epochs} loss ${m.loss.toFixed(4)}${val}`,
            `${Math.round(m.seedsPerSecond)} training vertices/s`,
          );
        },
      });
      const {history: _history, ...result} = r;
      log.write({type: 'run', ...result, seed});
      row.val.push(r.valAcc);
      row.test.push(r.testAcc);
      console.log(
        `${model.padEnd(9)} seed ${seed}: test ${(100 * r.testAcc).toFixed(1)} % (validation ${(100 * r.valAcc).toFixed(1)} %, ${r.seconds.toFixed(1)} s)`,
      );
    }
    rows.push(row);
  }
  progress.stop();
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const chosen = rows.reduce((a, b) => (mean(b.val) > mean(a.val) ? b : a));
  console.log(`\nmodel      validation %     test %   (${o.seeds} seeds)`);
  for (const r of rows)
    console.log(`${(r.model + (r === chosen ? ' *' : '')).padEnd(10)} ${meanSd(r.val).padStart(14)} ${meanSd(r.test).padStart(14)}`);
  log.write({
    type: 'summary',
    chosen: chosen.model,
    rows: rows.map((r) => ({model: r.model, valMean: mean(r.val), testMean: mean(r.test)})),
  });
  // The chosen model's training curves, a line per seed (`npm run plot` draws them again from the file).
  const plots = await plotTrainingCurves(
    chosen.curves,
    path.join(o.out, 'metrics'),
    `${chosen.model} on ${name}`,
    {valAcc: 'validation'},
    'accuracy',
    {write: (r: object) => log.write({...r, model: chosen.model})}, // npm run plot draws the chosen model's epochs
  );
  console.log(`chosen on validation: ${chosen.model}; metrics: ${log.file}; plots: ${plots.join(', ')}`);
}

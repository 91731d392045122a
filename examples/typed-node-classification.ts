// The main job on a typed graph (`npm start -- --data <ogb-hetero folder>` or `--hetero-csbm`): every
// relation with its reverse (ToUndirected), then R-GCN, R-GAT, a SAGE layer per relation (PyG's HeteroConv), HGT, the
// flattened graph (types ignored) and the labelled type's features alone, each over several seeds; the model with
// the best mean validation accuracy is the one chosen, and all are printed (what a relational model adds, by how much).
import * as fs from 'fs';
import * as path from 'path';

import * as wm from '../src/index';

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

/** A folder in OGB's heterogeneous layout, its relations made two-way (as the main job trains on it); undefined for another folder. */
export async function readTypedFolder(folder: string): Promise<HeteroGraph | undefined> {
  if (!fs.existsSync(path.join(folder, 'raw', 'num-node-dict.csv.gz'))) return undefined;
  const read = await wm.graph.readOgbHetero(folder);
  try {
    return read.toUndirected();
  } finally {
    read.free();
  }
}

function meanSd(xs: number[]): string {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(xs.length - 1, 1));
  return `${(100 * m).toFixed(2)} ± ${(100 * sd).toFixed(2)}`;
}

export async function runTyped(
  graph: HeteroGraph,
  name: string,
  where: string,
  o: {
    seeds: number;
    out: string;
    options: Partial<TypedNodeClassificationOptions>;
    /** Save the chosen model's first seed there (`data`: the folder it was trained on, recorded for npm run predict). */
    save?: string;
    data?: string;
  },
): Promise<void> {
  const l = graph.labels;
  if (!l?.split) throw new Error(`${name}: a typed graph needs labels and a split on one vertex type (node-label/ and split/)`);
  const types = graph.nodeTypes.map((t) => `${t} ${graph.numNodes[t]}`).join(', ');
  const relations = graph.edgeTypes.map((t) => `${t.join(' ')} (${graph.relation(t).numEdges})`).join(', ');
  console.log(`${name}: vertices ${types}; relations ${relations}; ${l.numClasses} classes on '${l.type}'; training on ${where}`);
  const log = new MetricsLog(path.join(o.out, 'metrics.jsonl'));
  const rows: {model: TypedModelKind; val: number[]; test: number[]; curves: PlotRecord[]; kept?: wm.nn.TypedNodeClassifier}[] = [];
  const epochs = o.options.epochs ?? DEFAULT_TYPED_NODE_CLASSIFICATION.epochs;
  const progress = new EpochProgress(TYPED_MODELS.length * o.seeds * epochs, 'training');
  for (const model of TYPED_MODELS) {
    const row: (typeof rows)[number] = {model, val: [], test: [], curves: []};
    for (let seed = 0; seed < o.seeds; ++seed) {
      const r = await trainTypedNodeClassification(graph, {
        ...o.options,
        model,
        seed,
        // With --save, each typed model's first seed is kept until the choice (the baseline is not saved).
        keep: o.save !== undefined && seed === 0 && model !== 'flattened',
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
      const {history: _history, classifier, ...result} = r;
      row.kept = classifier;
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
  if (o.save) {
    if (chosen.kept) {
      await wm.nn.saveTypedClassifier(chosen.kept, o.save, {data: o.data});
      console.log(`model (${chosen.model}, seed 0): ${o.save}; npm run predict -- --model ${o.save} reads it`);
    } else {
      console.log(`--save: the chosen model is the ${chosen.model} baseline, which is not saved`);
    }
    for (const r of rows) r.kept?.dispose();
  }
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

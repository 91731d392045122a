// `npm run predict -- --model DIR [--data DIR] [--out predictions.tsv]`: a
// node classifier saved by `npm start -- --save DIR` predicts every vertex of
// its dataset (or --data's: any graph with the same features, for a model
// that reads features only): `vertex<TAB>class name<TAB>probability` per
// line, the vertex by its id in the data files. A typed classifier (saved by `npm start -- --data <OGB
// heterogeneous folder> --save DIR`) predicts every vertex of its labelled type the same way.
import * as fs from 'fs';
import * as path from 'path';

import {Command} from 'commander';

import * as wm from '../src/index';
import {ensureDir, writeFileAtomically} from '../src/util/files';
import {startBackend} from './cli';
import {readTypedFolder} from './typed-node-classification';

const program = new Command()
  .name('npm run predict --')
  .description('Predict the class of every vertex with a saved node classifier.')
  .requiredOption('--model <folder>', 'a model saved by npm start -- --save')
  .option('--data <folder>', 'the dataset folder (default: the one the model was trained on)')
  .option('--out <file>', 'where the predictions go (default: standard output)')
  .parse();

/** Writes the lines to --out (its folder made as a save's would be) or standard output. */
function emit(lines: string[], out: string | undefined): void {
  const text = lines.join('\n') + '\n';
  if (!out) {
    process.stdout.write(text);
    return;
  }
  // A place that cannot hold the file is named.
  ensureDir(path.dirname(path.resolve(out)), 'predict --out');
  writeFileAtomically(out, Buffer.from(text));
  console.error(`${lines.length} predictions: ${out}`);
}

/** A typed classifier over its folder's graph: every vertex of the labelled type. */
async function predictTyped(o: {model: string; data?: string; out?: string}): Promise<void> {
  const info = wm.nn.readTypedClassifierInfo(o.model);
  const folder = o.data ?? info.data;
  if (!folder) throw new Error(`${o.model}: the model records no dataset (trained on generated data?); pass --data`);
  const graph = await readTypedFolder(folder);
  if (!graph) throw new Error(`${folder}: not a folder in OGB's heterogeneous layout (raw/num-node-dict.csv.gz)`);
  try {
    const model = wm.nn.loadTypedClassifier(o.model, graph);
    try {
      const p = model.predictAll();
      emit(
        Array.from(p.classes, (c, v) => `${v}\t${c}\t${p.probabilities[v].toFixed(6)}`),
        o.out,
      );
    } finally {
      model.dispose();
    }
  } finally {
    graph.free();
  }
}

async function main(): Promise<void> {
  const o = program.opts();
  await startBackend();
  if (fs.existsSync(path.join(o.model, wm.nn.TYPED_MANIFEST))) return predictTyped({model: o.model, data: o.data, out: o.out});
  const info = wm.nn.readClassifierInfo(o.model);
  const folder = o.data ?? info.data;
  if (!folder) throw new Error(`${o.model}: the model records no dataset (trained on generated data?); pass --data`);
  const data = await wm.graph.loadDataset(folder);
  // A learnable embedding per vertex ties the model to its graph; a features-only model applies to any graph.
  if (info.embedding && data.graph.numVertices !== info.config.numNodes) {
    throw new Error(
      `${folder}: ${data.graph.numVertices} vertices; the model holds a learnable embedding for each of the ${info.config.numNodes} it was trained on`,
    );
  }
  const source: wm.nn.FeatureSource = {from: info.features?.from ?? 'data', normalized: info.features?.normalized ?? false};
  if (info.features && source.from === 'data' && !data.features)
    throw new Error(`${folder}: the model reads node features and the data has none`);
  // The rows the model was trained on: the data's (normalised as then) or the graph's structure features.
  const rows = info.features ? wm.nn.inputFeatures(data, source) : undefined;
  const features = rows ? wm.nn.featureTable(rows.values, data.graph.numVertices, rows.dim) : undefined;
  const {model} = wm.nn.loadNodeClassifier(o.model, {features, graph: data.graph});
  try {
    // Layer by layer over full neighbourhoods: the same predictions as one full-graph forward, at any size.
    let shown = 0;
    const p = wm.nn.predictNodes(model, data.graph, undefined, {
      onProgress: (q) => {
        if (Date.now() - shown < 2000 && q.rows < q.totalRows) return; // a line every two seconds, and each layer's end
        shown = Date.now();
        const pct = ((100 * q.rows) / Math.max(q.totalRows, 1)).toFixed(0);
        console.error(
          `predict: layer ${q.layer}/${q.layers}, ${pct} % of the vertices, ${q.rowsPerSecond.toFixed(0)} vertices/s, ETA ${q.etaSeconds.toFixed(0)} s`,
        );
      },
    });
    const lines = Array.from(
      p.vertices,
      (v, i) => `${data.originalIds[v]}\t${info.classNames[p.classes[i]]}\t${p.probabilities[i].toFixed(6)}`,
    );
    emit(lines, o.out);
    if (o.out && data.component && data.component.kept < data.component.of) {
      console.error(`(the ${data.component.of - data.component.kept} vertices outside the largest connected component have none)`);
    }
  } finally {
    model.dispose();
    features?.dispose();
  }
}

main().catch((e) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});

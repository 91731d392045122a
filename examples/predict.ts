// `npm run predict -- --model DIR [--data DIR] [--out predictions.tsv]`: a
// node classifier saved by `npm start -- --save DIR` predicts every vertex of
// its dataset (or --data's: any graph with the same features, for a model
// that reads features only): `vertex<TAB>class name<TAB>probability` per
// line, the vertex by its id in the data files.
import * as path from 'path';

import {Command} from 'commander';

import * as wm from '../src/index';
import {ensureDir, writeFileAtomically} from '../src/util/files';
import {startBackend} from './cli';

const program = new Command()
  .name('npm run predict --')
  .description('Predict the class of every vertex with a saved node classifier.')
  .requiredOption('--model <folder>', 'a model saved by npm start -- --save')
  .option('--data <folder>', 'the dataset folder (default: the one the model was trained on)')
  .option('--out <file>', 'where the predictions go (default: standard output)')
  .parse();

async function main(): Promise<void> {
  const o = program.opts();
  await startBackend();
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
    const text = lines.join('\n') + '\n';
    if (o.out) {
      // The folder is made as a save's would be; a place that cannot hold the file is named.
      ensureDir(path.dirname(path.resolve(o.out)), 'predict --out');
      writeFileAtomically(o.out, Buffer.from(text));
      console.error(`${lines.length} predictions: ${o.out}`);
      if (data.component && data.component.kept < data.component.of) {
        console.error(`(the ${data.component.of - data.component.kept} vertices outside the largest connected component have none)`);
      }
    } else process.stdout.write(text);
  } finally {
    model.dispose();
    features?.dispose();
  }
}

main().catch((e) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});

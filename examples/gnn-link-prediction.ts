// Link prediction with a GNN encoder over node features, beside the shallow embeddings of
// examples/link-prediction.ts and the common-neighbours heuristic, on the same held-out edges and
// non-edges: ROC AUC, Hits@50 and MRR. Data: a folder (--data: edges.tsv with vertex_features.npy / .tsv
// where it has them; a node-classification folder or an ogbn-* folder as loadDataset reads it) or a
// generated CSBM graph whose edges follow its classes (default; --vertices, --classes, --homophily). A graph
// without features is encoded from structure features of its training graph (FastRP).
import * as fs from 'fs';
import * as path from 'path';

import {Command} from 'commander';

import type {CsrGraph} from '../src/graph/csr';
import {loadDataset, readVertexFeatures} from '../src/graph/dataset';
import {csbm} from '../src/graph/csbm';
import {trainGnnLinkPrediction} from '../src/train/gnn_link_prediction';
import {trainLinkPrediction} from '../src/train/link_prediction';
import {positiveInt, positiveNumber, startBackend, undirectedGraphOf} from './cli';

const program = new Command()
  .name('node dist/examples/gnn-link-prediction.js')
  .option(
    '--data <folder>',
    'a graph folder: edges.tsv, node features where it has them (vertex_features.npy / .tsv), labels not needed (default: a generated CSBM graph)',
  )
  .option('--vertices <n>', 'CSBM vertices', positiveInt('--vertices'), 3000)
  .option('--classes <n>', 'CSBM classes', positiveInt('--classes'), 10)
  .option('--homophily <x>', 'CSBM share of edges within a class', positiveNumber('--homophily'), 0.9)
  .option('--epochs <n>', 'epochs', positiveInt('--epochs'), 10)
  .option('--hidden <n>', 'embedding width', positiveInt('--hidden'), 64)
  .option('--seed <n>', 'seed of the split and the models', positiveInt('--seed'), 1)
  .parse();

interface LinkData {
  name: string;
  graph: CsrGraph;
  features?: {values: Float32Array; dim: number};
}

// A folder's graph and node features: a node-classification or ogbn-* folder as loadDataset reads it (its largest
// connected component); else its edges.tsv, every vertex kept, and its vertex features where it has them.
async function loadLinkData(folder: string): Promise<LinkData> {
  if (fs.existsSync(path.join(folder, 'vertex_value.tsv')) || fs.existsSync(path.join(folder, 'raw'))) return loadDataset(folder);
  const {name, graph} = undirectedGraphOf(folder);
  const features = await readVertexFeatures(folder, graph.numVertices);
  return {name, graph, features: features && {values: features.toArray(), dim: features.dim}};
}

async function main(): Promise<void> {
  const o = program.opts();
  const {where} = await startBackend();
  const data: LinkData = o.data
    ? await loadLinkData(o.data)
    : csbm({vertices: o.vertices, classes: o.classes, features: 32, degree: 8, homophily: o.homophily, signal: 2, seed: o.seed});
  const inputs = data.features ? `${data.features.dim} features` : 'no features: structure features of the training graph (FastRP)';
  console.log(`${data.name}: ${data.graph.numVertices} vertices, ${data.graph.numEdges / 2} edges, ${inputs}; on ${where}`);
  const rows: [string, {auc: number; hits: number; mrr?: number}][] = [];
  for (const decoder of ['dot', 'mlp'] as const) {
    const r = await trainGnnLinkPrediction(data.graph, data.features, {epochs: o.epochs, hidden: o.hidden, decoder, seed: o.seed}, (m) =>
      console.log(
        `  GraphSAGE + ${decoder}: epoch ${m.epoch} loss ${m.loss.toFixed(4)} val AUC ${m.val.auc.toFixed(4)} (${m.seconds.toFixed(1)} s)`,
      ),
    );
    rows.push([`GraphSAGE encoder, ${decoder} decoder (best validation epoch ${r.best.epoch})`, r.best.test]);
    if (decoder === 'mlp') rows.push(['common neighbours', r.commonNeighbours]);
  }
  const shallow = await trainLinkPrediction(data.graph, {epochs: Math.max(o.epochs, 20), dim: o.hidden, batchSize: 512, seed: o.seed});
  rows.push([`shallow embeddings, dot decoder (epoch ${shallow.epoch})`, {auc: shallow.testAuc, hits: shallow.testHits50}]);
  console.log('\n| model | test AUC | Hits@50 | MRR |\n| --- | --- | --- | --- |');
  for (const [name, s] of rows)
    console.log(`| ${name} | ${s.auc.toFixed(4)} | ${s.hits.toFixed(4)} | ${s.mrr === undefined ? '—' : s.mrr.toFixed(4)} |`);
}

main().catch((e) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});

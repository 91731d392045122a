// Unsupervised node embeddings (`npm run example:node2vec`): DeepWalk /
// node2vec random walks and skip-gram with negative sampling on a graph
// folder (default: the bundled polblogs), walks and training on the GPU when
// there is one, else the CPU; after each epoch a logistic regression on the
// frozen embeddings (half the labelled vertices to train it) says how well
// they separate the classes. Under the launcher (`node dist/bin/tfjs-wm-run.js
// -n 2 dist/examples/node2vec.js`) the ranks share both tables in WholeMemory
// (continuous unless --memory says chunked) and split each epoch's walks.
import * as path from 'path';

import {Command} from 'commander';

import * as wm from '../src/index';
import {readLaunchEnv} from '../src/dist/launch_env';

import {loadNodeClassification} from '../src/graph/dataset';
import {MetricsLog} from '../src/train/metrics_log';
import {DEFAULT_NODE2VEC, logisticProbe, trainNode2Vec} from '../src/train/node2vec';
import {plotTrainingCurves} from '../src/train/plot';
import {writeEmbeddingText} from '../src/train/embedding_text';
import {EpochProgress} from '../src/train/progress';
import {nonNegativeInt, positiveInt, positiveNumber, startBackend} from './cli';

const root = path.resolve(__dirname, '..', '..');
const d = DEFAULT_NODE2VEC;

const program = new Command()
  .name('npm run example:node2vec --')
  .description('Node embeddings by random walks and skip-gram on a graph folder (edges.tsv + vertex_value.tsv for the probe).')
  .option('--data <folder>', 'graph folder', path.join(root, 'data', 'polblogs'))
  .option('--epochs <n>', 'epochs (walksPerVertex walks from every vertex each)', positiveInt('--epochs'), d.epochs)
  .option('--dim <n>', 'embedding width', positiveInt('--dim'), d.dim)
  .option('--walk-length <n>', 'vertices per walk', positiveInt('--walk-length'), d.walkLength)
  .option('--walks <n>', 'walks per vertex per epoch', positiveInt('--walks'), d.walksPerVertex)
  .option('--window <n>', 'skip-gram window: pairs at most this far apart', positiveInt('--window'), d.window)
  .option('--negatives <n>', 'uniform negatives per positive pair', positiveInt('--negatives'), d.negatives)
  .option('-p <x>', "node2vec's return parameter (1: DeepWalk)", positiveNumber('-p'), d.p)
  .option('-q <x>', "node2vec's in-out parameter (1: DeepWalk)", positiveNumber('-q'), d.q)
  .option('--batch-size <n>', 'walks per step', positiveInt('--batch-size'), d.batchSize)
  .option('--lr <x>', 'learning rate (sparse lazy Adam)', positiveNumber('--lr'), d.learningRate)
  .option('--memory <kind>', 'where the tables live: device, host, managed, continuous, chunked (default: device with a GPU, else host)')
  .option('--seed <n>', 'seed of the walks, negatives and initial values', nonNegativeInt('--seed'), d.seed)
  .option('--out <folder>', 'where metrics.jsonl, the plots and embeddings.txt go', path.join(root, 'runs', 'node2vec'))
  .parse();

async function main(): Promise<void> {
  const o = program.opts();
  const {where} = await startBackend();
  // Launched ranks share the tables; rank 0 evaluates, logs and plots.
  const comm = readLaunchEnv() ? wm.communicatorFromEnv() : undefined;
  const lead = (comm?.rank ?? 0) === 0;
  const memory = o.memory ?? (comm ? 'continuous' : undefined);
  const data = loadNodeClassification(o.data);
  const kind = o.p === 1 && o.q === 1 ? 'DeepWalk walks' : `node2vec walks (p ${o.p}, q ${o.q})`;
  const ranks = comm ? `${comm.size} ranks sharing ${memory} tables, ` : '';
  if (lead) console.log(`${data.name}: largest component ${data.graph.numVertices} vertices, ${data.graph.numEdges / 2} edges; ${kind}, ${ranks}training on ${where}`);
  const log = lead ? new MetricsLog(path.join(o.out, 'metrics.jsonl')) : undefined;
  const progress = lead ? new EpochProgress(o.epochs, 'node2vec') : undefined;
  const history: {seed: number; epoch: number; loss: number; trainAcc: number; testAcc: number}[] = [];
  const started = Date.now();
  const {embedding} = await trainNode2Vec(data.graph, {
    epochs: o.epochs, dim: o.dim, walkLength: o.walkLength, walksPerVertex: o.walks, window: o.window, negatives: o.negatives,
    p: o.p, q: o.q, batchSize: o.batchSize, learningRate: o.lr, memory, communicator: comm, seed: o.seed,
  }, async (m, emb) => {
    if (!lead) return;
    const probe = await logisticProbe(emb, data.labels, data.numClasses, {seed: o.seed});
    const record = {...m, ...probe};
    log!.write({type: 'epoch', ...record});
    history.push({seed: o.seed, ...record});
    progress!.tick(`epoch ${String(m.epoch).padStart(3)}/${o.epochs} loss ${m.loss.toFixed(4)} | probe train ${probe.trainAcc.toFixed(4)} ` +
                   `test ${probe.testAcc.toFixed(4)}`, `${Math.round(m.pairsPerSecond)} pairs/s`);
  });
  progress?.stop();
  const seconds = (Date.now() - started) / 1000;
  if (lead) {
    // The probe over several splits of the final embeddings: one split of ~600 test vertices moves by a percent.
    const accs: number[] = [];
    for (let s = 0; s < 5; ++s) accs.push((await logisticProbe(embedding, data.labels, data.numClasses, {seed: o.seed + 100 + s})).testAcc);
    const mean = accs.reduce((a, b) => a + b, 0) / accs.length;
    const std = Math.sqrt(accs.reduce((a, b) => a + (b - mean) ** 2, 0) / accs.length);
    log!.write({type: 'summary', testAccMean: mean, testAccStd: std, testAccs: accs, seconds, device: where, ranks: comm?.size ?? 1});
    const plots = await plotTrainingCurves(history, path.join(o.out, 'metrics'), `node2vec on ${data.name} (${kind})`,
                                           {trainAcc: 'probe train', testAcc: 'probe test'}, 'probe accuracy');
    console.log(`probe test accuracy ${(100 * mean).toFixed(2)} ± ${(100 * std).toFixed(2)} % over 5 splits (${seconds.toFixed(1)} s of training on ${where})`);
    // The embeddings themselves, keyed by the data's own vertex ids (word2vec's text format).
    const saved = path.join(o.out, 'embeddings.txt');
    writeEmbeddingText(embedding, saved, {keys: data.originalIds});
    console.log(`metrics: ${log!.file}\nplots: ${plots.join(', ')}\nembeddings: ${saved}`);
  }
  comm?.barrier();  // the tables are shared: none is freed while rank 0 still reads them
  embedding.dispose();
  comm?.destroy();
}

main().catch((e) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});

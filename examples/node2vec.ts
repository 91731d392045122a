// Unsupervised node embeddings (`npm run example:node2vec`): DeepWalk /
// node2vec random walks and skip-gram with negative sampling on a graph
// folder, walks and training on the GPU when there is one, else the CPU.
// After each epoch the frozen embeddings are judged on one of the node2vec
// paper's two tasks: `--task classes` (default, on the bundled polblogs) a
// logistic regression on half the labelled vertices; `--task links` (any
// edges.tsv) the dot products of held-out edges against non-edges, the walks
// taken on the graph without them (ROC AUC, Hits@50, reported at the best
// validation epoch). Under the launcher (`node dist/bin/tfjs-wm-run.js -n 2
// dist/examples/node2vec.js`) the ranks share both tables in WholeMemory
// (continuous unless --memory says chunked) and split each epoch's walks.
import * as path from 'path';

import {Command, InvalidArgumentError} from 'commander';

import * as wm from '../src/index';
import {readLaunchEnv} from '../src/memory/launch_env';
import {CsrGraph} from '../src/graph/csr';
import {loadDataset} from '../src/graph/dataset';
import {splitEdges} from '../src/graph/link_split';
import {Embedding} from '../src/nn/embedding';
import {writeEmbeddingText} from '../src/train/embedding_text';
import {hitsAtK, rocAuc} from '../src/train/link_metrics';
import {pairScores} from '../src/train/link_prediction';
import {MetricsLog} from '../src/train/metrics_log';
import {DEFAULT_NODE2VEC, logisticProbe, trainNode2Vec} from '../src/train/node2vec';
import {MetricSeries, plotTrainingCurves} from '../src/train/plot';
import {EpochProgress} from '../src/train/progress';
import {seededRng} from '../src/util/random';
import {nonNegativeInt, positiveInt, positiveNumber, startBackend, undirectedGraphOf} from './cli';

const root = path.resolve(__dirname, '..', '..');
const d = DEFAULT_NODE2VEC;

const program = new Command()
  .name('npm run example:node2vec --')
  .description('Node embeddings by random walks and skip-gram on a graph folder, judged by node classification or link prediction.')
  .option(
    '--task <kind>',
    'classes (a logistic regression on the embeddings; needs vertex_value.tsv) or links (held-out edges)',
    (v) => {
      if (v !== 'classes' && v !== 'links') throw new InvalidArgumentError(`--task must be classes or links, got "${v}"`);
      return v;
    },
    'classes',
  )
  .option('--data <folder>', 'graph folder (default: the bundled polblogs for classes, the bundled hep-th for links)')
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
  .option('--out <folder>', 'where metrics.jsonl, the plots and embeddings.txt go', path.join(process.cwd(), 'runs', 'node2vec'))
  .parse();

/** What the embeddings are judged on: the graph to walk, per-epoch figures, the closing line. */
interface Task {
  name: string;
  graph: CsrGraph;
  keys?: ArrayLike<number>;
  series: MetricSeries;
  panel: string;
  evaluate(emb: Embedding, epoch: number): Promise<Record<string, number>>;
  line(r: Record<string, number>): string;
  finish(emb: Embedding): Promise<{line: string; summary: object}>;
}

async function classesTask(folder: string, seed: number): Promise<Task> {
  const data = await loadDataset(folder);
  return {
    name: `${data.name} (largest component)`,
    graph: data.graph,
    keys: data.originalIds,
    series: {trainAcc: 'probe train', testAcc: 'probe test'},
    panel: 'probe accuracy',
    evaluate: async (emb) => ({...(await logisticProbe(emb, data.labels, data.numClasses, {seed}))}),
    line: (r) => `probe train ${r.trainAcc.toFixed(4)} test ${r.testAcc.toFixed(4)}`,
    finish: async (emb) => {
      // Several splits: one split of ~600 test vertices moves by a percent.
      const accs: number[] = [];
      for (let s = 0; s < 5; ++s) accs.push((await logisticProbe(emb, data.labels, data.numClasses, {seed: seed + 100 + s})).testAcc);
      const mean = accs.reduce((a, b) => a + b, 0) / accs.length;
      const std = Math.sqrt(accs.reduce((a, b) => a + (b - mean) ** 2, 0) / accs.length);
      return {
        line: `probe test accuracy ${(100 * mean).toFixed(2)} ± ${(100 * std).toFixed(2)} % over 5 splits`,
        summary: {testAccMean: mean, testAccStd: std, testAccs: accs},
      };
    },
  };
}

function linksTask(folder: string, seed: number): Task {
  const {name, graph: full} = undirectedGraphOf(folder);
  // 5% validation and 10% test edges held out; the walks see only the rest.
  const split = splitEdges(full, 0.05, 0.1, seededRng(seed * 9973 + 5));
  let best: Record<string, number> | undefined;
  return {
    name,
    graph: split.train,
    series: {valAuc: 'val AUC', testAuc: 'test AUC', testHits50: 'test Hits@50'},
    panel: 'AUC / Hits@50',
    evaluate: async (emb, epoch) => {
      const [vp, vn, tp, tn] = [split.valEdges, split.valNegatives, split.testEdges, split.testNegatives].map((p) => pairScores(emb, p));
      const r = {valAuc: rocAuc(vp, vn), valHits50: hitsAtK(vp, vn, 50), testAuc: rocAuc(tp, tn), testHits50: hitsAtK(tp, tn, 50)};
      if (best === undefined || r.valAuc >= best.valAuc) best = {epoch, ...r};
      return r;
    },
    line: (r) => `val AUC ${r.valAuc.toFixed(4)} | test AUC ${r.testAuc.toFixed(4)} Hits@50 ${r.testHits50.toFixed(4)}`,
    finish: async () => ({
      line: `best validation epoch ${best!.epoch}: test AUC ${best!.testAuc.toFixed(4)}, test Hits@50 ${best!.testHits50.toFixed(4)}`,
      summary: {best},
    }),
  };
}

async function main(): Promise<void> {
  const o = program.opts();
  const {where} = await startBackend();
  // Launched ranks share the tables; rank 0 evaluates, logs and plots.
  const comm = readLaunchEnv() ? wm.communicatorFromEnv() : undefined;
  const lead = (comm?.rank ?? 0) === 0;
  const memory = o.memory ?? (comm ? 'continuous' : undefined);
  const task =
    o.task === 'links'
      ? linksTask(o.data ?? path.join(root, 'data', 'hep-th'), o.seed)
      : await classesTask(o.data ?? path.join(root, 'data', 'polblogs'), o.seed);
  const kind = o.p === 1 && o.q === 1 ? 'DeepWalk walks' : `node2vec walks (p ${o.p}, q ${o.q})`;
  const ranks = comm ? `${comm.size} ranks sharing ${memory} tables, ` : '';
  if (lead)
    console.log(
      `${task.name}: ${task.graph.numVertices} vertices, ${task.graph.numEdges / 2} edges walked; ${kind}, ${ranks}training on ${where}`,
    );
  const log = lead ? new MetricsLog(path.join(o.out, 'metrics.jsonl')) : undefined;
  const progress = lead ? new EpochProgress(o.epochs, 'node2vec') : undefined;
  const history: {seed: number; epoch: number; loss: number; [k: string]: number}[] = [];
  const started = Date.now();
  const {embedding} = await trainNode2Vec(
    task.graph,
    {
      epochs: o.epochs,
      dim: o.dim,
      walkLength: o.walkLength,
      walksPerVertex: o.walks,
      window: o.window,
      negatives: o.negatives,
      p: o.p,
      q: o.q,
      batchSize: o.batchSize,
      learningRate: o.lr,
      memory,
      communicator: comm,
      seed: o.seed,
    },
    async (m, emb) => {
      if (!lead) return;
      const r = await task.evaluate(emb, m.epoch);
      log!.write({type: 'epoch', ...m, ...r});
      history.push({seed: o.seed, ...m, ...r});
      progress!.tick(
        `epoch ${String(m.epoch).padStart(3)}/${o.epochs} loss ${m.loss.toFixed(4)} | ${task.line(r)}`,
        `${Math.round(m.pairsPerSecond)} pairs/s`,
      );
    },
  );
  progress?.stop();
  const seconds = (Date.now() - started) / 1000;
  if (lead) {
    const {line, summary} = await task.finish(embedding);
    log!.write({type: 'summary', ...summary, seconds, device: where, ranks: comm?.size ?? 1});
    const plots = await plotTrainingCurves(
      history,
      path.join(o.out, 'metrics'),
      `node2vec on ${task.name} (${kind})`,
      task.series,
      task.panel,
      log!,
    );
    // The embeddings themselves (the last epoch's), keyed by the data's own vertex ids (word2vec's text format).
    const saved = path.join(o.out, 'embeddings.txt');
    writeEmbeddingText(embedding, saved, {keys: task.keys});
    console.log(`${line} (${seconds.toFixed(1)} s of training on ${where})`);
    console.log(`metrics: ${log!.file}\nplots: ${plots.join(', ')}\nembeddings: ${saved}`);
  }
  comm?.barrier(); // the tables are shared: none is freed while rank 0 still reads them
  embedding.dispose();
  comm?.destroy();
}

main().catch((e) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});

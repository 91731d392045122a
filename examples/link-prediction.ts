// Link prediction on a graph folder (default: the bundled hep-th collaboration
// graph, data/hep-th) or on a generated R-MAT graph of any size (--rmat
// <scale>: 2^scale vertices, 16 edges each): embeddings + dot-product decoder
// with negative sampling; ROC AUC and Hits@50 on held-out edges, reported at
// the best validation epoch.
import * as path from 'path';

import {Command} from 'commander';

import {CsrGraph} from '../src/graph/csr';
import {rmat} from '../src/graph/rmat';
import {DEFAULT_LINK_PREDICTION, trainLinkPrediction} from '../src/train/link_prediction';
import {MetricsLog} from '../src/train/metrics_log';
import {plotTrainingCurves} from '../src/train/plot';
import {EpochProgress} from '../src/train/progress';
import {positiveInt, positiveNumber, startBackend, undirectedGraphOf} from './cli';

const root = path.resolve(__dirname, '..', '..');
const d = DEFAULT_LINK_PREDICTION;

const program = new Command()
  .name('node dist/examples/link-prediction.js')
  .option(
    '--data <folder>',
    'graph folder with edges.tsv (default: the bundled hep-th collaboration graph)',
    path.join(root, 'data', 'hep-th'),
  )
  .option('--rmat <scale>', 'train on a seeded R-MAT graph of 2^scale vertices instead of --data', positiveInt('--rmat'))
  .option('--edge-factor <n>', 'R-MAT edges per vertex', positiveInt('--edge-factor'), 16)
  .option('--epochs <n>', 'epochs', positiveInt('--epochs'), d.epochs)
  .option('--dim <n>', 'embedding width', positiveInt('--dim'), d.dim)
  .option('--batch-size <n>', 'positive edges per step', positiveInt('--batch-size'), d.batchSize)
  .option('--negatives <n>', 'negatives per positive', positiveInt('--negatives'), d.negativesPerPositive)
  .option('--lr <x>', 'learning rate (sparse lazy Adam)', positiveNumber('--lr'), d.learningRate)
  .option(
    '--memory <kind>',
    'embedding table memory: device, host, managed, continuous, chunked (continuous: over every GPU of the machine)',
  )
  .option('--out <folder>', 'metrics and plots', path.join(process.cwd(), 'runs', 'link-prediction'))
  .parse();

/**
 * The batch size for a graph of `edges` edges: the default's 4,096 gives a small graph only a step or
 * two per epoch (AUC near chance after the epochs asked for), so it shrinks to give at least 16 steps,
 * and says so; a size the user gave is kept, with a warning when it is that coarse.
 */
function fittedBatch(edges: number, asked: number, given: boolean): number {
  const steps = (b: number) => Math.ceil((edges * (1 - d.valFraction - d.testFraction)) / b);
  if (steps(asked) >= 16) return asked;
  if (given) {
    console.log(
      `warning: --batch-size ${asked} gives ${steps(asked)} step(s) per epoch on ${edges} edges; a smaller batch learns faster here`,
    );
    return asked;
  }
  let b = asked;
  while (b > 32 && steps(b) < 16) b /= 2;
  console.log(`batch size ${b} (${steps(b)} steps per epoch on ${edges} edges; --batch-size sets it)`);
  return b;
}

async function main(): Promise<void> {
  const o = program.opts();
  const {where} = await startBackend();
  const built = Date.now();
  const {name, graph} =
    o.rmat !== undefined
      ? {
          name: `R-MAT scale ${o.rmat}`,
          graph: CsrGraph.fromEdges(rmat({scale: o.rmat, edgeFactor: o.edgeFactor, seed: 1}), {symmetric: true}),
        }
      : undirectedGraphOf(o.data);
  console.log(
    `${name}: ${graph.numVertices} vertices, ${graph.numEdges / 2} edges (built in ${((Date.now() - built) / 1000).toFixed(1)} s); training on ${where}`,
  );
  const batchSize = fittedBatch(graph.numEdges / 2, o.batchSize, program.getOptionValueSource('batchSize') === 'cli');
  const log = new MetricsLog(path.join(o.out, 'metrics.jsonl'));
  const progress = new EpochProgress(o.epochs, 'training');
  const history: Record<string, number>[] = [];
  const started = Date.now();
  const best = await trainLinkPrediction(
    graph,
    {
      epochs: o.epochs,
      dim: o.dim,
      batchSize,
      negativesPerPositive: o.negatives,
      learningRate: o.lr,
      memory: o.memory,
    },
    (m) => {
      log.write({type: 'epoch', ...m});
      history.push({...m});
      progress.tick(
        `epoch ${String(m.epoch).padStart(3)}/${o.epochs} loss ${m.loss.toFixed(4)} val AUC ${m.valAuc.toFixed(4)} ` +
          `Hits@50 ${m.valHits50.toFixed(4)} | test AUC ${m.testAuc.toFixed(4)} Hits@50 ${m.testHits50.toFixed(4)}`,
        `${Math.round(m.edgesPerSecond)} edges/s`,
      );
    },
  );
  progress.stop();
  const seconds = (Date.now() - started) / 1000;
  log.write({type: 'summary', ...best, seconds, device: where});
  const plots = await plotTrainingCurves(
    history as never,
    path.join(o.out, 'metrics'),
    `link prediction on ${name}`,
    {valAuc: 'val AUC', testAuc: 'test AUC', valHits50: 'val Hits@50', testHits50: 'test Hits@50'},
    'AUC / Hits@50',
    log,
  );
  console.log(
    `best validation epoch ${best.epoch}: test AUC ${best.testAuc.toFixed(4)}, test Hits@50 ${best.testHits50.toFixed(4)} (${seconds.toFixed(1)} s on ${where})`,
  );
  console.log(`metrics: ${log.file}\nplots: ${plots.join(', ')}`);
}

main().catch((e) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});

// Data-parallel GraphSAGE (or GAT, GCN) on several processes (one per GPU, or on the CPU):
//   node dist/bin/tfjs-wm-run.js -n 2 dist/examples/data-parallel.js
// The node embeddings are one table in WholeMemory that every rank reads and
// updates in place (sparse, never all-reduced); the dense layers' gradients
// are averaged over the ranks (wm.dataParallel). Each global batch of seed
// vertices is split evenly between the ranks. Rank 0 evaluates and logs.
// Features, when the data has them, are a read-only table beside the embeddings; with --feature-cache each
// rank keeps the highest-degree feature rows the other ranks hold in a cache of its own. On several hosts
// (tfjs-wm-run --nnodes, srun, ...) features in one-host memory are stored once per host, and the embeddings are a
// table that spans the hosts (--memory hierarchical or distributed).
import * as os from 'os';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';
import {Command, Option} from 'commander';

import * as wm from '../src/index';
import {loadDataset} from '../src/graph/dataset';
import {readsAreCollective} from '../src/nn/embedding';
import {fullGraph} from '../src/nn/node_model';
import {MetricsLog} from '../src/train/metrics_log';
import {
  accuracy,
  checkNodeModel,
  createNodeClassifier,
  NODE_MODELS,
  NODE_SAMPLERS,
  nodeModelName,
  splitLabelled,
} from '../src/train/node_classification';
import {seededRng} from '../src/util/random';
import {fraction, nonNegativeInt, positiveInt} from './cli';

const root = path.resolve(__dirname, '..', '..');
const program = new Command()
  .option('--data <folder>', 'graph folder (edges.tsv + vertex_value.tsv)', path.join(root, 'data', 'polblogs'))
  .addOption(
    new Option('--model <kind>', 'sage (GraphSAGE), gat (graph attention) or gcn (graph convolution); gat and gcn use compact subgraphs')
      .choices(NODE_MODELS)
      .default('sage'),
  )
  .option('--heads <n>', 'attention heads of a GAT hidden layer', positiveInt('--heads'), 4)
  .option('--epochs <n>', 'epochs', positiveInt('--epochs'), 40)
  .option('--batch-size <n>', 'global seed vertices per step', positiveInt('--batch-size'), 64)
  .option(
    '--memory <kind>',
    "the table's WholeMemory type: continuous, chunked (one table every rank of a host reads), distributed (each rank owns rows; steps merge every rank's gradients) or hierarchical (split between hosts, chunked within each)",
    'continuous',
  )
  .addOption(
    new Option(
      '--sampler <kind>',
      "tree (each seed's neighbourhood apart) or subgraph (one compact subgraph per batch); default: tree for sage, else subgraph",
    ).choices(NODE_SAMPLERS),
  )
  .option(
    '--exact',
    'train exactly as one process would on the global batch (distributed table, compact subgraphs sampled by vertex, no dropout, summed shares of the global loss): the loss curve does not depend on the number of ranks',
  )
  .option('--wire <type>', 'the type gradients travel in between ranks: float32, bfloat16 or float16 (half the bytes)', 'float32')
  .addOption(
    new Option('--inputs <kind>', 'features, embeddings or both (default: both when the data has features)').choices([
      'features',
      'embeddings',
      'both',
    ]),
  )
  .option(
    '--feature-cache <share>',
    'with --memory continuous and features: the share of the feature rows each rank keeps in a cache of its own (its GPU memory with GPUs), the highest-degree rows the other ranks hold',
    fraction('--feature-cache'),
    0,
  )
  .option('--seed <n>', 'split and initialisation seed', nonNegativeInt('--seed'), 0)
  .option('--out <folder>', 'metrics (rank 0)', path.join(process.cwd(), 'runs', 'data-parallel'))
  .parse();

async function main(): Promise<void> {
  const o = program.opts();
  o.sampler ??= o.model === 'sage' ? 'tree' : 'subgraph';
  if (o.exact) Object.assign(o, {memory: 'distributed', sampler: 'subgraph'});
  checkNodeModel(o.model, o.sampler);
  if (!['continuous', 'chunked', 'distributed', 'hierarchical'].includes(o.memory))
    throw new Error(`--memory must be continuous, chunked, distributed or hierarchical, got "${o.memory}"`);
  await tf.setBackend(wm.BACKEND_NAME);
  const comm = wm.communicatorFromEnv();
  const data = await loadDataset(o.data);
  // The same seed everywhere: every rank sees the same split and batches.
  const rng = seededRng(o.seed * 7919 + 17);
  const split = data.split ?? splitLabelled(data.labels, 0.1, 0.1, rng);
  // Features, when the data has them, live beside the embeddings in a table of the same memory type.
  const inputs = o.inputs ?? (data.features ? 'both' : 'embeddings');
  if (inputs !== 'embeddings' && !data.features) throw new Error(`--inputs ${inputs}: ${data.name} has no node features`);
  // Ranks on several hosts: a read-only feature table in one-host memory is stored once per host (the ranks of a host
  // share it; every copy holds the same rows); learned embeddings are one table all hosts step together, distributed
  // or hierarchical (split between the hosts, shared within each).
  const names = comm.allgatherJson(os.hostname(), 'data-parallel (hosts)');
  const hostNames = [...new Set(names)];
  const hosts = hostNames.length;
  const spansHosts = readsAreCollective(o.memory); // tables held in parts, read by collectives: 'distributed', 'hierarchical'
  if (hosts > 1 && !spansHosts && inputs !== 'features') {
    throw new Error(
      `--memory ${o.memory}: the ranks run on ${hosts} hosts and ${o.memory} memory stays on one; ` +
        'give learned embeddings --memory hierarchical or distributed, or train on --inputs features (stored once per host)',
    );
  }
  const host = hosts > 1 && !spansHosts ? wm.splitCommunicator(comm, hostNames.indexOf(names[comm.rank])) : undefined;
  const features =
    inputs === 'embeddings'
      ? undefined
      : wm.nn.featureTable(data.features!.values, data.graph.numVertices, data.features!.dim, {
          memory: o.memory,
          communicator: host ?? comm,
        });
  if (o.featureCache > 0) {
    if (!features) throw new Error(`--feature-cache: there are no features (--inputs ${inputs})`);
    // Tables that take no cache (chunked, distributed) are refused by embedding.cache, naming why.
    // The rows this rank holds are in its own memory already: rank the others' by degree.
    const ranked = wm.nn.hottestRows(data.graph.degrees(), data.graph.numVertices, features.localRows());
    features.cache({rows: ranked, fraction: o.featureCache});
  }
  const model = createNodeClassifier(
    o.model,
    {
      numNodes: data.graph.numVertices,
      numClasses: data.numClasses,
      embeddingDim: inputs === 'features' ? 0 : 64,
      features,
      hiddenDim: 64,
      numLayers: 2,
      dropout: o.exact ? 0 : 0.5,
      seed: o.seed * 101 + 3,
      embeddingLearningRate: 0.02,
      embeddingMemory: o.memory,
      communicator: comm,
    },
    o.heads,
  );
  const dp = wm.dataParallel(tf.train.adam(0.01), comm, {gradients: o.exact ? 'sum' : 'mean', wire: o.wire});
  dp.broadcastVariables(model.denseVariables);
  const full = fullGraph(data.graph);
  const log = comm.rank === 0 ? new MetricsLog(path.join(o.out, 'metrics.jsonl')) : undefined;
  // Every rank walks the same order of the training vertices and takes its share of each global batch;
  // each samples its own neighbourhoods (exactly: draws keyed by vertex, the same on every rank).
  const loader = new wm.nn.NeighborLoader(data.graph, split.train, {
    fanouts: [25, 10],
    batchSize: o.batchSize,
    sampler: o.sampler,
    keyBy: o.exact ? 'vertex' : 'position',
    labels: data.labels,
    seed: o.seed,
    share: {rank: comm.rank, size: comm.size},
  });
  const started = Date.now();
  let best = {val: -1, test: NaN, epoch: 0};
  for (let epoch = 1; epoch <= o.epochs; ++epoch) {
    const t0 = Date.now();
    let lossSum = 0,
      steps = 0;
    for await (const batch of loader) {
      const y = tf.oneHot(batch.y!, data.numClasses);
      // A rank with no seeds this step (the last batch's share) still joins the all-reduce, with a zero loss.
      // Exactly: each rank's loss is its share of the global batch's mean loss, and the shares add up.
      const globalSize = Math.min(o.batchSize, split.train.length - batch.index * o.batchSize);
      const dividedBy = o.exact ? globalSize : Math.max(1, batch.seeds.length);
      const lossOf = () =>
        tf.div(
          tf.sum(tf.losses.softmaxCrossEntropy(y, model.forward(batch, batch.seed), undefined, undefined, tf.Reduction.NONE)),
          dividedBy,
        ) as tf.Scalar;
      const loss = dp.minimize(lossOf, model.trainableVariables);
      model.inputs.step();
      batch.dispose();
      if (o.exact) {
        const [total] = comm.allReduce(loss, {op: 'sum'});
        lossSum += total.dataSync()[0];
        total.dispose();
      } else {
        lossSum += loss.dataSync()[0];
      }
      ++steps;
      tf.dispose([loss, y]);
    }
    wm.synchronize();
    comm.barrier(); // every rank's table updates are in before anyone evaluates
    // Every rank predicts (reading a distributed table is a collective); rank 0 logs.
    const cache = features?.cacheStats(); // this epoch's training reads, before evaluation reads every row
    const p = model.predict(full);
    features?.resetCacheCounts();
    if (comm.rank === 0) {
      const acc = (ids: Int32Array) => accuracy(p, data.labels, ids);
      const m = {
        epoch,
        loss: lossSum / steps,
        valAcc: acc(split.val),
        testAcc: acc(split.test),
        seconds: (Date.now() - t0) / 1000,
        ranks: comm.size,
        ...(cache ? {cacheHitRate: cache.hitRate} : {}),
      };
      log!.write({type: 'epoch', ...m});
      if (m.valAcc >= best.val) best = {val: m.valAcc, test: m.testAcc, epoch};
      console.log(
        `epoch ${String(epoch).padStart(3)}/${o.epochs} loss ${m.loss.toFixed(4)} val ${m.valAcc.toFixed(3)} test ${m.testAcc.toFixed(3)} | ${m.seconds.toFixed(2)} s` +
          (cache ? ` | rank 0's feature cache hit rate ${cache.hitRate.toFixed(3)}` : ''),
      );
    }
    comm.barrier();
  }
  if (comm.rank === 0) {
    console.log(
      `${nodeModelName(o.model)}, ${comm.size} rank(s), table in ${o.memory} WholeMemory: test accuracy ${(100 * best.test).toFixed(2)} % at the best validation epoch ${best.epoch} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
  }
  full.dispose();
  model.dispose();
  features?.dispose();
  host?.destroy();
  comm.destroy();
}

main().catch((e) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});

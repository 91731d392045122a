// A typed graph trained by hand (`npm run example:typed`), the loop of docs/gnn-guide.md's typed-graph
// section: a folder in OGB's heterogeneous layout (--data; relations made two-way) or a generated graph whose
// labels depend on the relation, two R-GCN layers over the TypedNeighborLoader's batches, the labelled
// type's validation and test accuracy after each epoch (every neighbour taken), on the GPU when there is one.
import {Command} from 'commander';
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {positiveInt, positiveNumber, startBackend} from './cli';

const o = new Command()
  .name('npm run example:typed --')
  .option('--data <folder>', "a folder in OGB's heterogeneous layout (default: a generated typed graph)")
  .option('--epochs <n>', 'epochs', positiveInt('--epochs'), 5)
  .option('--hidden <n>', 'hidden width', positiveInt('--hidden'), 32)
  .option('--lr <x>', 'Adam learning rate', positiveNumber('--lr'), 0.01)
  .parse()
  .opts();

async function accuracy(g: wm.graph.HeteroGraph, ids: Int32Array, convs: wm.nn.RgcnConv[]): Promise<number> {
  const all = Math.max(...Object.values(g.numNodes));
  const loader = new wm.nn.TypedNeighborLoader(g, {seeds: ids, fanouts: [all, all], batchSize: 1024});
  let ok = 0;
  for await (const b of loader) {
    const pred = tf.tidy(() => tf.argMax(forward(b, convs), 1));
    pred.dataSync().forEach((c, i) => (ok += c === g.labels!.labels[b.seeds[i]] ? 1 : 0));
    pred.dispose();
    b.dispose();
  }
  loader.dispose();
  return ok / ids.length;
}

function forward(b: wm.nn.TypedBatch, convs: wm.nn.RgcnConv[]): tf.Tensor2D {
  const h = convs[0].apply(b.x, b.sub.layers[0]);
  const relu = Object.fromEntries(Object.entries(h).map(([t, x]) => [t, tf.relu(x) as tf.Tensor2D]));
  return convs[1].apply(relu, b.sub.layers[1])[b.sub.seedType];
}

async function main(): Promise<void> {
  const {where} = await startBackend();
  const read = o.data ? await wm.graph.readOgbHetero(o.data) : undefined;
  const g = read ? read.toUndirected() : wm.graph.heteroCsbm({seed: 1});
  read?.free();
  const l = g.labels!;
  const relations = g.edgeTypes.map(wm.graph.edgeTypeKey);
  const width = Math.max(1, ...Object.values(g.features).map((f) => f.dim));
  const convs = [
    wm.nn.rgcnConv({inDim: width, units: o.hidden, relations, numBases: 4, seed: 1}),
    wm.nn.rgcnConv({inDim: o.hidden, units: l.numClasses, relations, numBases: 4, seed: 2}),
  ];
  const opt = wm.train.adam(o.lr);
  const loader = new wm.nn.TypedNeighborLoader(g, {fanouts: [10, 10], batchSize: 256, shuffle: true, seed: 1});
  console.log(
    `${o.data ?? 'a generated typed graph'}: ${relations.length} relations, ${l.numClasses} classes on '${l.type}'; training on ${where}`,
  );
  for (let epoch = 1; epoch <= o.epochs; ++epoch) {
    let loss = 0,
      steps = 0;
    for await (const b of loader) {
      const v = opt.minimize(
        () => wm.nn.softmaxCrossEntropy(b.y!, forward(b, convs)),
        true,
        convs.flatMap((c) => c.variables),
      )!;
      loss += v.dataSync()[0];
      ++steps;
      v.dispose();
      b.dispose();
    }
    const [val, test] = [await accuracy(g, l.split!.val, convs), await accuracy(g, l.split!.test, convs)];
    console.log(
      `epoch ${epoch}: loss ${(loss / steps).toFixed(4)}, validation ${(100 * val).toFixed(1)} %, test ${(100 * test).toFixed(1)} %`,
    );
  }
  loader.dispose();
  convs.forEach((c) => c.dispose());
  opt.dispose();
  g.free();
}

main().catch((e) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});

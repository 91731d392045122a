// `npm run bench:graphs` — graph classification on many molecule-sized graphs against PyG's DataLoader + GINConv +
// global_add_pool on the same GPU, the same graphs. BENCH_GRAPHS_COUNT graphs (default 20,000 on a GPU, 2,000 on the
// CPU) of 15 to 35 vertices (about 25), a random tree and a few more bonds (about 28 bonds: 55 directed edges),
// 9 atom and 3 bond feature columns (GIN reads the atoms'), two classes. Both sides: 3 GIN layers (a two-layer MLP
// each, ReLU, batch normalisation), hidden 64, every depth add-pooled and joined, a two-layer MLP, Adam 0.01,
// cross-entropy. Graphs per second for an epoch of training (shuffled batches, the batching included, after a
// warm-up epoch) and for inference over every graph, at batch 128 and 1024 (BENCH_GRAPHS_BATCHES). Then the test
// accuracy of k-fold cross-validation on generated graph families, ours and PyG's on the same folds (accuracyBesidePyg).
import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {SmallGraph} from '../src/graph/graph_batch';
import {graphFamilies} from '../src/graph/graph_families';
import {GraphLoader} from '../src/graph/graph_loader';
import {stratifiedFolds, trainGraphClassification} from '../src/train/graph_classification';
import {concatArrays} from '../src/util/arrays';
import {envPositiveInt, torchJsonWithFiles, writeBenchResult} from './bench_util';
import {ginTrainer, molecules} from './molecules';

interface Rates {
  trainGraphsPerSecond: number;
  inferGraphsPerSecond: number;
  loss: number;
}

async function ours(graphs: SmallGraph[], batchSize: number): Promise<Rates> {
  const {model, epoch, dispose} = ginTrainer(graphs, batchSize);
  try {
    await epoch(); // warm-up
    let t = Date.now();
    const loss = await epoch();
    const trainGraphsPerSecond = graphs.length / ((Date.now() - t) / 1000);
    // Inference over every graph in order, as an evaluation each epoch runs it: the loader's second pass timed (its
    // worker thread started and the graphs handed to it in the first).
    const inOrder = new GraphLoader(graphs, {batchSize, shuffle: false});
    let inferGraphsPerSecond = 0;
    for (let pass = 0; pass < 2; ++pass) {
      t = Date.now();
      let last: tf.Tensor | undefined;
      for await (const b of inOrder) {
        last?.dispose();
        last = tf.argMax(model.forward(b), 1);
        b.dispose();
      }
      await last!.data();
      last!.dispose();
      inferGraphsPerSecond = graphs.length / ((Date.now() - t) / 1000);
    }
    inOrder.dispose();
    return {trainGraphsPerSecond, inferGraphsPerSecond, loss};
  } finally {
    dispose();
  }
}

/** The graphs as flat arrays for PyG: per graph its vertex and bond counts, then the bonds, atoms, bond features (none: empty), labels. */
function flat(graphs: SmallGraph[]): Record<string, ArrayBufferView> {
  const counts = new Int32Array(2 * graphs.length);
  graphs.forEach((g, i) => ((counts[2 * i] = g.numVertices), (counts[2 * i + 1] = g.src.length)));
  const bonds = new Int32Array(graphs.reduce((a, g) => a + 2 * g.src.length, 0));
  let at = 0;
  for (const g of graphs) for (let e = 0; e < g.src.length; ++e) ((bonds[at++] = g.src[e]), (bonds[at++] = g.dst[e]));
  const cat = (parts: Float32Array[]) => concatArrays(parts, (n) => new Float32Array(n));
  return {
    'counts.i32': counts,
    'bonds.i32': bonds,
    'x.f32': cat(graphs.map((g) => g.features!)),
    'edge.f32': cat(graphs.map((g) => g.edgeFeatures ?? new Float32Array(0))),
    'y.i32': Int32Array.from(graphs, (g) => g.label!),
  };
}

/**
 * Accuracy beside PyG's on the same folds: generated graph families (four classes only the structure tells apart),
 * BENCH_GRAPHS_FOLDS-fold cross-validation (default 10 on a GPU, 3 on the CPU) as trainGraphClassification runs it
 * (a fold tests, the next one picks the epoch, the rest trains; batch 32, Adam 0.01, BENCH_GRAPHS_EPOCHS epochs,
 * default 30 / 5), the same model on both sides; the test accuracy's mean and spread over the folds.
 */
async function accuracyBesidePyg(gpu: boolean): Promise<object> {
  const folds = envPositiveInt('BENCH_GRAPHS_FOLDS', gpu ? 10 : 3),
    epochs = envPositiveInt('BENCH_GRAPHS_EPOCHS', gpu ? 30 : 5);
  const data = graphFamilies({graphs: 800, classes: 4, seed: 1});
  const t0 = Date.now();
  const ours = await trainGraphClassification(data, {folds, epochs, seed: 0});
  const seconds = (Date.now() - t0) / 1000;
  const foldOf = stratifiedFolds(
    Int32Array.from(data.graphs, (g) => g.label!),
    folds,
    0,
  );
  const pyg = gpu
    ? torchJsonWithFiles<{testAcc: [number, number]; seconds: number}>('graphs.py', {...flat(data.graphs), 'folds.i32': foldOf}, [
        'accuracy',
        String(data.dim),
        String(data.numClasses),
        String(folds),
        String(epochs),
      ])
    : undefined;
  const pct = ([m, s]: [number, number]) => `${(100 * m).toFixed(1)} ± ${(100 * s).toFixed(1)} %`;
  console.log(
    `graph families (${data.graphs.length} graphs, ${data.numClasses} classes), ${folds}-fold, ${epochs} epochs: test accuracy ours ${pct(ours.testAcc)} (${seconds.toFixed(1)} s)` +
      (pyg ? `, PyG ${pct(pyg.testAcc)} (${pyg.seconds.toFixed(1)} s)` : ''),
  );
  return {graphs: data.graphs.length, classes: data.numClasses, folds, epochs, ours: ours.testAcc, oursSeconds: seconds, pyg};
}

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const dev = wm.deviceInfo();
  const count = envPositiveInt('BENCH_GRAPHS_COUNT', dev.gpu ? 20000 : 2000);
  const batches = (process.env.BENCH_GRAPHS_BATCHES ?? '128,1024').split(',').map(Number);
  const graphs = molecules(count, 1);
  const edges = graphs.reduce((a, g) => a + 2 * g.src.length, 0);
  console.log(
    `${count} graphs, ${(graphs.reduce((a, g) => a + g.numVertices, 0) / count).toFixed(1)} vertices and ${(edges / count).toFixed(1)} directed edges a graph`,
  );
  const rows: object[] = [];
  for (const batchSize of batches) {
    const r = await ours(graphs, batchSize);
    const pyg = dev.gpu ? torchJsonWithFiles<Rates>('graphs.py', flat(graphs), [String(batchSize)]) : undefined;
    const row = {batchSize, ours: r, pyg};
    rows.push(row);
    console.log(
      `batch ${batchSize}: training ${r.trainGraphsPerSecond.toFixed(0)} graphs/s` +
        (pyg ? ` (PyG ${pyg.trainGraphsPerSecond.toFixed(0)}, ${(r.trainGraphsPerSecond / pyg.trainGraphsPerSecond).toFixed(2)}x)` : '') +
        `, inference ${r.inferGraphsPerSecond.toFixed(0)}` +
        (pyg ? ` (PyG ${pyg.inferGraphsPerSecond.toFixed(0)}, ${(r.inferGraphsPerSecond / pyg.inferGraphsPerSecond).toFixed(2)}x)` : '') +
        `; loss ${r.loss.toFixed(3)}${pyg ? ` (PyG ${pyg.loss.toFixed(3)})` : ''}`,
    );
  }
  const accuracy = await accuracyBesidePyg(dev.gpu);
  writeBenchResult('graphs', {device: dev, count, rows, accuracy});
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

// Is ours the model PyG's SAGEConv stack is, step for step? bench:papers100m-accuracy's model (3-layer GraphSAGE, hidden
// 256, 172 classes, Adam) on PROBE_STEPS batches ours samples from a NeighborLoader over a CSBM of PROBE_VERTICES
// (2,000,000) vertices: each batch's inputs and layers, the labels, ours' initial weights, the first step's loss and
// gradients, each step's loss and the final weights are written to a folder; bench/torch/sage_vs_pyg.py loads the same
// weights into PyG's SAGEConv layers, takes the same steps on the same batches with torch's Adam (epsilon as tfjs'),
// and reports the differences, and the vertices each hop holds beside those graphsage.py's sampler draws for the same
// seeds. The first batch's loss is ours' first layer as a loader leaves it (the last hop as drawn, on a GPU), the
// others after relabelling. Environment: PROBE_VERTICES, PROBE_STEPS (8), PROBE_BATCH (1024),
// PROBE_FANOUTS (30,30,30), PROBE_LR (0.003), BENCH_GRAPH_DIR (the folder's parent), PROBE_KEEP (keep the folder).
// Run: node dist/bench/probes/sage_vs_pyg.js
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../../src/index';
import {writeNpy} from '../../src/data/npy';
import {DeviceCsr} from '../../src/graph/device_csr';
import {isFixedLayer} from '../../src/graph/sampled_subgraph';
import {int32Ids} from '../../src/util/arrays';
import {envPositiveInt, torchJson} from '../bench_util';
import {HIDDEN, papersSage} from '../papers100m_model';

const VERTICES = envPositiveInt('PROBE_VERTICES', 2_000_000);
const STEPS = envPositiveInt('PROBE_STEPS', 8);
const BATCH = envPositiveInt('PROBE_BATCH', 1024);
const FANOUTS = (process.env.PROBE_FANOUTS ?? '30,30,30').split(',').map(Number);
const LR = Number(process.env.PROBE_LR ?? 0.003);
const CLASSES = 172,
  FEATURES = 128;

interface TorchSide {
  firstLoss: number;
  gradRelDiff: number[];
  losses: number[];
  weightRelDiff: number[];
  oursHops: number[];
  pygHops: number[];
}

// A layer's neighbour positions among its inputs, [numDst * fanout] (a fixed fan-out; a block with fanout entries a row).
function layerPositions(layer: wm.graph.SampledLayer): {numDst: number; fanout: number; neighbors: Int32Array} {
  if (isFixedLayer(layer)) return {numDst: layer.numDst, fanout: layer.fanout, neighbors: layer.neighbors.dataSync() as Int32Array};
  const {rowPtr, colIdx} = layer.block.arrays;
  const numDst = rowPtr.length - 1,
    fanout = numDst ? rowPtr[1] - rowPtr[0] : 0;
  for (let i = 0; i < numDst; ++i)
    if (rowPtr[i + 1] - rowPtr[i] !== fanout) throw new Error(`layer row ${i}: ${rowPtr[i + 1] - rowPtr[i]} entries, not ${fanout}`);
  return {numDst, fanout, neighbors: colIdx};
}

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const gpu = wm.deviceInfo().gpu;
  const data = wm.graph.csbmNative({
    vertices: VERTICES,
    classes: CLASSES,
    degree: 29,
    homophily: 0.4,
    features: FEATURES,
    signal: 1,
    seed: 7,
  });
  const dir = fs.mkdtempSync(path.join(process.env.BENCH_GRAPH_DIR ?? os.tmpdir(), 'wm-sage-vs-pyg-'));
  const rows = data.featureRows(0, VERTICES);
  const features = wm.nn.featureTable(rows, VERTICES, FEATURES, {
    dtype: 'float32',
    memory: gpu ? 'device' : 'host',
  });
  const graph = gpu ? new DeviceCsr(data.graph) : data.graph;
  const model = papersSage(VERTICES, features, CLASSES);
  const optimizer = wm.train.adam(LR);
  const vars = model.trainableVariables;
  const seeds = Int32Array.from({length: STEPS * BATCH}, (_, i) => (i * 7919) % VERTICES);
  const loader = new wm.nn.NeighborLoader(graph, seeds, {
    fanouts: FANOUTS,
    batchSize: BATCH,
    labels: data.labels,
    seed: 1,
    shuffle: false,
    replace: true,
  });
  try {
    data.graph.save(path.join(dir, 'graph.wmcsr'));
    writeNpy(path.join(dir, 'features.npy'), rows, [VERTICES, FEATURES]);
    const dump = (name: string, list: tf.Variable[]) =>
      list.forEach((v, i) => writeNpy(path.join(dir, `${name}_${i}.npy`), v.dataSync() as Float32Array, v.shape));
    // sageConv's weights a layer at a time: root kernel, neighbours' kernel, bias.
    dump('init', model.denseVariables);
    const losses: number[] = [];
    let step = 0;
    for await (const batch of loader) {
      const loss = () => wm.nn.softmaxCrossEntropy(batch.y!, model.forward(batch, batch.seed)) as tf.Scalar;
      if (step === 0) {
        const {value, grads} = tf.variableGrads(loss, vars);
        losses.push((await value.data())[0]);
        model.denseVariables.forEach((v, i) =>
          writeNpy(path.join(dir, `grad0_${i}.npy`), grads[v.name].dataSync() as Float32Array, v.shape),
        );
        optimizer.applyGradients(Object.entries(grads).map(([name, tensor]) => ({name, tensor})));
        tf.dispose([value, ...Object.values(grads)]);
      } else {
        const cost = optimizer.minimize(loss, true, vars)!;
        losses.push((await cost.data())[0]);
        cost.dispose();
      }
      // The batch as PyG reads it: input vertices, then each layer's outputs (a prefix of its inputs) and neighbours.
      const inputs = int32Ids(batch.inputIds, 'batch.inputIds');
      writeNpy(path.join(dir, `b${step}_inputs.npy`), inputs, [inputs.length]);
      batch.layers.forEach((layer, l) => {
        const {numDst, fanout, neighbors} = layerPositions(layer);
        writeNpy(path.join(dir, `b${step}_l${l}.npy`), neighbors, [numDst, fanout]);
      });
      writeNpy(path.join(dir, `b${step}_y.npy`), batch.y!.dataSync() as Int32Array, [batch.y!.size]);
      batch.dispose();
      ++step;
    }
    dump('final', model.denseVariables);
    console.log(`ours: ${step} steps, losses ${losses.map((l) => l.toFixed(5)).join(' ')}`);
    const torch = torchJson<TorchSide>('sage_vs_pyg.py', [
      dir,
      String(step),
      String(HIDDEN),
      String(CLASSES),
      String(LR),
      FANOUTS.join(','),
    ]);
    if (!torch) return;
    const ours0 = losses[0];
    console.log(
      `first batch's loss: ours ${ours0.toFixed(6)}, PyG ${torch.firstLoss.toFixed(6)} (difference ${(ours0 - torch.firstLoss).toExponential(2)})`,
    );
    console.log(
      `first step's gradients, ‖ours − PyG‖ / ‖PyG‖ per variable (root, neighbours, bias a layer): ${torch.gradRelDiff.map((d) => d.toExponential(2)).join(' ')}`,
    );
    console.log(`losses step by step, ours − PyG: ${losses.map((l, i) => (l - torch.losses[i]).toExponential(2)).join(' ')}`);
    console.log(`vertices by hop, seeds first: ours ${torch.oursHops.join(' ')}, PyG's sampler ${torch.pygHops.join(' ')}`);
    console.log(`weights after ${step} steps, ‖ours − PyG‖ / ‖PyG‖: ${torch.weightRelDiff.map((d) => d.toExponential(2)).join(' ')}`);
  } finally {
    model.dispose();
    optimizer.dispose();
    features.dispose();
    if (graph instanceof DeviceCsr) graph.dispose();
    data.graph.free();
    if (process.env.PROBE_KEEP) console.log(`kept ${dir}`);
    else fs.rmSync(dir, {recursive: true, force: true});
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

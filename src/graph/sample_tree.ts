// GraphSAGE's sampling tree, where the graph lives: depth 0 are the seeds, depth d + 1 holds fanouts[d]
// neighbours (with replacement) of every entry of depth d, each occurrence drawn on its own. Nothing is
// relabelled, so every shape follows from the seed count and the fan-outs: a step on the GPU needs no
// wait for it. Returned in the one sampled-subgraph shape: the input rows are the depths one after the
// other, and each layer's edges depend on the shape alone (kept from call to call, shared by the
// subgraphs of one shape).
import * as tf from '@tensorflow/tfjs-core';

import {markValid} from '../backend/index_validation';
import {CsrBlock} from './aggregate';
import type {GraphStore, HostGraph, SampleOptions} from './graph_store';
import {hopSeed} from './native_sampling';
import type {SampledLayer, SampledSubgraph} from './sampled_subgraph';
import {checkSeeds} from './seeds';
import {checkFanouts, gpuGraph} from './fixed_subgraph';
import {Ids, int32Ids} from '../util/arrays';

/**
 * The sampling tree of `seeds` (repeats allowed), fanouts[0] next to the seeds: on the host for a
 * host graph (CsrGraph, NativeCsr), on the GPU for a DeviceCsr or WholeMemoryCsr. Draws what
 * sampleNeighbors draws hop by hop with replacement (the same on the CPU and the GPU for the same seed).
 */
export function sampleTree(
  graph: GraphStore,
  seedIds: Ids,
  fanouts: number[],
  opts: Pick<SampleOptions, 'seed' | 'keyBy'> = {},
): SampledSubgraph {
  const seeds = int32Ids(seedIds, 'sampleTree: seeds');
  checkFanouts('sampleTree', fanouts);
  checkSeeds('sampleTree', graph.numVertices, seeds);
  const inputIds =
    graph.samples === 'arrays' ? hostDepths(graph as HostGraph, seeds, fanouts, opts) : deviceDepths(graph, seeds, fanouts, opts);
  const shape = treeShape(seeds.length, fanouts);
  ++shape.users;
  let disposed = false;
  return {
    inputIds,
    layers: shape.layers,
    dispose: () => {
      if (disposed) return;
      disposed = true;
      if (inputIds instanceof tf.Tensor) inputIds.dispose();
      release(shape);
    },
  };
}

function hostDepths(graph: HostGraph, seeds: Int32Array, fanouts: number[], o: SampleOptions): Int32Array {
  const depths = [seeds];
  fanouts.forEach((f, hop) =>
    depths.push(graph.sample(depths[hop], f, {replace: true, seed: hopSeed(o.seed ?? 0, hop), keyBy: o.keyBy}).ids),
  );
  const all = new Int32Array(depths.reduce((n, d) => n + d.length, 0));
  depths.reduce((at, d) => (all.set(d, at), at + d.length), 0);
  return all;
}

function deviceDepths(store: GraphStore, seeds: Int32Array, fanouts: number[], o: SampleOptions): tf.Tensor1D {
  const graph = gpuGraph('sampleTree', store);
  const depths = [tf.tensor1d(seeds, 'int32')];
  try {
    fanouts.forEach((f, hop) =>
      depths.push(graph.sample(depths[hop], f, {replace: true, seed: hopSeed(o.seed ?? 0, hop), keyBy: o.keyBy}).ids),
    );
    const all = depths.length === 1 ? tf.clone(depths[0]) : (tf.concat(depths) as tf.Tensor1D);
    markValid(all, graph.numVertices); // the seeds were checked, the rest drawn from the graph's own columns
    return all;
  } finally {
    tf.dispose(depths);
  }
}

// The layers of a tree of `n` seeds and these fan-outs, kept while a subgraph uses them (and a few unused
// ones after, for the next step of the same shape). Tensors belong to a backend: the key names it.
interface TreeShape {
  key: string;
  layers: SampledLayer[];
  users: number;
}
const shapes = new Map<string, TreeShape>();
const KEPT_UNUSED = 8;

function treeShape(n: number, fanouts: number[]): TreeShape {
  const key = `${tf.getBackend()} ${n} ${fanouts.join(',')}`;
  let s = shapes.get(key);
  if (s) {
    shapes.delete(key); // most recently used last
  } else {
    s = {key, layers: treeLayers(n, fanouts), users: 0};
  }
  shapes.set(key, s);
  return s;
}

function release(s: TreeShape): void {
  --s.users;
  const unused = [...shapes.values()].filter((x) => x.users === 0);
  for (const x of unused.slice(0, Math.max(0, unused.length - KEPT_UNUSED))) {
    shapes.delete(x.key);
    for (const l of x.layers) 'block' in l ? l.block.dispose() : l.neighbors.dispose();
  }
}

// Layer l (input first) computes depths 0 .. L-1-l; a row of depth d reads its fanouts[d] children,
// which sit at offset(d + 1) + (i - offset(d)) * fanouts[d]. Where those depths share one fan-out f, the
// children of row i are rows n + i * f: a fixed fan-out layer; else a CSR block.
function treeLayers(n: number, fanouts: number[]): SampledLayer[] {
  const sizes = [n];
  fanouts.forEach((f, d) => sizes.push(sizes[d] * f));
  const offset = sizes.map((_, d) => sizes.slice(0, d).reduce((a, b) => a + b, 0));
  return fanouts.map((_, l) => {
    const deepest = fanouts.length - 1 - l;
    const numDst = offset[deepest] + sizes[deepest];
    const fs = fanouts.slice(0, deepest + 1);
    if (fs.every((f) => f === fs[0])) {
      const f = fs[0];
      return {numDst, fanout: f, neighbors: tf.keep(tf.range(n, n + numDst * f, 1, 'int32') as tf.Tensor1D)};
    }
    const rowPtr = new Int32Array(numDst + 1);
    const colIdx = new Int32Array(fs.reduce((a, f, d) => a + f * sizes[d], 0));
    let e = 0;
    fs.forEach((f, d) => {
      for (let i = 0; i < sizes[d]; ++i) {
        const first = offset[d + 1] + i * f;
        for (let j = 0; j < f; ++j) colIdx[e++] = first + j;
        rowPtr[offset[d] + i + 1] = e;
      }
    });
    const noDegrees = (): Int32Array => {
      throw new Error(
        "sampleTree: a tree's rows are occurrences, not vertices: 'gcn' aggregation needs a compact subgraph (sampleSubgraph)",
      );
    };
    return {block: CsrBlock.trusted(rowPtr, colIdx, offset[deepest + 1] + sizes[deepest + 1], noDegrees)};
  });
}

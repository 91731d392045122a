// Compact subgraphs sampled with a fixed fan-out (uniform with replacement,
// GraphSAGE's fixed-size sampling) where the graph lives: every step of the
// sampling, unique-and-relabel and the aggregation stays on the GPU (or in
// the C++ core), with no copy to the host and back. Fixed fan-outs make each
// layer's neighbour lists a dense [dst, fanout] matrix, so aggregation is a
// gather and a mean, and its gradient a segment sum.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {markValid} from '../backend/index_validation';
import {onSideStream} from '../backend/side_stream';
import type {DeviceCsr} from './device_csr';
import {deferredSubgraph} from './deferred_inputs';
import {hopSeed, relabel} from './native_sampling';
import {allDistinct, checkSeeds, distinctCount} from './seeds';
import type {WholeMemoryCsr} from './whole_memory_csr';
import type {FixedFanoutLayer, SampledSubgraph} from './sampled_subgraph';
import type {GraphStore, SampleOptions} from './graph_store';
import {graphNative} from '../native/domains';
import {int32Ids} from '../util/arrays';

/**
 * Samples fanouts[l] neighbours per vertex per hop (fanouts[0] next to the
 * seeds) with replacement, drawing what sampleSubgraph(..., {replace: true})
 * draws for the same seed (a vertex without neighbours samples itself), and
 * relabels them into a compact subgraph in the same order. Seeds must be distinct.
 */
export function sampleFixedSubgraph(
  graph: DeviceCsr | WholeMemoryCsr,
  seeds: tf.Tensor1D | Int32Array | ArrayLike<number>,
  fanouts: number[],
  opts: Pick<SampleOptions, 'seed' | 'keyBy'> = {},
  deferInputs?: DeferInputs,
): SampledSubgraph<FixedFanoutLayer> & {inputIds: tf.Tensor1D} {
  gpuGraph('sampleFixedSubgraph', graph);
  const s = seeds instanceof tf.Tensor ? seeds : int32Ids(seeds, 'sampleFixedSubgraph: seeds');
  // On the side stream: the two counts read back wait for the sampling only, not for the training queued before it.
  return onSideStream(() => sampleOnStream(graph, s, fanouts, opts, deferInputs), {waitForMain: !(s instanceof Int32Array)});
}

/**
 * @internal A GPU sampler's last hop left as drawn (deferred_inputs.ts): `asked` is told when its relabelling is
 * first asked for.
 */
export interface DeferInputs {
  asked(): void;
}

/** @internal The graph as one the GPU samples (a DeviceCsr or WholeMemoryCsr); a host graph gets a message, not a TypeError. */
export function gpuGraph(what: string, graph: GraphStore | unknown): DeviceCsr | WholeMemoryCsr {
  if (!(graph && typeof graph === 'object' && 'sample' in graph && 'vertexMap' in graph))
    throw new TypeError(
      `${what}: graph must be a DeviceCsr or a WholeMemoryCsr (a graph on the GPU or in WholeMemory); ` +
        'copy a CsrGraph or NativeCsr there with new wm.graph.DeviceCsr(graph), or sample on the host with sampleSubgraph',
    );
  return graph as DeviceCsr | WholeMemoryCsr;
}

function sampleOnStream(
  graph: DeviceCsr | WholeMemoryCsr,
  seeds: tf.Tensor1D | Int32Array,
  fanouts: number[],
  opts: Pick<SampleOptions, 'seed' | 'keyBy'>,
  deferInputs?: DeferInputs,
): SampledSubgraph<FixedFanoutLayer> & {inputIds: tf.Tensor1D} {
  checkFanouts('sampleFixedSubgraph', fanouts);
  // Host seeds are checked here, so the GPU sampler needs no error flag (a
  // wait for the GPU); later hops' vertices come from the graph itself.
  if (seeds instanceof Int32Array) checkSeeds('sampleFixedSubgraph', graph.numVertices, seeds);
  const first = seeds instanceof Int32Array ? tf.tensor1d(seeds, 'int32') : tf.clone(seeds);
  if (first.dtype !== 'int32' || first.rank !== 1) {
    first.dispose();
    throw new TypeError(`sampleFixedSubgraph: seeds must be a 1-D int32 tensor or an Int32Array`);
  }
  const distinct =
    seeds instanceof Int32Array ? (allDistinct(seeds) ? seeds.length : distinctCount(seeds)) : tf.tidy(() => tf.unique(first).values.size);
  if (distinct !== first.size) {
    first.dispose();
    throw new RangeError(`sampleFixedSubgraph: seeds must be distinct (${first.size} seeds, ${distinct} distinct)`);
  }
  if (seeds instanceof Int32Array) markValid(first, graph.numVertices);
  const layers: FixedFanoutLayer[] = [];
  let dst: tf.Tensor1D = first;
  try {
    for (let hop = 0; hop < fanouts.length; ++hop) {
      const fanout = fanouts[hop];
      const {ids} = graph.sample(dst, fanout, {replace: true, seed: hopSeed(opts.seed ?? 0, hop), keyBy: opts.keyBy});
      // Seeds and their sampled neighbours: vertices of the graph. An embedding
      // table of numVertices rows reads them without a check of its own.
      if (deferInputs && hop === fanouts.length - 1) {
        markValid(ids, graph.numVertices);
        const numDst = dst.size;
        return deferredSubgraph<FixedFanoutLayer>({
          graph,
          upper: layers,
          inputs: {dst, lists: {fanout, neighbors: ids}},
          layer: (_values, neighbors) => ({numDst, fanout, neighbors}),
          asked: deferInputs.asked,
        });
      }
      // dst is distinct, so the first-occurrence order puts it first: the outputs are a prefix of the inputs.
      const {values, neighbors} = relabel(graph, dst, ids);
      ids.dispose();
      markValid(values, graph.numVertices);
      layers.unshift({numDst: dst.size, fanout, neighbors});
      dst.dispose();
      dst = values;
    }
  } catch (e) {
    tf.dispose([dst, ...layers.map((l) => l.neighbors)]);
    throw e;
  }
  return {inputIds: dst, layers, dispose: () => tf.dispose([dst, ...layers.map((l) => l.neighbors)])};
}

/** @internal Each fan-out a positive integer, or an error naming it. */
export function checkFanouts(what: string, fanouts: number[]): void {
  fanouts.forEach((f, i) => {
    if (!Number.isInteger(f) || f < 1) throw new RangeError(`${what}: fanouts[${i}] must be a positive integer, got ${f}`);
  });
}

/**
 * Mean of each row's sampled neighbours: h [inputs, dim] -> [layer.numDst, dim].
 * Differentiable in h. The gradient is written out (dy / fanout added into
 * each sampled neighbour's row), since the forward is a native kernel that
 * tfjs cannot differentiate.
 */
export function meanOfNeighbors(h: tf.Tensor2D, layer: FixedFanoutLayer): tf.Tensor2D {
  const f = tf.customGrad(((x: tf.Tensor) => ({
    value: tf.tidy(() => gatherMean(x as tf.Tensor2D, layer)),
    gradFunc: (dy: tf.Tensor) => tf.tidy(() => scatterMean(dy as tf.Tensor2D, layer, x.shape[0]!)),
  })) as unknown as Parameters<typeof tf.customGrad>[0]);
  return f(h) as tf.Tensor2D;
}

// The gradient: on the GPU one kernel adds dy / fanout into each sampled
// neighbour's row (tiling dy first would write and read [numDst * fanout, dim]).
function scatterMean(dy: tf.Tensor2D, layer: FixedFanoutLayer, inputs: number): tf.Tensor2D {
  const {numDst, fanout, neighbors} = layer;
  const dim = dy.shape[1];
  const b = tf.backend();
  if (!(b instanceof WholeMemoryBackend && b.gpu) || numDst === 0 || dim === 0) {
    const each = tf.reshape(tf.tile(tf.reshape(tf.div(dy, fanout), [numDst, 1, dim]), [1, fanout, 1]), [numDst * fanout, dim]);
    return tf.unsortedSegmentSum(each, neighbors, inputs) as tf.Tensor2D;
  }
  return b.deviceOutputs([[inputs, dim]], ([ptr]) => {
    graphNative().neighborMeanGrad(b.devicePtr(neighbors), numDst, fanout, b.devicePtr(dy), dim, ptr, inputs);
  })[0] as tf.Tensor2D;
}

// On the GPU one kernel reads the neighbours' rows once (the gather-then-mean
// would write and read a [numDst, fanout, dim] intermediate).
function gatherMean(x: tf.Tensor2D, layer: FixedFanoutLayer): tf.Tensor2D {
  const {numDst, fanout, neighbors} = layer;
  const b = tf.backend();
  if (!(b instanceof WholeMemoryBackend && b.gpu) || numDst === 0 || x.shape[1] === 0) {
    return tf.mean(tf.reshape(tf.gather(x, neighbors), [numDst, fanout, x.shape[1]]), 1) as tf.Tensor2D;
  }
  return b.deviceOutputs([[numDst, x.shape[1]]], ([ptr]) => {
    graphNative().neighborMean(b.devicePtr(neighbors), numDst, fanout, b.devicePtr(x), x.shape[1], ptr);
  })[0] as tf.Tensor2D;
}

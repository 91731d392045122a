// Compact subgraphs sampled without replacement where a graph sampled as tensors lives (a DeviceCsr, or a
// WholeMemoryCsr on GPUs or in host memory): PyG's NeighborLoader default. Each hop draws up to fan-out distinct
// neighbours a vertex (graph/sampling_rules.h's draws, the host sampler's) and relabels them where they are (on
// the GPU through the graph's vertex map); each layer a CSR block whose offsets are read back once (they size the
// draws), on the GPU keeping its device arrays for its products, its positions read back only if the host asks for
// them, differentiated by scattering (CsrBlock.onDevice). For the same seed the subgraph is the one sampleSubgraph makes on the host.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {markValid} from '../backend/index_validation';
import {onSideStream} from '../backend/side_stream';
import {CsrBlock} from './aggregate';
import type {DeviceCsr} from './device_csr';
import {deferredSubgraph} from './deferred_inputs';
import {checkFanouts, DeferInputs, gpuGraph} from './fixed_subgraph';
import {hopSeed, relabel, SampleOptions} from './native_sampling';
import type {BlockLayer, SampledSubgraph} from './sampled_subgraph';
import {allDistinct, checkSeeds, distinctCount} from './seeds';
import type {WholeMemoryCsr} from './whole_memory_csr';
import {int32Ids} from '../util/arrays';

/**
 * Samples up to fanouts[l] distinct neighbours per vertex per hop (fanouts[0] next to the seeds) where the graph
 * lives and relabels them there: what sampleSubgraph(hostGraph, seeds, fanouts, {replace: false}) gives for the
 * same seed, the input ids a tensor. Seeds must be distinct vertices of the graph.
 */
export function sampleSubgraphInPlace(
  graph: DeviceCsr | WholeMemoryCsr,
  seeds: Int32Array | ArrayLike<number>,
  fanouts: number[],
  opts: Pick<SampleOptions, 'seed' | 'keyBy'> = {},
  deferInputs?: DeferInputs,
): SampledSubgraph<BlockLayer> & {inputIds: tf.Tensor1D} {
  const what = 'sampleSubgraphInPlace';
  gpuGraph(what, graph);
  checkFanouts(what, fanouts);
  const s = int32Ids(seeds, `${what}: seeds`);
  checkSeeds(what, graph.numVertices, s);
  if (!allDistinct(s)) throw new RangeError(`${what}: seeds must be distinct (${s.length} seeds, ${distinctCount(s)} distinct)`);
  // On the side stream: the counts read back wait for the sampling only, not for the training queued before it.
  return onSideStream(() => sampleHops(graph, s, fanouts, opts, deferInputs), {waitForMain: false});
}

function sampleHops(
  graph: DeviceCsr | WholeMemoryCsr,
  seeds: Int32Array,
  fanouts: number[],
  opts: Pick<SampleOptions, 'seed' | 'keyBy'>,
  deferInputs?: DeferInputs,
): SampledSubgraph<BlockLayer> & {inputIds: tf.Tensor1D} {
  const b = tf.backend();
  const onGpu = b instanceof WholeMemoryBackend && b.gpu;
  const layers: BlockLayer[] = [];
  let dst = tf.tensor1d(seeds, 'int32');
  markValid(dst, graph.numVertices); // checked by the caller
  try {
    for (let hop = 0; hop < fanouts.length; ++hop) {
      const fanout = fanouts[hop];
      const drawn: {offsets?: tf.Tensor1D; hostOffsets?: Int32Array; ids: tf.Tensor1D} = graph.sample(dst, fanout, {
        replace: false,
        seed: hopSeed(opts.seed ?? 0, hop),
        keyBy: opts.keyBy,
      });
      if (deferInputs && hop === fanouts.length - 1) {
        // The drawn vertices stay as they are until asked for (deferred_inputs.ts); the block is made then.
        markValid(drawn.ids, graph.numVertices);
        const offsets = drawn.offsets!,
          rowPtr = drawn.hostOffsets ?? (offsets.dataSync() as Int32Array);
        return deferredSubgraph<BlockLayer>({
          graph,
          upper: layers,
          inputs: {dst, lists: {rowPtr: offsets, colIdx: drawn.ids}},
          layer: (values, neighbors) => ({block: hopBlock(rowPtr, neighbors, values.size, onGpu, tf.keep(tf.clone(offsets)), fanout)}),
          asked: deferInputs.asked,
        });
      }
      let relabelled: {values: tf.Tensor1D; neighbors: tf.Tensor1D} | undefined;
      try {
        // dst is distinct, so the first-occurrence order puts it first: the outputs are a prefix of the inputs.
        relabelled = relabel(graph, dst, drawn.ids);
        const {values, neighbors} = relabelled;
        markValid(values, graph.numVertices);
        const rowPtr = drawn.hostOffsets ?? (drawn.offsets!.dataSync() as Int32Array);
        layers.unshift({block: hopBlock(rowPtr, neighbors, values.size, onGpu, drawn.offsets!, fanout)});
        dst.dispose();
        dst = values;
      } catch (e) {
        tf.dispose([drawn.offsets ?? [], relabelled ? [relabelled.values, relabelled.neighbors] : []].flat());
        throw e;
      } finally {
        drawn.ids.dispose();
      }
    }
  } catch (e) {
    dst.dispose();
    layers.forEach((l) => l.block.dispose());
    throw e;
  }
  const inputIds = dst;
  return {inputIds, layers, dispose: () => (inputIds.dispose(), layers.forEach((l) => l.block.dispose()))};
}

// A hop's block from the sampler's offsets (rowPtr on the host, `offsets` on the device) and the relabelling's
// positions: in range by construction. On the GPU the block owns the device arrays (the positions never read back
// unless the host asks for them); elsewhere its host arrays are all it reads, and the tensors are freed.
function hopBlock(
  rowPtr: Int32Array,
  neighbors: tf.Tensor1D,
  numCols: number,
  onGpu: boolean,
  offsets: tf.Tensor1D,
  fanout: number,
): CsrBlock {
  if (onGpu) return CsrBlock.onDevice(rowPtr, neighbors, numCols, {rowPtr: offsets, scatter: true, rowEntriesAtMost: fanout});
  const block = CsrBlock.trusted(rowPtr, neighbors.dataSync() as Int32Array, numCols);
  tf.dispose([offsets, neighbors]);
  return block;
}

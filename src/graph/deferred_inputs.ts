// A GPU sampler's subgraph whose last hop stays as drawn: the input layer's neighbours as vertex ids. A first
// layer that reads a feature table in place (GraphSAGE's mean over the rows of a table on the GPU) needs nothing
// else, so the hop's unique-and-relabel (the step's largest, over every input draw) runs only if something asks
// for the distinct input vertices (inputIds) or the input layer's positions among them; then on the side stream,
// in the order the sampler would have run it, and the subgraph is the one the sampler makes without deferring.
import * as tf from '@tensorflow/tfjs-core';

import {markValid} from '../backend/index_validation';
import {onSideStream} from '../backend/side_stream';
import type {DeviceCsr} from './device_csr';
import {relabel} from './native_sampling';
import {InputVertices, listEntries, SampledLayer, SampledSubgraph} from './sampled_subgraph';
import type {WholeMemoryCsr} from './whole_memory_csr';

/** @internal What the sampler hands over: its relabelled layers, the last hop's draws, how to make its layer. */
export interface DeferredHop<L extends SampledLayer> {
  graph: DeviceCsr | WholeMemoryCsr;
  /** The layers above the input layer, input side first. */
  upper: L[];
  /** The last hop: its rows' vertices and their drawn neighbours (vertex ids); the subgraph owns these tensors. */
  inputs: InputVertices;
  /** The input layer from the relabelled neighbours (positions among `values`, the distinct input vertices). */
  layer(values: tf.Tensor1D, neighbors: tf.Tensor1D): L;
  /** Told the first time the positions are asked for (a loader then relabels its later batches as it samples them). */
  asked?: () => void;
}

/** @internal The subgraph of a deferred last hop (see the file's comment). */
export function deferredSubgraph<L extends SampledLayer>(hop: DeferredHop<L>): SampledSubgraph<L> & {inputIds: tf.Tensor1D} {
  const {graph, inputs} = hop;
  let made: {values: tf.Tensor1D; layer: L} | undefined;
  let disposed = false;
  const resolve = (what: string) => {
    if (disposed) throw new Error(`sampled subgraph: ${what} read after the subgraph was disposed`);
    if (!made) {
      hop.asked?.();
      // On the side stream, as the sampler relabels: calls on the graph's vertex map run one after another. Kept:
      // the first read may come inside a tidy scope (a model's forward), and the subgraph owns what it makes.
      made = onSideStream(() => {
        const {values, neighbors} = relabel(graph, inputs.dst, listEntries(inputs.lists));
        markValid(tf.keep(values), graph.numVertices);
        return {values, layer: hop.layer(values, tf.keep(neighbors))};
      });
    }
    return made;
  };
  // What the input layer holds before relabelling: a fixed fan-out's row count and fan-out; its positions (a fixed
  // fan-out's neighbors, a block) when read.
  const lists = inputs.lists;
  const first = ('fanout' in lists ? {numDst: inputs.dst.size, fanout: lists.fanout} : {}) as L;
  const lazy = 'fanout' in lists ? 'neighbors' : 'block';
  Object.defineProperty(first, lazy, {get: () => resolve(`layers[0].${lazy}`).layer[lazy as keyof L], enumerable: true});
  const sub = {
    layers: [first, ...hop.upper],
    inputVertices: inputs,
    dispose: () => {
      if (disposed) return;
      disposed = true;
      tf.dispose([listEntries(lists), 'rowPtr' in lists ? lists.rowPtr : [], inputs.dst].flat());
      hop.upper.forEach(disposeLayer);
      if (made) {
        made.values.dispose();
        disposeLayer(made.layer);
      }
    },
  } as SampledSubgraph<L> & {inputIds: tf.Tensor1D};
  Object.defineProperty(sub, 'inputIds', {get: () => resolve('inputIds').values, enumerable: true});
  return sub;
}

function disposeLayer(l: SampledLayer): void {
  if ('block' in l) l.block.dispose();
  else l.neighbors.dispose();
}

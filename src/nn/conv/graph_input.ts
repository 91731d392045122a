// What a graph layer reads its edges from, given per call (`layer.apply(x, {graph})`) or for every
// layer a model calls inside `withGraph(graph, fn)`: one graph for all of them (full-batch training),
// or one per graph layer in call order (a sampled subgraph's layers, input layer first, as DGL's blocks).
// The rows a layer computes are the first rows of its inputs (the samplers and full graphs put them there).
import {AsyncLocalStorage} from 'async_hooks';

import * as tf from '@tensorflow/tfjs-core';

import {CsrBlock} from '../../graph/aggregate';
import type {BlockLayer, FixedFanoutLayer, SampledSubgraph} from '../../graph/sampled_subgraph';
import {isFixedLayer} from '../../graph/sampled_subgraph';
import type {FullGraph} from '../node_model';

/** x's first n rows, the rows a layer computes (x itself where it has n: a whole graph, a batch of graphs). */
export function firstRows(x: tf.Tensor2D, n: number): tf.Tensor2D {
  return n === x.shape[0] ? x : (tf.slice(x, [0, 0], [n, x.shape[1]]) as tf.Tensor2D);
}

/** One layer's edges: a CSR block, a full graph, or a layer of a sampled subgraph (a block or a fixed fan-out). */
export type GraphLayerInput = CsrBlock | FullGraph | BlockLayer | FixedFanoutLayer;

/** What withGraph takes: one layer's edges for every layer, a list, or a sampled subgraph (its layers). */
export type GraphInput = GraphLayerInput | GraphLayerInput[] | SampledSubgraph;

interface Scope {
  layers: GraphLayerInput[];
  /** One graph read by every layer, or the next of `layers` to hand out. */
  shared: boolean;
  next: number;
}

// The innermost withGraph's scope, carried through fn's awaits too (model.fit's steps run after them).
const scopes = new AsyncLocalStorage<Scope>();

/**
 * Runs fn with `graph` as the edges of every graph layer called inside it without a `graph` argument
 * (a tf.sequential or tf.model of graph layers: `withGraph(sub, () => model.apply(x))`). With a list or a
 * sampled subgraph, the k-th graph layer called reads its k-th layer. fn may be async: its awaited work
 * reads the same graph (`await withGraph(block, () => model.fit(x, y, {batchSize: numNodes, shuffle: false}))`
 * trains a model of graph layers full-batch with tfjs-layers' fit).
 */
export function withGraph<T>(graph: GraphInput, fn: () => T): T {
  const list = Array.isArray(graph) ? graph : 'layers' in graph && Array.isArray(graph.layers) ? graph.layers : undefined;
  return scopes.run({layers: list ?? [graph as GraphLayerInput], shared: !list, next: 0}, fn);
}

/** The edges a layer reads: its own argument, else its turn in the innermost withGraph. */
export function graphFor(given: unknown, what: string): GraphLayerInput {
  if (given !== undefined) return given as GraphLayerInput;
  const s = scopes.getStore();
  if (!s)
    throw new Error(`${what}: no graph: pass {graph} as apply's second argument, or call the model inside wm.nn.withGraph(graph, ...)`);
  if (s.shared) return s.layers[0];
  if (s.next >= s.layers.length)
    throw new RangeError(`${what}: the graph given to withGraph has ${s.layers.length} layers, and this is graph layer ${s.next + 1}`);
  return s.layers[s.next++];
}

/** The block of a layer's edges given as a CsrBlock or holding one (a sampled layer, a full graph), else undefined. */
export function blockIn(g: GraphLayerInput): CsrBlock | undefined {
  if (g instanceof CsrBlock) return g;
  return g && typeof g === 'object' && 'block' in g && g.block instanceof CsrBlock ? g.block : undefined;
}

/** The block of a layer's edges, or an error naming the layer and what it got. */
export function blockOf(g: GraphLayerInput, what: string): CsrBlock {
  const block = blockIn(g);
  if (block) return block;
  if (isFixedLayer(g))
    throw new TypeError(
      `${what}: needs a CSR block (a layer of sampleSubgraph, a full graph or a CsrBlock), got a fixed fan-out layer of sampleFixedSubgraph`,
    );
  // A graph store (CsrGraph, NativeCsr, ...) is not a layer's edges: say how to make them.
  if (g && typeof g === 'object' && 'place' in g && 'numVertices' in g)
    throw new TypeError(
      `${what}: graph must be a layer's edges, got a graph (${(g as {constructor: {name: string}}).constructor.name}): ` +
        'make its block with wm.graph.CsrBlock.fromGraph(graph) (or use a full graph or a sampled subgraph)',
    );
  throw new TypeError(`${what}: graph must be a CsrBlock, a full graph, or a layer of sampleSubgraph or sampleFixedSubgraph`);
}

/** Rows the layer computes: the first rows of its inputs. */
export function outputRows(g: GraphLayerInput, what: string): number {
  return isFixedLayer(g) ? g.numDst : blockOf(g, what).numRows;
}

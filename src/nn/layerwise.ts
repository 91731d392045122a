// Exact inference over every vertex, one layer at a time (as PyG's and DGL's layer-wise inference):
// layer l is computed for all vertices, a batch of consecutive rows at a time, each over its full
// neighbourhood, reading layer l - 1's outputs of the batch and its neighbours from a table; the
// outputs go to a table of their own (GPU memory when it fits with room to spare, else pinned host memory:
// a graph's hidden states need not fit the GPU). No sampling, so the result equals the full-graph forward;
// memory holds one batch's block and two layers' tables, whatever the graph's size; predictions take no
// table for the last layer (each batch's classes are read as it is computed). With a GPU the blocks are built there, from
// the graph copied to the GPU for the pass when it fits (row_blocks.ts).
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {CsrBlock} from '../graph/aggregate';
import {DeviceCsr} from '../graph/device_csr';
import {rowBlock, RowsGraph} from '../graph/row_blocks';
import {deviceFreeBytes} from '../memory/capacity';
import {Embedding, EmbeddingDType, EmbeddingMemory} from './embedding';

/**
 * A graph whose rows a pass reads: JavaScript CSR arrays, a graph in native memory (64-bit offsets),
 * or either on the GPU (a DeviceCsr: each batch's block is then built there).
 */
export type LayerwiseGraph = RowsGraph;

export type LayerwiseMemory = EmbeddingMemory | 'auto';

export interface LayerwiseProgress {
  /** The layer being computed (1-based) and how many there are. */
  layer: number;
  layers: number;
  /** Rows done in this layer, of all. */
  rows: number;
  totalRows: number;
  /** Where this layer's outputs go; undefined for a last layer that keeps no table (predictions). */
  memory?: EmbeddingMemory;
  /** Rows per second over the pass so far, and the seconds left for the whole pass. */
  rowsPerSecond: number;
  etaSeconds: number;
}

export interface LayerwiseOptions {
  /** Rows computed together (default 65,536; fewer when their neighbourhoods are large). */
  batchSize?: number;
  /**
   * Where each layer's outputs live: one place for every layer or one per layer computed (predictions
   * keep no table for the last layer: its entry is not used). 'auto' (the default) puts a layer's table
   * in GPU memory when it takes at most three quarters of what the GPU has free as the layer starts, else
   * in pinned host memory ('host'); without a GPU every table is host memory.
   */
  memory?: LayerwiseMemory | LayerwiseMemory[];
  /** Storage of the intermediate outputs (default 'float32'; 'float16' halves them). */
  dtype?: EmbeddingDType;
  /** Called after every batch. */
  onProgress?: (p: LayerwiseProgress) => void;
  /**
   * With a GPU, a graph on the host is copied there for the pass (and freed after it), so each batch's
   * block is built on the GPU, when its arrays take at most half the GPU's free memory (default true).
   */
  blocksOnGpu?: boolean;
}

/** The graph a pass reads rows from: a host graph copied to the GPU when o allows and it fits there. */
function passGraph(graph: LayerwiseGraph, o: LayerwiseOptions): {graph: RowsGraph; copied?: DeviceCsr} {
  const b = tf.backend();
  if (graph.place === 'device' || o.blocksOnGpu === false || !(b instanceof WholeMemoryBackend && b.gpu)) return {graph};
  if (DeviceCsr.bytesOf(graph) > deviceFreeBytes() / 2) return {graph};
  const copied = new DeviceCsr(graph);
  return {graph: copied, copied};
}

/** What a model gives a pass: its layer count and widths, its inputs for given vertices, and one layer's step. */
export interface LayerwiseModel {
  /** Output width of each layer. */
  widths: number[];
  /** The first layer's inputs for vertices `ids` [ids.length, inputWidth] (ids on the host or the GPU). */
  inputs(ids: Int32Array | tf.Tensor1D): tf.Tensor2D;
  /**
   * Layer l's outputs for the block's rows [block rows, width], from `h` (the previous outputs of
   * the block's columns; its first rows are the rows themselves, in order).
   */
  layer(l: number, h: tf.Tensor2D, block: CsrBlock): tf.Tensor2D;
}

/**
 * Runs `model` over every vertex of `graph` layer by layer and returns the last layer's outputs as a
 * table (rows = vertices; the caller disposes it).
 */
export function layerwiseInference(graph: LayerwiseGraph, model: LayerwiseModel, o: LayerwiseOptions = {}): Embedding {
  return onPassGraph(graph, o, (rows) => passOver(rows, model, o)!);
}

/**
 * Runs `model` over every vertex as layerwiseInference does, but hands each batch of the last layer's
 * outputs to `consume` (its first row and the rows, disposed after the call) instead of keeping a table.
 */
export function layerwiseEach(
  graph: LayerwiseGraph,
  model: LayerwiseModel,
  o: LayerwiseOptions,
  consume: (first: number, rows: tf.Tensor2D) => void,
): void {
  onPassGraph(graph, o, (rows) => passOver(rows, model, o, consume));
}

/** Every vertex's highest output of the model's last layer, read a batch at a time (no table kept). */
export function predictLayerwiseClasses(graph: LayerwiseGraph, model: LayerwiseModel, o: LayerwiseOptions): Int32Array {
  const out = new Int32Array(graph.numVertices);
  layerwiseEach(graph, model, o, (first, logits) => {
    const best = tf.argMax(logits, 1);
    try {
      out.set(best.dataSync() as Int32Array, first);
    } finally {
      best.dispose();
    }
  });
  return out;
}

/** f over the graph a pass reads (passGraph), its GPU copy freed after. */
function onPassGraph<T>(graph: LayerwiseGraph, o: LayerwiseOptions, f: (rows: RowsGraph) => T): T {
  const {graph: rows, copied} = passGraph(graph, o);
  try {
    return f(rows);
  } finally {
    copied?.dispose();
  }
}

/**
 * 'auto' puts a layer's table on the GPU when it takes at most this share of the free memory: the rest
 * holds each batch's block and inputs (a batch of 65,536 rows over full neighbourhoods reads ~2M rows).
 */
const AUTO_DEVICE_SHARE = 0.75;

/** Where layer l's table goes (see LayerwiseOptions.memory). */
function layerMemory(o: LayerwiseOptions, l: number, bytes: number): EmbeddingMemory {
  const m = o.memory ?? 'auto';
  const chosen = Array.isArray(m) ? m[l] : m;
  if (chosen !== 'auto') return chosen;
  const b = tf.backend();
  const gpu = b instanceof WholeMemoryBackend && b.gpu;
  return gpu && bytes <= AUTO_DEVICE_SHARE * deviceFreeBytes() ? 'device' : 'host';
}

const DTYPE_BYTES: {[k in EmbeddingDType]: number} = {float32: 4, float16: 2, bfloat16: 2};

function passOver(
  graph: RowsGraph,
  model: LayerwiseModel,
  o: LayerwiseOptions,
  consume?: (first: number, rows: tf.Tensor2D) => void,
): Embedding | undefined {
  const n = graph.numVertices;
  const batch = o.batchSize ?? 65_536;
  if (!Number.isInteger(batch) || batch < 1)
    throw new RangeError(`layerwise inference: batchSize must be a positive integer, got ${batch}`);
  const layers = model.widths.length;
  const dtype = o.dtype ?? 'float32';
  if (Array.isArray(o.memory) && o.memory.length !== layers)
    throw new RangeError(`layerwise inference: memory lists ${o.memory.length} places for ${layers} layers`);
  const started = Date.now();
  let previous: Embedding | undefined;
  try {
    for (let l = 0; l < layers; ++l) {
      const kept = !(consume && l === layers - 1);
      const out = kept
        ? new Embedding({
            rows: n,
            dim: model.widths[l],
            memory: layerMemory(o, l, n * model.widths[l] * DTYPE_BYTES[dtype]),
            dtype,
            init: {type: 'zeros'},
          })
        : undefined;
      try {
        for (let first = 0; first < n; first += batch) {
          const count = Math.min(batch, n - first);
          const rb = rowBlock(graph, first, count);
          try {
            const result = tf.tidy(() => {
              const h = previous ? (previous.read(rb.ids) as tf.Tensor2D) : model.inputs(rb.ids);
              return model.layer(l, h, rb.block);
            });
            try {
              if (out)
                out.write(
                  Int32Array.from({length: count}, (_, i) => first + i),
                  result,
                );
              else consume!(first, result);
            } finally {
              result.dispose();
            }
          } finally {
            rb.dispose();
          }
          if (o.onProgress) {
            const done = l * n + first + count;
            const rate = done / Math.max((Date.now() - started) / 1000, 1e-9);
            o.onProgress({
              layer: l + 1,
              layers,
              memory: out?.memory,
              rows: first + count,
              totalRows: n,
              rowsPerSecond: rate,
              etaSeconds: (layers * n - done) / rate,
            });
          }
        }
      } catch (e) {
        out?.dispose();
        throw e;
      }
      previous?.dispose();
      previous = out;
    }
  } catch (e) {
    previous?.dispose();
    throw e;
  }
  return previous;
}

/**
 * A node classifier's layer-wise pass up to layer `o.layers` (default its last): the checks every
 * classifier shares, then layerwiseInference. `widths` are all its layers' output widths.
 */
export function classifierLayerwise(
  graph: LayerwiseGraph,
  numNodes: number,
  model: LayerwiseModel,
  o: LayerwiseOptions & {layers?: number},
): Embedding {
  const all = model.widths.length;
  const upTo = o.layers ?? all;
  if (!Number.isInteger(upTo) || upTo < 1 || upTo > all)
    throw new RangeError(`inferLayerwise: layers must be an integer in [1, ${all}], got ${o.layers}`);
  checkVertices(graph, numNodes, 'inferLayerwise');
  return layerwiseInference(graph, {...model, widths: model.widths.slice(0, upTo)}, o);
}

/**
 * A node classifier's predicted class of every vertex, layer by layer over full neighbourhoods: the
 * last layer's logits are turned into classes a batch at a time, never kept as a table.
 */
export function classifierPredictLayerwise(
  graph: LayerwiseGraph,
  numNodes: number,
  model: LayerwiseModel,
  o: LayerwiseOptions,
): Int32Array {
  checkVertices(graph, numNodes, 'predictLayerwise');
  return predictLayerwiseClasses(graph, model, o);
}

function checkVertices(graph: LayerwiseGraph, numNodes: number, what: string): void {
  if (graph.numVertices !== numNodes)
    throw new RangeError(`${what}: the graph has ${graph.numVertices} vertices, the model's inputs ${numNodes}`);
}

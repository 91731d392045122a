// The one shape every sampler returns (DGL's blocks, PyG's sampled Data): the input layer's vertex ids,
// then one layer per hop, input layer first, each holding its edges (a CSR block over its inputs) or a
// fixed fan-out (a dense [outputs, fanout] matrix of positions among its inputs). A layer's outputs are
// the first rows of its inputs, so a model runs `h = layer(h)` from the input rows to the seeds' rows.
import type * as tf from '@tensorflow/tfjs-core';

import type {CsrBlock} from './aggregate';

/** A layer's edges: row i aggregates block's row i, whose entries are positions among the layer's inputs. */
export interface BlockLayer {
  block: CsrBlock;
}

/** A layer of a host sampler: its edges, and the global ids of its outputs and inputs. */
export interface SubgraphLayer extends BlockLayer {
  /** Global ids of this layer's outputs: a prefix of `src`. */
  dst: Int32Array;
  /** Global ids of this layer's inputs. */
  src: Int32Array;
}

/** A layer with the same number of sampled neighbours for every output row. */
export interface FixedFanoutLayer {
  /** This layer's outputs are the first numDst of its inputs. */
  numDst: number;
  fanout: number;
  /** [numDst * fanout] positions among this layer's inputs: row i's sampled neighbours. */
  neighbors: tf.Tensor1D;
}

export type SampledLayer = BlockLayer | FixedFanoutLayer;

/** A layer's neighbour lists on the GPU: `fanout` a row, or a CSR block's int32 offsets [rows + 1] and entries. */
export type LayerLists = {fanout: number; neighbors: tf.Tensor1D} | {rowPtr: tf.Tensor1D; colIdx: tf.Tensor1D};

/** The lists' entries: a fixed fan-out's neighbors, or a block's colIdx. */
export function listEntries(lists: LayerLists): tf.Tensor1D {
  return 'fanout' in lists ? lists.neighbors : lists.colIdx;
}

/**
 * The input layer as a GPU sampler drew it: its rows' vertices (`dst`, the first of inputIds) and each row's
 * neighbours as vertex ids (`lists`), valid vertices of the graph. What a first layer that reads a table in place
 * needs, without the relabelling into inputIds and positions.
 */
export interface InputVertices {
  dst: tf.Tensor1D;
  lists: LayerLists;
}

/** What gives a batch its input rows: an embedding or feature table, NodeInputs, anything with read(ids). */
export interface RowSource {
  read(ids: Int32Array | tf.Tensor1D): tf.Tensor;
  /**
   * Whether read() may run on the GPU's side stream, beside the training queued before it: it reads GPU-visible
   * memory in place, with no collective (an Embedding outside 'distributed' and 'hierarchical' memory). A loader
   * over a graph on the GPU then gathers a batch's rows while the previous batch trains.
   */
  readonly readsAhead?: boolean;
}

export interface SampledSubgraph<L extends SampledLayer = SampledLayer> {
  /**
   * Global ids of the input layer's rows (whose features to read), the seeds first, in order: an
   * Int32Array where the graph is sampled on the host, an int32 tensor where it is sampled on the GPU.
   */
  inputIds: Int32Array | tf.Tensor1D;
  /** One layer per hop, input layer first; the last layer's outputs are the seeds. */
  layers: L[];
  /**
   * The input rows' features [inputIds, width] where the sampler's caller gathers them (a loader given
   * features); a model's forward reads these in place of its own feature table.
   */
  x?: tf.Tensor2D;
  /**
   * Where a loader was given features: the source x is read from. A loader's x is read when first asked for
   * (or ahead, beside the previous batch's training, once its loop has asked for a batch's x), so a model whose
   * first layer reads this table in place (GraphSAGE over a GPU table) reads it without x ever being gathered.
   */
  xSource?: RowSource;
  /**
   * Where a loader's GPU sampler leaves the last hop as drawn (until inputIds or the input layer's positions are
   * first asked for, which relabels it): the input layer's vertices, for a first layer that reads a table in place.
   */
  inputVertices?: InputVertices;
  dispose(): void;
}

/** Whether a layer is a fixed fan-out (else it holds a CSR block). */
export function isFixedLayer(l: unknown): l is FixedFanoutLayer {
  return l !== null && typeof l === 'object' && 'numDst' in l && 'fanout' in l && 'neighbors' in l;
}

// The block of a run of consecutive rows over their full neighbourhoods, the unit of layer-wise
// inference: its columns are the rows themselves first (in order), then every other vertex they
// reach, each once. On the host from the graph's rows; with the graph on the GPU (a DeviceCsr) built
// there: the rows' columns read in place, relabelled through the graph's vertex map in a few launches
// (no sort), and only the block's own arrays copied back for the products that need them.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {markValid} from '../backend/index_validation';
import {graphNative} from '../native/domains';
import {CsrBlock} from './aggregate';
import type {HostGraph} from './graph_store';
import {DeviceCsr} from './device_csr';
import {relabelOnGpu} from './native_sampling';
import {relabelThroughMarks} from './relabel';

/** A graph whose rows a pass reads: JavaScript CSR arrays, a graph in native memory, or either on the GPU. */
export type RowsGraph = HostGraph | DeviceCsr;

export interface RowBlock {
  /** Row r aggregates the columns of vertex first + r; with the graph's degrees (GCN's normalisation). */
  block: CsrBlock;
  /** The block's columns as vertex ids, the rows first: a host array, or a tensor on the GPU. */
  ids: Int32Array | tf.Tensor1D;
  dispose(): void;
}

const MAX_ENTRIES = 2 ** 31 - 1;

/** The block of rows [first, first + count) of `graph` (see the file's comment). */
export function rowBlock(graph: RowsGraph, first: number, count: number): RowBlock {
  if (!Number.isInteger(first) || !Number.isInteger(count) || first < 0 || count < 0 || first + count > graph.numVertices)
    throw new RangeError(`rowBlock: rows [${first}, ${first + count}) must lie in [0, ${graph.numVertices})`);
  if (graph.place === 'device') return onDevice(graph, first, count);
  const {offsets, columns} = graph.rows(first, count);
  // The rows first, so that they are the prefix of the block's columns.
  const ids = new Int32Array(count + columns.length);
  for (let i = 0; i < count; ++i) ids[i] = first + i;
  ids.set(columns, count);
  const {unique, inverse} = relabelThroughMarks(graph, '', graph.numVertices, ids);
  // With the graph's degrees: GCN normalises by them (the columns' whole rows are not in the block).
  const block = new CsrBlock(offsets, inverse.subarray(count), unique.length, graph.degrees(unique));
  return {block, ids: unique, dispose: () => block.dispose()};
}

function onDevice(dev: DeviceCsr, first: number, count: number): RowBlock {
  const b = tf.backend() as WholeMemoryBackend;
  const g = dev.graph;
  // The rows' first and last offsets, read on the host.
  const ends = g.offsets(first, count + 1);
  const base = Number(ends[0]),
    entries = Number(ends[count]) - base;
  if (entries + count > MAX_ENTRIES)
    throw new RangeError(
      `rowBlock: rows [${first}, ${first + count}) hold ${entries} entries; a block holds at most 2^31 - 1 with its rows: use fewer rows`,
    );
  const made: tf.Tensor[] = [];
  try {
    const rows = tf.range(first, first + count, 1, 'int32') as tf.Tensor1D;
    made.push(rows);
    const off = b.makeDeviceOutput([count + 1], 'int32');
    const offsets = tf.keep(tf.engine().makeTensorFromTensorInfo(off.info) as tf.Tensor1D);
    made.push(offsets);
    graphNative().csrSliceOffsets(dev.rowPtr, first, count, off.ptr, dev.wideOffsets);
    // The rows first, so that they are the prefix of the block's columns; the columns read in place.
    const relabelled = relabelOnGpu(b, dev, count ? b.devicePtr(rows) : 0, count, dev.colIdx + 4 * base, entries);
    // Kept: the caller may be inside a tidy scope and dispose them itself.
    const neighbors = tf.keep(relabelled.neighbors),
      ids = tf.keep(relabelled.values);
    made.push(neighbors, ids);
    const unique = ids.size;
    markValid(ids, dev.numVertices);
    // The graph's degrees of the columns only when a product asks (GCN's), while the block lives.
    const block = CsrBlock.onDevice(offsets.dataSync() as Int32Array, neighbors, unique, {
      degrees: () => g.degrees(ids.dataSync() as Int32Array),
      rowPtr: offsets,
    });
    rows.dispose();
    return {block, ids, dispose: () => (block.dispose(), ids.dispose())};
  } catch (e) {
    tf.dispose(made);
    throw e;
  }
}

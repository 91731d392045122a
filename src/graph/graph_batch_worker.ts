// A GraphLoader's worker thread: it holds the loader's graphs (packed in shared columns, given once) and makes the
// arrays of each batch asked for (batchArrays, the rows built in script), sent back with their buffers moved, not
// copied. The loader makes the batch's blocks from them on its own thread.
import {parentPort, workerData} from 'worker_threads';

import {batchArrays, buffersOf, graphsFromColumns, PackedGraphs} from './batch_arrays';
import {csrFromEdges} from './csr_from_edges';

const packed = workerData as PackedGraphs;
const graphs = graphsFromColumns(packed, (g, k, n) => `graph ${g}: edge ${k} leaves its ${n} vertices`);

parentPort!.on('message', (m: {id: number; indices: Int32Array; symmetric: boolean}) => {
  try {
    const a = batchArrays(
      Array.from(m.indices, (i) => graphs[i]),
      m.symmetric,
      csrFromEdges,
    );
    parentPort!.postMessage({id: m.id, arrays: a}, buffersOf(a));
  } catch (e) {
    parentPort!.postMessage({id: m.id, error: e instanceof Error ? e.message : String(e)});
  }
});

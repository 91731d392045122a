// tf.sparse.sparseSegmentSum / sparseSegmentMean: rows of data picked by
// `indices`, summed (or averaged) into the sorted segments `segmentIds`,
// e.g. a mean over each vertex's neighbour list. The ids are checked on the
// host in tfjs-backend-cpu's order and with its messages (the output's size
// is the last id + 1, so they are read there anyway); the rows are gathered
// and summed where the data lives.
import {backend_util, KernelConfig, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, nativeRunner, nd} from './kernel_utils';
import {BinaryOp} from './op_codes';

// tfjs-backend-cpu's sparseSegmentReductionImpl walk, without the sums:
// throws what it throws, where it throws it. Returns the output rows and, per
// output row, the rows summed into it.
function checkSegments(
  indices: ArrayLike<number>,
  segmentIds: ArrayLike<number>,
  dataRows: number,
): {outputRows: number; counts: number[]} {
  const n = indices.length;
  const outputRows = n > 0 ? segmentIds[n - 1] + 1 : 0;
  if (outputRows < 0) throw new Error(backend_util.getSparseSegmentReductionNegativeSegmentIdsErrorMessage());
  const counts = new Array<number>(Math.max(outputRows, 0)).fill(0);
  if (n === 0) return {outputRows, counts};
  if (outputRows <= 0) throw new Error(backend_util.getSparseSegmentReductionNegativeSegmentIdsErrorMessage());
  let start = 0,
    end = 1,
    outIndex = segmentIds[0];
  for (;;) {
    let nextIndex = 0;
    if (end < n) {
      nextIndex = segmentIds[end];
      if (outIndex === nextIndex) {
        ++end;
        continue;
      }
      if (outIndex >= nextIndex) throw new Error(backend_util.getSparseSegmentReductionNonIncreasingSegmentIdsErrorMessage());
    }
    if (outIndex < 0 || outIndex >= outputRows) {
      throw new Error(backend_util.getSparseSegmentReductionSegmentIdOutOfRangeErrorMessage(outIndex, outputRows));
    }
    for (let i = start; i < end; ++i) {
      if (indices[i] < 0 || indices[i] >= dataRows) {
        throw new Error(backend_util.getSparseSegmentReductionIndicesOutOfRangeErrorMessage(i, indices[i], dataRows));
      }
    }
    counts[outIndex] = end - start;
    start = end;
    ++end;
    outIndex = nextIndex;
    if (end > n) break;
  }
  return {outputRows, counts};
}

export function sparseSegmentKernel(kernelName: string, mean: boolean): KernelConfig {
  return {
    kernelName,
    backendName: 'wholememory',
    kernelFunc: (args) => {
      const backend = backendOf(args);
      const {data, indices, segmentIds} = args.inputs as {data: TensorInfo; indices: TensorInfo; segmentIds: TensorInfo};
      const runner = nativeRunner(backend, [data], ['float32']);
      // Shape errors (and int32 data, whose mean truncates) are tfjs-backend-cpu's to report.
      if (
        runner === null ||
        data.shape.length < 1 ||
        indices.shape.length !== 1 ||
        segmentIds.shape.length !== 1 ||
        indices.shape[0] !== segmentIds.shape[0] ||
        indices.dtype !== 'int32' ||
        segmentIds.dtype !== 'int32'
      ) {
        return runOnCpu(kernelName, args);
      }
      const dataRows = data.shape[0];
      const cols = dataRows > 0 ? util.sizeFromShape(data.shape) / dataRows : util.sizeFromShape(data.shape.slice(1));
      const {outputRows, counts} = checkSegments(backend.hostArray(indices), backend.hostArray(segmentIds), dataRows);
      const n = indices.shape[0];
      const {info, buf} = runner.output([outputRows, ...data.shape.slice(1)], 'float32');
      if (outputRows * cols === 0) return info;
      runner.native.fill(nd('float32'), buf, outputRows * cols, 0);
      if (n === 0) return info;
      const {info: rows, buf: rowsBuf} = runner.output([n, cols], 'float32');
      try {
        runner.gather('float32', runner.input(data), runner.input(indices), rowsBuf, 1, dataRows, cols, n, 1, false);
        runner.segmentSum(nd('float32'), rowsBuf, runner.input(segmentIds), buf, n, cols, outputRows);
      } finally {
        backend.disposeIntermediateTensorInfo(rows);
      }
      if (!mean) return info;
      // Empty segments stay 0 (divided by 1).
      const divisor = backend.makeTensorInfo(
        [outputRows, 1],
        'float32',
        Float32Array.from(counts, (c) => Math.max(c, 1)),
      );
      const {info: averaged, buf: avgBuf} = runner.output(info.shape, 'float32');
      try {
        runner.binary(
          BinaryOp.Div,
          nd('float32'),
          nd('float32'),
          buf,
          runner.input(divisor),
          avgBuf,
          [outputRows, cols],
          [cols, 1],
          [1, 0],
        );
      } finally {
        backend.disposeIntermediateTensorInfo(divisor);
        backend.disposeIntermediateTensorInfo(info);
      }
      return averaged;
    },
  };
}

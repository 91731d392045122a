// tf.bincount / tf.denseBincount (vertex degrees, label histograms): each
// value of x adds its weight (or 1) to its bin, per row for a 2-D x, as one
// segment sum where the data lives. Values past `size` are dropped; a
// negative one is an error, as in tfjs-backend-cpu (found with one min
// reduction, a single number read back).
import {DataType, TensorInfo, util} from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {KernelRunner} from '../backend/runner';
import {nd} from './kernel_utils';
import {BinaryOp, ReduceOp} from './op_codes';

function minimum(backend: WholeMemoryBackend, runner: KernelRunner, x: TensorInfo): number {
  const {info, buf} = runner.output([], 'int32');
  try {
    runner.native.reduce(ReduceOp.Min, nd('int32'), nd('int32'), runner.input(x), buf, 1, util.sizeFromShape(x.shape));
    return (backend.readSync(info.dataId) as Int32Array)[0];
  } finally {
    backend.disposeIntermediateTensorInfo(info);
  }
}

/**
 * Bins of x ([n] or [rows, n], int32) over [0, size): [size] or [rows, size] of the weights' dtype.
 * With `binary`, a bin holds 1 when any value fell in it.
 */
export function binCounts(
  backend: WholeMemoryBackend,
  runner: KernelRunner,
  x: TensorInfo,
  weights: TensorInfo,
  size: number,
  binary: boolean,
): TensorInfo {
  const dtype = weights.dtype as DataType;
  const n = util.sizeFromShape(x.shape);
  const rows = x.shape.length === 2 ? x.shape[0] : 1;
  const outShape = x.shape.length === 2 ? [rows, size] : [size];
  const total = rows * size;
  if (n > 0 && minimum(backend, runner, x) < 0) throw new Error('Input x must be non-negative!');
  const {info, buf} = runner.output(outShape, dtype);
  if (total === 0) return info;
  runner.native.fill(nd(dtype), buf, total, 0);
  if (n === 0) return info;
  const temps: TensorInfo[] = [];
  const scratch = (shape: number[], dt: DataType) => {
    const o = runner.output(shape, dt);
    temps.push(o.info);
    return o.buf;
  };
  try {
    let ids = runner.input(x);
    if (x.shape.length === 2) {
      // Row r's bins start at r * size; values past size go to -1 (dropped), not into the next row.
      const cols = n / rows;
      const offsets = backend.makeTensorInfo(
        [rows, 1],
        'int32',
        Int32Array.from({length: rows}, (_, r) => r * size),
      );
      const limit = backend.makeTensorInfo([], 'int32', Int32Array.of(size));
      const dropped = backend.makeTensorInfo([], 'int32', Int32Array.of(-1));
      temps.push(offsets, limit, dropped);
      const inside = scratch([rows, cols], 'bool'),
        shifted = scratch([rows, cols], 'int32');
      ids = scratch([rows, cols], 'int32');
      runner.binary(BinaryOp.Less, nd('int32'), nd('bool'), runner.input(x), runner.input(limit), inside, [rows, cols], [cols, 1], [0, 0]);
      runner.binary(
        BinaryOp.Add,
        nd('int32'),
        nd('int32'),
        runner.input(x),
        runner.input(offsets),
        shifted,
        [rows, cols],
        [cols, 1],
        [1, 0],
      );
      runner.native.select(nd('int32'), inside, shifted, runner.input(dropped), ids, [rows, cols], [cols, 1], [cols, 1], [0, 0]);
    }
    let values = util.sizeFromShape(weights.shape) > 0 && !binary ? runner.input(weights) : null;
    if (values === null) {
      values = scratch([n], dtype);
      runner.native.fill(nd(dtype), values, n, 1);
    }
    runner.segmentSum(nd(dtype), values, ids, buf, n, 1, total);
    if (binary) {
      const one = backend.makeTensorInfo([], dtype, dtype === 'int32' ? Int32Array.of(1) : Float32Array.of(1));
      temps.push(one);
      const {info: capped, buf: cappedBuf} = runner.output(outShape, dtype);
      runner.binary(BinaryOp.Minimum, nd(dtype), nd(dtype), buf, runner.input(one), cappedBuf, [total], [1], [0]);
      temps.push(info);
      return capped;
    }
    return info;
  } finally {
    temps.forEach((t) => backend.disposeIntermediateTensorInfo(t));
  }
}

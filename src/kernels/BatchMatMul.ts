import {BatchMatMul, BatchMatMulAttrs, broadcast_util, KernelConfig, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, nativeRunner} from '../kernel_utils/kernel_utils';

export const batchMatMulConfig: KernelConfig = {
  kernelName: BatchMatMul,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {a, b} = args.inputs as {a: TensorInfo; b: TensorInfo};
    const {transposeA, transposeB} = args.attrs as unknown as BatchMatMulAttrs;
    const runner = nativeRunner(backend, [a, b], ['float32']);
    if (runner === null || a.shape.length < 2 || b.shape.length < 2) {
      return runOnCpu(BatchMatMul, args);
    }
    const ra = a.shape.length,
      rb = b.shape.length;
    const k = transposeA ? a.shape[ra - 2] : a.shape[ra - 1];
    const kB = transposeB ? b.shape[rb - 1] : b.shape[rb - 2];
    const m = transposeA ? a.shape[ra - 1] : a.shape[ra - 2];
    const n = transposeB ? b.shape[rb - 2] : b.shape[rb - 1];
    util.assert(
      k === kB,
      () =>
        `Error in matMul: inner shapes (${k}) and (${kB}) of Tensors with shapes ${a.shape} and ` +
        `${b.shape} and transposeA=${transposeA} and transposeB=${transposeB} must match.`,
    );
    const outer = broadcast_util.assertAndGetBroadcastShape(a.shape.slice(0, -2), b.shape.slice(0, -2));
    const batchA = util.sizeFromShape(a.shape.slice(0, -2));
    const batchB = util.sizeFromShape(b.shape.slice(0, -2));
    const batch = Math.max(batchA, batchB);
    // One side may be a single matrix reused across the batch; other
    // broadcast patterns go to the CPU path.
    if ((batchA !== batch && batchA !== 1) || (batchB !== batch && batchB !== 1) || util.sizeFromShape(outer) !== batch) {
      return runOnCpu(BatchMatMul, args);
    }
    const {info, buf} = runner.output([...outer, m, n], 'float32');
    if (batch * m * n === 0) return info;
    runner.native.batchMatMul(
      runner.input(a),
      runner.input(b),
      buf,
      batch,
      m,
      n,
      k,
      transposeA,
      transposeB,
      batchA === 1 ? 0 : m * k,
      batchB === 1 ? 0 : k * n,
    );
    return info;
  },
};

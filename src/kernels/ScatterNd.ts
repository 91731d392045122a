import {backend_util, KernelConfig, ScatterNd, ScatterNdAttrs, Tensor, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {hostIndices, withDeviceIndexCheck} from '../kernel_utils/index_check';
import {backendOf, nativeRunner, nd} from '../kernel_utils/kernel_utils';

export const scatterNdConfig: KernelConfig = {
  kernelName: ScatterNd,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {indices, updates} = args.inputs as {indices: TensorInfo; updates: TensorInfo};
    const {shape} = args.attrs as unknown as ScatterNdAttrs;
    const runner = nativeRunner(backend, [updates], ['float32', 'int32']);
    if (runner === null || indices.dtype !== 'int32') return runOnCpu(ScatterNd, args);
    const {sliceRank, numUpdates, sliceSize} = backend_util.calculateShapes(updates as Tensor, indices as Tensor, shape);
    const dims = shape.slice(0, sliceRank);
    const describe = (row: number, idx: ArrayLike<number>) =>
      `Invalid indices: [${Array.from({length: sliceRank}, (_, d) => idx[row * sliceRank + d])}] does not index into [${shape}]`;
    const host = hostIndices(backend, indices);
    if (host !== undefined) {
      for (let u = 0; u < numUpdates; ++u) {
        for (let d = 0; d < sliceRank; ++d) {
          const k = host[u * sliceRank + d];
          if (!(k >= 0 && k < dims[d])) throw new Error(describe(u, host));
        }
      }
    }
    if (runner.where === 'host') {
      // The addon checks every index again before it writes.
      const {info, buf} = runner.output(shape, updates.dtype);
      runner.native.fill(nd(updates.dtype), buf, util.sizeFromShape(shape), 0);
      if (numUpdates * sliceSize > 0) {
        runner.native.scatterNd(
          nd(updates.dtype),
          runner.input(indices),
          runner.input(updates),
          buf,
          numUpdates,
          sliceRank,
          sliceSize,
          dims,
          null,
        );
      }
      return info;
    }
    const {info, ptr} = backend.makeDeviceOutput(shape, updates.dtype);
    backend.native.fill(nd(updates.dtype), ptr, util.sizeFromShape(shape), 0);
    if (numUpdates * sliceSize === 0) return info;
    const launch = (flag: number) =>
      backend.native.scatterNd(
        nd(updates.dtype),
        backend.devicePtr(indices),
        backend.devicePtr(updates),
        ptr,
        numUpdates,
        sliceRank,
        sliceSize,
        dims,
        flag,
      );
    try {
      if (host !== undefined) {
        launch(0);
      } else {
        withDeviceIndexCheck(backend, launch, (row) => {
          backend.ensureHost(indices.dataId);
          return describe(row, backend.data.get(indices.dataId).values as Int32Array);
        });
      }
    } catch (e) {
      backend.disposeIntermediateTensorInfo(info);
      throw e;
    }
    return info;
  },
};

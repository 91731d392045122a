import {backend_util, GatherV2, GatherV2Attrs, KernelConfig, Tensor, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {hostIndices, withDeviceIndexCheck} from './index_check';
import {backendOf, nd, onGpu} from './kernel_utils';

const message = (index: number, axisDim: number) => `GatherV2: the index value ${index} is not in [0, ${axisDim - 1}]`;

export const gatherV2Config: KernelConfig = {
  kernelName: GatherV2,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {x, indices} = args.inputs as {x: TensorInfo; indices: TensorInfo};
    const {axis, batchDims} = args.attrs as unknown as GatherV2Attrs;
    if (!onGpu(backend, [x], ['float32', 'int32', 'bool']) || indices.dtype !== 'int32') {
      return runOnCpu(GatherV2, args);
    }
    const parsedAxis = util.parseAxisParam(axis, x.shape)[0];
    const axisDim = x.shape[parsedAxis];
    const host = hostIndices(backend, indices);
    if (host !== undefined) {
      for (let i = 0; i < host.length; ++i) {
        const v = host[i];
        util.assert(v >= 0 && v <= axisDim - 1, () => message(v, axisDim));
      }
    }
    const info = backend_util.segment_util.collectGatherOpShapeInfo(x as Tensor, indices as Tensor, parsedAxis, batchDims ?? 0);
    const numIndices = util.sizeFromShape(indices.shape) / Math.max(info.batchSize, 1);
    const out = backend.makeDeviceOutput(info.outputShape, x.dtype);
    if (util.sizeFromShape(info.outputShape) === 0) return out.info;
    const launch = (flag: number) => backend.native.gather(
        nd(x.dtype), backend.devicePtr(x), backend.devicePtr(indices), out.ptr, info.batchSize * info.outerSize,
        info.dimSize, info.sliceSize, numIndices, info.outerSize, flag);
    try {
      if (host !== undefined) {
        launch(0);
      } else {
        withDeviceIndexCheck(backend, launch, (pos) => {
          backend.ensureHost(indices.dataId);
          return message((backend.data.get(indices.dataId).values as Int32Array)[pos], axisDim);
        });
      }
    } catch (e) {
      backend.disposeIntermediateTensorInfo(out.info);
      throw e;
    }
    return out.info;
  },
};

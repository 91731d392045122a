import {backend_util, GatherV2, GatherV2Attrs, KernelConfig, Tensor, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {hostIndices} from './index_check';
import {backendOf, nativeRunner} from './kernel_utils';

const message = (index: number, axisDim: number) => `GatherV2: the index value ${index} is not in [0, ${axisDim - 1}]`;

export const gatherV2Config: KernelConfig = {
  kernelName: GatherV2,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {x, indices} = args.inputs as {x: TensorInfo; indices: TensorInfo};
    const {axis, batchDims} = args.attrs as unknown as GatherV2Attrs;
    const runner = nativeRunner(backend, [x], ['float32', 'int32', 'bool']);
    if (runner === null || indices.dtype !== 'int32') return runOnCpu(GatherV2, args);
    const parsedAxis = util.parseAxisParam(axis, x.shape)[0];
    const axisDim = x.shape[parsedAxis];
    const info = backend_util.segment_util.collectGatherOpShapeInfo(x as Tensor, indices as Tensor, parsedAxis, batchDims ?? 0);
    const numIndices = util.sizeFromShape(indices.shape) / Math.max(info.batchSize, 1);
    const out = runner.output(info.outputShape, x.dtype);
    if (util.sizeFromShape(info.outputShape) === 0) return out.info;
    // Host indices are checked here for free; device-only indices are checked
    // by the kernel, which never reads outside x.
    const host = runner.where === 'device' ? hostIndices(backend, indices) : undefined;
    if (host !== undefined) {
      for (let i = 0; i < host.length; ++i) util.assert(host[i] >= 0 && host[i] < axisDim, () => message(host[i], axisDim));
    }
    const bad = runner.gather(x.dtype, runner.input(x), runner.input(indices), out.buf, info.batchSize * info.outerSize,
                              info.dimSize, info.sliceSize, numIndices, info.outerSize, host === undefined);
    if (bad >= 0) {
      backend.disposeIntermediateTensorInfo(out.info);
      throw new Error(message(backend.hostArray(indices)[bad], axisDim));
    }
    return out.info;
  },
};

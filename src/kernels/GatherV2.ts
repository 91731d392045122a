import {backend_util, GatherV2, GatherV2Attrs, KernelConfig, Tensor, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {firstOutside, inheritValid, knownValid, markValid} from '../backend/index_validation';
import {hostIndices} from '../kernel_utils/index_check';
import {backendOf, nativeRunner} from '../kernel_utils/kernel_utils';

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
    if (util.sizeFromShape(info.outputShape) === 0) return runner.output(info.outputShape, x.dtype).info;
    // Indices are checked once per tensor and row count (tensors are immutable):
    // on the host when they are there (no device sync), else by the kernel,
    // which never reads outside x.
    let kernelChecks = !knownValid(indices, axisDim);
    const host = kernelChecks && runner.where === 'device' ? hostIndices(backend, indices) : undefined;
    if (host !== undefined) {
      const bad = firstOutside(host, axisDim);
      if (bad >= 0) throw new Error(message(host[bad], axisDim));
      kernelChecks = false;
    }
    const out = runner.output(info.outputShape, x.dtype); // after the host check: a rejected call leaves nothing behind
    const bad = runner.gather(
      x.dtype,
      runner.input(x),
      runner.input(indices),
      out.buf,
      info.batchSize * info.outerSize,
      info.dimSize,
      info.sliceSize,
      numIndices,
      info.outerSize,
      kernelChecks,
    );
    if (bad >= 0) {
      backend.disposeIntermediateTensorInfo(out.info);
      throw new Error(message(backend.hostArray(indices)[bad], axisDim));
    }
    markValid(indices, axisDim);
    inheritValid(out.info, [x]);
    return out.info;
  },
};

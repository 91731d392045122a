import {KernelConfig, TensorInfo, UnsortedSegmentSum, UnsortedSegmentSumAttrs, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, nd, onGpu} from './kernel_utils';

export const unsortedSegmentSumConfig: KernelConfig = {
  kernelName: UnsortedSegmentSum,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {x, segmentIds} = args.inputs as {x: TensorInfo; segmentIds: TensorInfo};
    const {numSegments} = args.attrs as unknown as UnsortedSegmentSumAttrs;
    const idRank = segmentIds.shape.length;
    // int32 input gives float32 output on tfjs-backend-cpu; only float32 is native.
    if (!onGpu(backend, [x], ['float32']) || segmentIds.dtype !== 'int32' ||
        !segmentIds.shape.every((d, i) => d === x.shape[i])) {
      return runOnCpu(UnsortedSegmentSum, args);
    }
    const rows = util.sizeFromShape(segmentIds.shape);
    const innerShape = x.shape.slice(idRank);
    const inner = util.sizeFromShape(innerShape);
    const {info, ptr} = backend.makeDeviceOutput([numSegments, ...innerShape], x.dtype);
    backend.native.fill(nd(x.dtype), ptr, numSegments * inner, 0);
    if (rows * inner > 0) {
      backend.native.unsortedSegmentSum(nd(x.dtype), backend.devicePtr(x), backend.devicePtr(segmentIds), ptr, rows,
                                        inner, numSegments);
    }
    return info;
  },
};

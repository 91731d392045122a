import {KernelConfig, TensorInfo, UnsortedSegmentSum, UnsortedSegmentSumAttrs, util} from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {runOnCpu} from '../backend/fallback';
import {backendOf, nd} from './kernel_utils';

// tfjs-backend-cpu builds this from one masked sum per segment (time grows
// with segments x rows), which makes embedding gradients crawl; one pass of
// scatter-adds gives the same float32 result.
function onHost(backend: WholeMemoryBackend, x: TensorInfo, ids: TensorInfo, numSegments: number, inner: number): TensorInfo {
  backend.ensureHost(x.dataId);
  backend.ensureHost(ids.dataId);
  const xv = backend.data.get(x.dataId).values as ArrayLike<number>;
  const sv = backend.data.get(ids.dataId).values as ArrayLike<number>;
  const out = new Float32Array(numSegments * inner);
  for (let r = 0; r < sv.length; ++r) {
    const s = sv[r];
    if (s < 0 || s >= numSegments) continue;
    const o = s * inner, i = r * inner;
    for (let j = 0; j < inner; ++j) out[o + j] += xv[i + j];
  }
  return backend.makeTensorInfo([numSegments, ...x.shape.slice(ids.shape.length)], 'float32', out);
}

export const unsortedSegmentSumConfig: KernelConfig = {
  kernelName: UnsortedSegmentSum,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {x, segmentIds} = args.inputs as {x: TensorInfo; segmentIds: TensorInfo};
    const {numSegments} = args.attrs as unknown as UnsortedSegmentSumAttrs;
    const idRank = segmentIds.shape.length;
    const supported = segmentIds.dtype === 'int32' && (x.dtype === 'float32' || x.dtype === 'int32') &&
        segmentIds.shape.every((d, i) => d === x.shape[i]);
    if (!supported) return runOnCpu(UnsortedSegmentSum, args);
    const rows = util.sizeFromShape(segmentIds.shape);
    const innerShape = x.shape.slice(idRank);
    const inner = util.sizeFromShape(innerShape);
    // int32 input gives float32 output on tfjs-backend-cpu; on the GPU only
    // float32 is native.
    if (!backend.gpu || x.dtype !== 'float32') return onHost(backend, x, segmentIds, numSegments, inner);
    const {info, ptr} = backend.makeDeviceOutput([numSegments, ...innerShape], x.dtype);
    backend.native.fill(nd(x.dtype), ptr, numSegments * inner, 0);
    if (rows * inner > 0) {
      backend.native.unsortedSegmentSum(nd(x.dtype), backend.devicePtr(x), backend.devicePtr(segmentIds), ptr, rows,
                                        inner, numSegments);
    }
    return info;
  },
};

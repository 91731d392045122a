import {KernelConfig, TensorInfo, UnsortedSegmentSum, UnsortedSegmentSumAttrs, util} from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {runOnCpu} from '../backend/fallback';
import {backendOf, nativeRunner, nd} from '../kernel_utils/kernel_utils';

// tfjs-backend-cpu builds this from one masked sum per segment (time grows
// with segments x rows), which makes embedding gradients crawl; one pass of
// scatter-adds gives the same float32 result (CUDA, or the C++ core with
// each thread owning a range of segments).
function onHost(backend: WholeMemoryBackend, x: TensorInfo, ids: TensorInfo, numSegments: number, inner: number): TensorInfo {
  backend.ensureHost(x.dataId);
  backend.ensureHost(ids.dataId);
  const xv = backend.data.get(x.dataId).values as ArrayLike<number>;
  const sv = backend.data.get(ids.dataId).values as ArrayLike<number>;
  const out = new Float32Array(numSegments * inner);
  for (let r = 0; r < sv.length; ++r) {
    const s = sv[r];
    if (s < 0 || s >= numSegments) continue;
    const o = s * inner,
      i = r * inner;
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
    const supported =
      segmentIds.dtype === 'int32' && (x.dtype === 'float32' || x.dtype === 'int32') && segmentIds.shape.every((d, i) => d === x.shape[i]);
    if (!supported) return runOnCpu(UnsortedSegmentSum, args);
    const rows = util.sizeFromShape(segmentIds.shape);
    const innerShape = x.shape.slice(idRank);
    const inner = util.sizeFromShape(innerShape);
    // int32 input gives float32 output on tfjs-backend-cpu: summed here, on the host.
    const runner = nativeRunner(backend, [x], ['float32']);
    if (runner === null) return onHost(backend, x, segmentIds, numSegments, inner);
    const {info, buf} = runner.output([numSegments, ...innerShape], 'float32');
    runner.native.fill(nd('float32'), buf, numSegments * inner, 0);
    runner.segmentSum(nd('float32'), runner.input(x), runner.input(segmentIds), buf, rows, inner, numSegments);
    return info;
  },
};

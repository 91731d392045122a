import {backend_util, GatherNd, KernelConfig, Tensor, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {gatherV2Config} from './GatherV2';
import {backendOf, callKernel, nativeRunner, reshapeView} from '../kernel_utils/kernel_utils';
import {multiplyConfig} from './Multiply';
import {sumConfig} from './Sum';

// tf.gatherND: each row of K indices flattened to one row number of params
// viewed as [rows, slice] (native multiply and sum), then one native row
// gather. As tfjs-backend-cpu, the flattened row is what must be in range.
export const gatherNdConfig: KernelConfig = {
  kernelName: GatherNd,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {params, indices} = args.inputs as {params: TensorInfo; indices: TensorInfo};
    const runner = nativeRunner(backend, [params], ['float32', 'int32', 'bool']);
    const k = indices.shape[indices.shape.length - 1];
    if (runner === null || indices.dtype !== 'int32' || !(k > 0)) return runOnCpu(GatherNd, args);
    const [resultShape, numSlices, sliceSize, strides] = backend_util.prepareAndValidate(params as Tensor, indices as Tensor);
    const rows = params.shape.slice(0, k).reduce((a, b) => a * b, 1);
    const temps: TensorInfo[] = [];
    const keep = (t: TensorInfo) => (temps.push(t), t);
    try {
      const weights = keep(backend.makeTensorInfo([k], 'int32', Int32Array.from(strides)));
      const scaled = keep(
        callKernel(multiplyConfig, {inputs: {a: keep(reshapeView(backend, indices, [numSlices, k])), b: weights}, backend, attrs: {}}),
      );
      const flat = keep(callKernel(sumConfig, {inputs: {x: scaled}, backend, attrs: {axis: [1], keepDims: false}}));
      const table = keep(reshapeView(backend, params, [rows, sliceSize]));
      let gathered: TensorInfo;
      try {
        gathered = keep(callKernel(gatherV2Config, {inputs: {x: table, indices: flat}, backend, attrs: {axis: 0, batchDims: 0}}));
      } catch (e) {
        throw new Error(
          `GatherNd: indices do not index into params of shape [${params.shape}]: a row of ${k} indices flattens to ` +
            `${(e as Error).message.replace(/^GatherV2: the index value /, '')}`,
        );
      }
      return reshapeView(backend, gathered, resultShape);
    } finally {
      temps.forEach((t) => backend.disposeIntermediateTensorInfo(t));
    }
  },
};

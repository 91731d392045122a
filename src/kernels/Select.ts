import {backend_util, KernelConfig, Select, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, broadcastStrides, contiguousStrides, nativeRunner, nd, STORABLE} from '../kernel_utils/kernel_utils';

export const selectConfig: KernelConfig = {
  kernelName: Select,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {condition, t, e} = args.inputs as {condition: TensorInfo; t: TensorInfo; e: TensorInfo};
    const runner = nativeRunner(backend, [t, e], STORABLE);
    if (runner === null || condition.dtype !== 'bool' || t.dtype !== e.dtype) {
      return runOnCpu(Select, args);
    }
    const outShape = backend_util.assertAndGetBroadcastShape(t.shape, e.shape);
    // tfjs allows a rank-1 condition choosing whole rows of t/e.
    let condStrides: number[];
    if (condition.shape.length === 1 && outShape.length > 1) {
      if (condition.shape[0] !== outShape[0]) return runOnCpu(Select, args);
      condStrides = outShape.map((_, i) => (i === 0 ? 1 : 0));
    } else if (condition.shape.length === outShape.length && condition.shape.every((d, i) => d === outShape[i])) {
      condStrides = contiguousStrides(outShape);
    } else {
      return runOnCpu(Select, args);
    }
    const {info, buf} = runner.output(outShape, t.dtype);
    runner.native.select(
      nd(t.dtype),
      runner.input(condition),
      runner.input(t),
      runner.input(e),
      buf,
      outShape,
      condStrides,
      broadcastStrides(t.shape, outShape),
      broadcastStrides(e.shape, outShape),
    );
    return info;
  },
};

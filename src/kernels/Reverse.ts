import {KernelConfig, Reverse, ReverseAttrs, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, contiguousStrides, copyView, nativeRunner, STORABLE} from '../kernel_utils/kernel_utils';

// tf.reverse: one native strided copy reading the reversed axes backwards.
export const reverseConfig: KernelConfig = {
  kernelName: Reverse,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    const {dims} = args.attrs as unknown as ReverseAttrs;
    const runner = nativeRunner(backend, [x], STORABLE);
    if (runner === null) return runOnCpu(Reverse, args);
    const axes = new Set(util.parseAxisParam(dims, x.shape));
    const strides = contiguousStrides(x.shape);
    const offset = x.shape.reduce((acc, d, k) => acc + (axes.has(k) ? (d - 1) * strides[k] : 0), 0);
    return copyView(
      runner,
      x,
      offset,
      strides.map((s, k) => (axes.has(k) ? -s : s)),
      x.shape.slice(),
    );
  },
};

import {backend_util, KernelConfig, SplitV, SplitVAttrs, TensorInfo, util} from '@tensorflow/tfjs-core';

import {backendOf, callKernel} from '../kernel_utils/kernel_utils';
import {sliceConfig} from './Slice';

// tf.split: one native slice per part.
export const splitVConfig: KernelConfig = {
  kernelName: SplitV,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    const {numOrSizeSplits, axis} = args.attrs as unknown as SplitVAttrs;
    const $axis = util.parseAxisParam(axis, x.shape)[0];
    const sizes = backend_util.prepareSplitSize(x, numOrSizeSplits, $axis);
    const begin = x.shape.map(() => 0);
    const parts: TensorInfo[] = [];
    try {
      for (const s of sizes) {
        const size = x.shape.slice();
        size[$axis] = s;
        parts.push(callKernel(sliceConfig, {inputs: {x}, backend, attrs: {begin: begin.slice(), size}}));
        begin[$axis] += s;
      }
    } catch (e) {
      parts.forEach((p) => backend.disposeIntermediateTensorInfo(p));
      throw e;
    }
    return parts;
  },
};

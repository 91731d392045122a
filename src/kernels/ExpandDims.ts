import {ExpandDims, ExpandDimsAttrs, KernelConfig, TensorInfo, util} from '@tensorflow/tfjs-core';

import {backendOf, reshapeView} from '../kernel_utils/kernel_utils';

// A view with one more axis of size 1: shares the data wherever it lives.
export const expandDimsConfig: KernelConfig = {
  kernelName: ExpandDims,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const input = args.inputs.input as TensorInfo;
    const {dim} = args.attrs as unknown as ExpandDimsAttrs;
    const rank = input.shape.length;
    util.assert(Number.isInteger(dim) && dim >= -(rank + 1) && dim <= rank, () => `Axis must be in the interval [${-(rank + 1)}, ${rank}]`);
    const shape = input.shape.slice();
    shape.splice(dim < 0 ? rank + dim + 1 : dim, 0, 1);
    return reshapeView(backendOf(args), input, shape);
  },
};

import {KernelConfig, Reshape, ReshapeAttrs, TensorInfo, util} from '@tensorflow/tfjs-core';

import {backendOf, reshapeView} from '../kernel_utils/kernel_utils';

// A view: shares the data wherever it lives, never copies or moves it.
export const reshapeConfig: KernelConfig = {
  kernelName: Reshape,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const x = args.inputs.x as TensorInfo;
    const {shape} = args.attrs as unknown as ReshapeAttrs;
    const size = util.sizeFromShape(x.shape);
    const $shape = util.inferFromImplicitShape(shape, size);
    const $size = util.sizeFromShape($shape);
    util.assert(
      size === $size,
      () =>
        `The new shape (${$shape}) has ${$size} elements and the old ` +
        `shape (${x.shape}) has ${size} elements. The new shape and old shape must have the same number of elements.`,
    );
    return reshapeView(backendOf(args), x, $shape);
  },
};

import {Identity, KernelConfig, TensorInfo} from '@tensorflow/tfjs-core';

import {backendOf, reshapeView} from '../kernel_utils/kernel_utils';

// Shares the data wherever it lives.
export const identityConfig: KernelConfig = {
  kernelName: Identity,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const x = args.inputs.x as TensorInfo;
    return reshapeView(backendOf(args), x, x.shape);
  },
};

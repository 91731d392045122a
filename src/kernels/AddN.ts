import {AddN, KernelConfig, TensorInfo} from '@tensorflow/tfjs-core';

import {addConfig} from './Add';
import {identityConfig} from './Identity';
import {backendOf, callKernel} from '../kernel_utils/kernel_utils';

// tf.addN: native adds, left to right (tfjs-backend-cpu's order, so float sums round alike).
export const addNConfig: KernelConfig = {
  kernelName: AddN,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const tensors = args.inputs as unknown as TensorInfo[];
    if (tensors.length === 1) return callKernel(identityConfig, {inputs: {x: tensors[0]}, backend, attrs: {}});
    let sum = callKernel(addConfig, {inputs: {a: tensors[0], b: tensors[1]}, backend, attrs: {}});
    for (const t of tensors.slice(2)) {
      const next = callKernel(addConfig, {inputs: {a: sum, b: t}, backend, attrs: {}});
      backend.disposeIntermediateTensorInfo(sum);
      sum = next;
    }
    return sum;
  },
};

import {KernelConfig, TensorInfo, Transpose, TransposeAttrs} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, nativeRunner, reshapeView, STORABLE, transposeWith} from './kernel_utils';

export const transposeConfig: KernelConfig = {
  kernelName: Transpose,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    const {perm} = args.attrs as unknown as TransposeAttrs;
    const runner = nativeRunner(backend, [x], STORABLE);
    if (runner === null) return runOnCpu(Transpose, args);
    // tfjs' gradients transpose by the identity (gather's, along axis 0): no copy.
    if (perm.every((p, i) => p === i)) return reshapeView(backend, x, x.shape);
    return transposeWith(runner, x, perm);
  },
};

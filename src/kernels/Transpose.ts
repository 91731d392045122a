import {KernelConfig, TensorInfo, Transpose, TransposeAttrs} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, nativeRunner, reshapeView, STORABLE, transposeWith} from '../kernel_utils/kernel_utils';

// tfjs-core checks perm's length and range but not that it is a permutation;
// [0, 0] would make the copy read past its input.
function checkPermutation(perm: number[], rank: number): void {
  const seen = new Array<boolean>(rank).fill(false);
  const ok = perm.length === rank && perm.every((p) => Number.isInteger(p) && p >= 0 && p < rank && !seen[p] && (seen[p] = true));
  if (!ok) throw new Error(`transpose: perm [${perm}] is not a permutation of the ${rank} axes [${[...Array(rank).keys()]}]`);
}

export const transposeConfig: KernelConfig = {
  kernelName: Transpose,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    const {perm} = args.attrs as unknown as TransposeAttrs;
    checkPermutation(perm, x.shape.length);
    const runner = nativeRunner(backend, [x], STORABLE);
    if (runner === null) return runOnCpu(Transpose, args);
    // tfjs' gradients transpose by the identity (gather's, along axis 0): no copy.
    if (perm.every((p, i) => p === i)) return reshapeView(backend, x, x.shape);
    return transposeWith(runner, x, perm);
  },
};

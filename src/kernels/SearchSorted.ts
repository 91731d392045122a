import {KernelConfig, SearchSorted, SearchSortedAttrs, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, nativeRunner, nd, NUMERIC} from '../kernel_utils/kernel_utils';

// tf.searchSorted: sortedSequence [batch, seqLen] and values [batch, numValues] (the op makes both 2-D).
export const searchSortedConfig: KernelConfig = {
  kernelName: SearchSorted,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const sorted = args.inputs.sortedSequence as TensorInfo;
    const values = args.inputs.values as TensorInfo;
    const {side} = args.attrs as unknown as SearchSortedAttrs;
    const runner = nativeRunner(backend, [sorted, values], NUMERIC);
    if (runner === null || sorted.dtype !== values.dtype || sorted.shape.length !== 2 || values.shape.length !== 2) {
      return runOnCpu(SearchSorted, args);
    }
    const [batch, seqLen] = sorted.shape;
    const numValues = values.shape[1];
    const out = runner.output(values.shape, 'int32');
    if (batch * numValues > 0) {
      runner.native.searchSorted(
        nd(values.dtype),
        runner.input(sorted),
        runner.input(values),
        out.buf,
        batch,
        seqLen,
        numValues,
        side === 'right',
      );
    }
    return out.info;
  },
};

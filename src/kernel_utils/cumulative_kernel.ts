// Builds Cumsum / Cumprod: a running sum or product along one axis, read as
// the middle axis of an [outer, n, inner] view (no transpose), natively for
// float32 and int32; bool (summed as int32 by tfjs) goes to tfjs-backend-cpu.
import {CumsumAttrs, KernelConfig, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, nativeRunner, NUMERIC, nd} from './kernel_utils';

export function cumulativeKernel(kernelName: string, product: boolean): KernelConfig {
  return {
    kernelName,
    backendName: 'wholememory',
    kernelFunc: (args) => {
      const backend = backendOf(args);
      const x = args.inputs.x as TensorInfo;
      const {axis, exclusive, reverse} = args.attrs as unknown as CumsumAttrs;
      const runner = nativeRunner(backend, [x], NUMERIC);
      if (runner === null) return runOnCpu(kernelName, args);
      const rank = x.shape.length;
      util.assert(
        Number.isInteger(axis) && axis >= -rank && axis < Math.max(rank, 1),
        () => `${kernelName.toLowerCase()}: axis must be an integer in [${-rank}, ${rank}), got ${axis}`,
      );
      const a = axis < 0 ? axis + rank : axis;
      const {info, buf} = runner.output(x.shape.slice(), x.dtype);
      const size = util.sizeFromShape(x.shape);
      if (size === 0) return info;
      const n = rank === 0 ? 1 : x.shape[a];
      const outer = util.sizeFromShape(x.shape.slice(0, a));
      runner.native.cumulative(product, nd(x.dtype), runner.input(x), buf, outer, n, size / (outer * n), exclusive, reverse);
      return info;
    },
  };
}

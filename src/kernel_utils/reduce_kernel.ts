// Builds the config of a reduction (Sum, Max, ArgMax, ...): the reduced axes
// are transposed to the end on the device, then each row is reduced.
import {backend_util, DataType, KernelConfig, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, nativeRunner, nd, reshapeView, transposeWith} from './kernel_utils';
import {ReduceOp} from './op_codes';

export interface ReduceOptions {
  dtypes: readonly DataType[];
  outDtype: (x: DataType) => DataType;
  /** Arg reductions take one axis and have no keepDims. */
  arg?: boolean;
  /** Max/Min/Arg* have no identity: empty rows go to the CPU path. */
  needsNonEmpty?: boolean;
}

export function reduceKernel(kernelName: string, op: ReduceOp, options: ReduceOptions): KernelConfig {
  return {
    kernelName,
    backendName: 'wholememory',
    kernelFunc: (args) => {
      const backend = backendOf(args);
      const x = args.inputs.x as TensorInfo;
      const attrs = args.attrs ?? {};
      const runner = nativeRunner(backend, [x], options.dtypes);
      if (runner === null) return runOnCpu(kernelName, args);
      // Max names its axes reductionIndices; the others call them axis.
      const axes = util.parseAxisParam((attrs.axis ?? attrs.reductionIndices) as number | number[], x.shape);
      const keepDims = !options.arg && Boolean(attrs.keepDims);
      const [outShape, reduceShape] = backend_util.computeOutAndReduceShapes(x.shape, axes);
      const inner = util.sizeFromShape(reduceShape);
      if (options.needsNonEmpty && inner === 0) return runOnCpu(kernelName, args);
      const perm = backend_util.getAxesPermutation(axes, x.shape.length);
      const outDtype = options.outDtype(x.dtype);
      const {info, buf} = runner.output(outShape, outDtype);
      const sorted = [...axes].sort((a, b) => a - b);
      const oneBlock = sorted.every((a, i) => a === sorted[0] + i);
      const before = sorted.length > 0 ? util.sizeFromShape(x.shape.slice(0, sorted[0])) : util.sizeFromShape(outShape);
      const after = sorted.length > 0 ? util.sizeFromShape(x.shape.slice(sorted[sorted.length - 1] + 1)) : 1;
      // Reduced axes already last, or one block of them: the middle of [before, reduced, after]
      // is reduced in place, no transpose (on the GPU when the columns fill the machine or the
      // reduced axis is short: a few long columns go faster transposed into rows).
      const inPlace = oneBlock && (runner.where === 'host' || before * after >= 1024 || inner <= 64);
      if (perm == null || inPlace) {
        runner.native.reduce(op, nd(x.dtype), nd(outDtype), runner.input(x), buf, before, inner, after);
      } else {
        const src = transposeWith(runner, x, perm);
        try {
          runner.native.reduce(op, nd(x.dtype), nd(outDtype), runner.input(src), buf, util.sizeFromShape(outShape), inner);
        } finally {
          backend.disposeIntermediateTensorInfo(src);
        }
      }
      if (!keepDims) return info;
      const kept = reshapeView(backend, info, backend_util.expandShapeToKeepDim(outShape, axes));
      backend.disposeIntermediateTensorInfo(info);
      return kept;
    },
  };
}

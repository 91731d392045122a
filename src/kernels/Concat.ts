import {backend_util, Concat, ConcatAttrs, KernelConfig, TensorInfo, util} from '@tensorflow/tfjs-core';

import {bytesPerElement} from '../backend/backend_wholememory';
import {runOnCpu} from '../backend/fallback';
import {inheritValid} from '../backend/index_validation';
import {backendOf, nativeRunner, reshapeView, STORABLE} from '../kernel_utils/kernel_utils';

// Each input is an [outer, inner_i] block copied into columns of the
// [outer, sum(inner_i)] output: on the GPU all in one launch (concatColumns), on the host one copy each.
export const concatConfig: KernelConfig = {
  kernelName: Concat,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const inputs = args.inputs as unknown as TensorInfo[];
    const {axis} = args.attrs as unknown as ConcatAttrs;
    const runner = nativeRunner(backend, inputs, STORABLE);
    if (inputs.length === 0 || runner === null || inputs.some((t) => t.dtype !== inputs[0].dtype)) {
      return runOnCpu(Concat, args);
    }
    const $axis = util.parseAxisParam(axis, inputs[0].shape)[0];
    backend_util.assertParamsConsistent(
      inputs.map((t) => t.shape),
      $axis,
    );
    const outShape = backend_util.computeOutShape(
      inputs.map((t) => t.shape),
      $axis,
    );
    const nonEmpty = inputs.filter((t) => util.sizeFromShape(t.shape) > 0);
    if (nonEmpty.length === 1) return reshapeView(backend, nonEmpty[0], outShape);
    const {info, buf} = runner.output(outShape, inputs[0].dtype);
    if (nonEmpty.length === 0) return info;
    const outer = util.sizeFromShape(outShape.slice(0, $axis));
    const outInner = util.sizeFromShape(outShape.slice($axis));
    const elem = bytesPerElement(inputs[0].dtype);
    if (runner.where === 'device') {
      const srcs = nonEmpty.map((t) => runner.input(t) as number);
      const inners = nonEmpty.map((t) => util.sizeFromShape(t.shape.slice($axis)));
      runner.native.concatColumns(elem, srcs, inners, buf as number, outer, outInner);
      inheritValid(info, nonEmpty);
      return info;
    }
    let column = 0;
    for (const t of nonEmpty) {
      const inner = util.sizeFromShape(t.shape.slice($axis));
      runner.native.stridedCopy(elem, runner.input(t), 0, [inner, 1], [outer, inner], buf, column, [outInner, 1], [outer, inner]);
      column += inner;
    }
    inheritValid(info, nonEmpty);
    return info;
  },
};

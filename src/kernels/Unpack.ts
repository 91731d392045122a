import {KernelConfig, TensorInfo, Unpack, UnpackAttrs, util} from '@tensorflow/tfjs-core';

import {bytesPerElement} from '../backend/backend_wholememory';
import {runOnCpu} from '../backend/fallback';
import {backendOf, nativeRunner, STORABLE} from '../kernel_utils/kernel_utils';

export const unpackConfig: KernelConfig = {
  kernelName: Unpack,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const value = args.inputs.value as TensorInfo;
    const {axis} = args.attrs as unknown as UnpackAttrs;
    const runner = nativeRunner(backend, [value], STORABLE);
    if (runner === null) return runOnCpu(Unpack, args);
    const $axis = util.parseAxisParam(axis, value.shape)[0];
    const num = value.shape[$axis];
    const outShape = value.shape.filter((_, i) => i !== $axis);
    const outer = util.sizeFromShape(value.shape.slice(0, $axis));
    const inner = util.sizeFromShape(value.shape.slice($axis + 1));
    const elem = bytesPerElement(value.dtype);
    const src = outer * inner > 0 ? runner.input(value) : 0;
    const outs: TensorInfo[] = [];
    for (let i = 0; i < num; ++i) {
      const {info, buf} = runner.output(outShape, value.dtype);
      if (outer * inner > 0) {
        runner.native.stridedCopy(elem, src, i * inner, [num * inner, 1], [outer, inner], buf, 0, [inner, 1], [outer, inner]);
      }
      outs.push(info);
    }
    return outs;
  },
};

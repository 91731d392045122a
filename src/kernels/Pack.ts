import {KernelConfig, Pack, PackAttrs, TensorInfo, util} from '@tensorflow/tfjs-core';

import {bytesPerElement} from '../backend/backend_wholememory';
import {runOnCpu} from '../backend/fallback';
import {backendOf, nativeRunner, STORABLE} from '../kernel_utils/kernel_utils';

export const packConfig: KernelConfig = {
  kernelName: Pack,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const inputs = args.inputs as unknown as TensorInfo[];
    const {axis} = args.attrs as unknown as PackAttrs;
    const runner = nativeRunner(backend, inputs, STORABLE);
    if (inputs.length === 0 || runner === null || inputs.some((t) => t.dtype !== inputs[0].dtype)) {
      return runOnCpu(Pack, args);
    }
    const shape = inputs[0].shape;
    inputs.forEach((t) => util.assertShapesMatch(shape, t.shape, 'All tensors passed to stack must have matching shapes'));
    const $axis = axis < 0 ? axis + shape.length + 1 : axis;
    util.assert($axis >= 0 && $axis <= shape.length, () => `Pack: axis ${axis} is out of range for rank ${shape.length + 1}`);
    const outShape = [...shape.slice(0, $axis), inputs.length, ...shape.slice($axis)];
    const {info, buf} = runner.output(outShape, inputs[0].dtype);
    const outer = util.sizeFromShape(shape.slice(0, $axis));
    const inner = util.sizeFromShape(shape.slice($axis));
    if (outer * inner === 0) return info;
    const elem = bytesPerElement(inputs[0].dtype);
    inputs.forEach((t, i) => {
      runner.native.stridedCopy(
        elem,
        runner.input(t),
        0,
        [inner, 1],
        [outer, inner],
        buf,
        i * inner,
        [inputs.length * inner, 1],
        [outer, inner],
      );
    });
    return info;
  },
};

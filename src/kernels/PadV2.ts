// tf.pad (also the gradient of tf.slice, so every training step that slices
// a tensor pads its gradient): the constant fill, then the input copied into
// the interior by the strided copy — no trip through the CPU backend.
import {KernelConfig, PadV2, PadV2Attrs, TensorInfo} from '@tensorflow/tfjs-core';

import {bytesPerElement} from '../backend/backend_wholememory';
import {runOnCpu} from '../backend/fallback';
import {backendOf, contiguousStrides, nativeRunner, nd, STORABLE} from '../kernel_utils/kernel_utils';

export const padV2Config: KernelConfig = {
  kernelName: PadV2,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    const {paddings, constantValue} = args.attrs as unknown as PadV2Attrs;
    const runner = nativeRunner(backend, [x], STORABLE);
    if (runner === null || x.shape.length === 0) return runOnCpu(PadV2, args);
    const outShape = x.shape.map((d, i) => paddings[i][0] + d + paddings[i][1]);
    const {info, buf} = runner.output(outShape, x.dtype);
    const total = outShape.reduce((a, b) => a * b, 1);
    if (total === 0) return info;
    runner.native.fill(nd(x.dtype), buf, total, constantValue);
    if (x.shape.some((d) => d === 0)) return info;
    const outStrides = contiguousStrides(outShape);
    const offset = paddings.reduce((acc, [before], i) => acc + before * outStrides[i], 0);
    runner.native.stridedCopy(
      bytesPerElement(x.dtype),
      runner.input(x),
      0,
      contiguousStrides(x.shape),
      x.shape,
      buf,
      offset,
      outStrides,
      x.shape,
    );
    return info;
  },
};

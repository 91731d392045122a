// tf.mirrorPad: per padded axis, the input copied into the middle and its
// edges copied back to front on either side (strided copies with a negative
// stride), one axis after another.
import {KernelConfig, MirrorPad, MirrorPadAttrs, TensorInfo, util} from '@tensorflow/tfjs-core';

import {bytesPerElement} from '../backend/backend_wholememory';
import {runOnCpu} from '../backend/fallback';
import {backendOf, contiguousStrides, nativeRunner, reshapeView, STORABLE} from '../kernel_utils/kernel_utils';

export const mirrorPadConfig: KernelConfig = {
  kernelName: MirrorPad,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    const {paddings, mode} = args.attrs as unknown as MirrorPadAttrs;
    const runner = nativeRunner(backend, [x], STORABLE);
    if (runner === null || x.shape.length === 0 || x.shape.some((d) => d === 0)) return runOnCpu(MirrorPad, args);
    const offset = mode === 'reflect' ? 1 : 0;
    const elem = bytesPerElement(x.dtype);
    let cur = x;
    for (let k = 0; k < x.shape.length; ++k) {
      const [before, after] = paddings[k];
      if (before === 0 && after === 0) continue;
      const shape = cur.shape;
      const outShape = shape.slice();
      outShape[k] = before + shape[k] + after;
      const {info, buf} = runner.output(outShape, x.dtype);
      const ss = contiguousStrides(shape),
        ds = contiguousStrides(outShape);
      const src = runner.input(cur);
      const copy = (srcOffset: number, dir: number, dstStart: number, count: number) => {
        if (count === 0 || util.sizeFromShape(shape) === 0) return;
        const part = shape.slice();
        part[k] = count;
        const srcStrides = ss.slice();
        srcStrides[k] = dir * ss[k];
        runner.native.stridedCopy(elem, src, srcOffset, srcStrides, part, buf, dstStart * ds[k], ds, part);
      };
      copy(0, 1, before, shape[k]);
      copy((before - 1 + offset) * ss[k], -1, 0, before);
      copy((shape[k] - 1 - offset) * ss[k], -1, before + shape[k], after);
      if (cur !== x) backend.disposeIntermediateTensorInfo(cur);
      cur = info;
    }
    return cur === x ? reshapeView(backend, x, x.shape) : cur;
  },
};

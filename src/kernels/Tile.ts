import {KernelConfig, TensorInfo, Tile, TileAttrs, util} from '@tensorflow/tfjs-core';

import {bytesPerElement} from '../backend/backend_wholememory';
import {runOnCpu} from '../backend/fallback';
import {backendOf, contiguousStrides, nativeRunner, STORABLE} from '../kernel_utils/kernel_utils';

export const tileConfig: KernelConfig = {
  kernelName: Tile,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    const {reps} = args.attrs as unknown as TileAttrs;
    // Checked before either path: tfjs' own kernels take a negative count as a negative array length.
    util.assert(
      reps.length === x.shape.length,
      () => `Error in tile: repetitions [${reps}] must have one entry per dimension of x [${x.shape}]`,
    );
    reps.forEach((r, i) =>
      util.assert(Number.isInteger(r) && r >= 0, () => `Error in tile: reps[${i}] must be a non-negative integer, got ${r}`),
    );
    const runner = nativeRunner(backend, [x], STORABLE);
    if (runner === null) return runOnCpu(Tile, args);
    const outShape = x.shape.map((d, i) => d * reps[i]);
    const {info, buf} = runner.output(outShape, x.dtype);
    if (util.sizeFromShape(outShape) === 0) return info;
    runner.native.stridedCopy(
      bytesPerElement(x.dtype),
      runner.input(x),
      0,
      contiguousStrides(x.shape),
      x.shape,
      buf,
      0,
      contiguousStrides(outShape),
      outShape,
    );
    return info;
  },
};

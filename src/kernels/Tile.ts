import {DataType, KernelConfig, TensorInfo, Tile, TileAttrs, util} from '@tensorflow/tfjs-core';

import {bytesPerElement} from '../backend/backend_wholememory';
import {runOnCpu} from '../backend/fallback';
import {backendOf, contiguousStrides, onGpu} from './kernel_utils';

const NATIVE: readonly DataType[] = ['float32', 'int32', 'bool'];

export const tileConfig: KernelConfig = {
  kernelName: Tile,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    const {reps} = args.attrs as unknown as TileAttrs;
    if (!onGpu(backend, [x], NATIVE)) return runOnCpu(Tile, args);
    util.assert(reps.length === x.shape.length, () => `Error in tile: repetitions [${reps}] must have one entry per dimension of x [${x.shape}]`);
    const outShape = x.shape.map((d, i) => d * reps[i]);
    const {info, ptr} = backend.makeDeviceOutput(outShape, x.dtype);
    if (util.sizeFromShape(outShape) === 0) return info;
    backend.native.stridedCopy(bytesPerElement(x.dtype), backend.devicePtr(x), 0, contiguousStrides(x.shape), x.shape,
                               ptr, 0, contiguousStrides(outShape), outShape);
    return info;
  },
};

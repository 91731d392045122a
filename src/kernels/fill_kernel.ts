// Fill, ZerosLike and OnesLike all write one value over a new device tensor.
import {DataType, TensorInfo, util} from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';
import {nd} from './kernel_utils';

export function fillOnDevice(backend: WholeMemoryBackend, shape: number[], dtype: DataType, value: number): TensorInfo {
  const {info, ptr} = backend.makeDeviceOutput(shape, dtype);
  backend.native.fill(nd(dtype), ptr, util.sizeFromShape(shape), value);
  return info;
}

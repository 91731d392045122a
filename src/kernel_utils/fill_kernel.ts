// Fill, ZerosLike and OnesLike all write one value over a new tensor.
import {DataType, TensorInfo, util} from '@tensorflow/tfjs-core';

import {KernelRunner} from '../backend/runner';
import {nd} from './kernel_utils';

export function fillWith(runner: KernelRunner, shape: number[], dtype: DataType, value: number): TensorInfo {
  const {info, buf} = runner.output(shape, dtype);
  runner.native.fill(nd(dtype), buf, util.sizeFromShape(shape), value);
  return info;
}

// Builds the config of an elementwise unary kernel: native on the GPU for
// the dtypes it supports, tfjs-backend-cpu otherwise.
import {DataType, KernelConfig, NamedAttrMap, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, FLOAT, nativeRunner, nd, STORABLE} from './kernel_utils';
import {UnaryOp} from './op_codes';

export interface UnaryOptions {
  dtypes?: readonly DataType[];
  outDtype?: (x: TensorInfo, attrs: NamedAttrMap) => DataType;
  scalars?: (attrs: NamedAttrMap) => [number, number];
}

export function unaryKernel(kernelName: string, op: UnaryOp, options: UnaryOptions = {}): KernelConfig {
  const dtypes = options.dtypes ?? FLOAT;
  return {
    kernelName,
    backendName: 'wholememory',
    kernelFunc: (args) => {
      const backend = backendOf(args);
      const x = args.inputs.x as TensorInfo;
      const attrs = args.attrs ?? {};
      const outDtype = options.outDtype ? options.outDtype(x, attrs) : x.dtype;
      const runner = nativeRunner(backend, [x], dtypes);
      if (runner === null || !STORABLE.includes(outDtype)) return runOnCpu(kernelName, args);
      const [alpha, beta] = options.scalars ? options.scalars(attrs) : [0, 0];
      const {info, buf} = runner.output(x.shape, outDtype);
      runner.native.unary(op, nd(x.dtype), nd(outDtype), runner.input(x), buf, util.sizeFromShape(x.shape), alpha, beta);
      return info;
    },
  };
}

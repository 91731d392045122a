import {Cast, CastAttrs, KernelConfig, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, nativeRunner, nd, reshapeView, STORABLE} from '../kernel_utils/kernel_utils';
import {UnaryOp} from '../kernel_utils/op_codes';

export const castConfig: KernelConfig = {
  kernelName: Cast,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    const {dtype} = args.attrs as unknown as CastAttrs;
    const runner = nativeRunner(backend, [x], STORABLE);
    if (runner === null || !STORABLE.includes(dtype)) return runOnCpu(Cast, args);
    // Same dtype: a view, as tfjs-backend-cpu's identity.
    if (dtype === x.dtype) return reshapeView(backend, x, x.shape);
    const {info, buf} = runner.output(x.shape, dtype);
    runner.native.unary(UnaryOp.Cast, nd(x.dtype), nd(dtype), runner.input(x), buf, util.sizeFromShape(x.shape), 0, 0);
    return info;
  },
};

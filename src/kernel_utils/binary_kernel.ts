// Builds the config of an elementwise binary kernel with broadcasting.
import {backend_util, DataType, KernelConfig, TensorInfo, util} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf, broadcastStrides, nativeRunner, nd} from './kernel_utils';
import {BinaryOp} from './op_codes';

export interface BinaryOptions {
  dtypes: readonly DataType[];
  /** Output dtype; the inputs' dtype when absent. */
  outDtype?: DataType;
  /** Input names, when not {a, b}. */
  names?: [string, string];
}

export function binaryKernel(kernelName: string, op: BinaryOp, options: BinaryOptions): KernelConfig {
  const [nameA, nameB] = options.names ?? ['a', 'b'];
  return {
    kernelName,
    backendName: 'wholememory',
    kernelFunc: (args) => {
      const backend = backendOf(args);
      const a = args.inputs[nameA] as TensorInfo;
      const b = args.inputs[nameB] as TensorInfo;
      const runner = nativeRunner(backend, [a, b], options.dtypes);
      if (runner === null || a.dtype !== b.dtype) return runOnCpu(kernelName, args);
      const outShape = backend_util.assertAndGetBroadcastShape(a.shape, b.shape);
      const outDtype = options.outDtype ?? a.dtype;
      const {info, buf} = runner.output(outShape, outDtype);
      const n = util.sizeFromShape(outShape);
      const sa = backend.hostScalar(a),
        sb = backend.hostScalar(b);
      // A scalar on the host goes to the kernel as an argument: no upload.
      if (sb !== undefined && util.sizeFromShape(a.shape) === n) {
        runner.native.binaryScalar(op, nd(a.dtype), nd(outDtype), runner.input(a), sb, false, buf, n);
        return info;
      }
      if (sa !== undefined && util.sizeFromShape(b.shape) === n) {
        runner.native.binaryScalar(op, nd(a.dtype), nd(outDtype), runner.input(b), sa, true, buf, n);
        return info;
      }
      runner.binary(
        op,
        nd(a.dtype),
        nd(outDtype),
        runner.input(a),
        runner.input(b),
        buf,
        outShape,
        broadcastStrides(a.shape, outShape),
        broadcastStrides(b.shape, outShape),
      );
      return info;
    },
  };
}

// tf.unique of a 1-D int32 tensor: values in order of first occurrence and
// each element's position among them. GPU: a sort-based kernel; CPU: the
// C++ core (a hash map). Other ranks and dtypes go to tfjs-backend-cpu.
import {KernelConfig, TensorInfo, Unique, UniqueAttrs} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {backendOf} from '../kernel_utils/kernel_utils';

export const uniqueConfig: KernelConfig = {
  kernelName: Unique,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const x = args.inputs.x as TensorInfo;
    const {axis} = args.attrs as unknown as UniqueAttrs;
    const n = x.shape[0] ?? 0;
    if (x.dtype !== 'int32' || x.shape.length !== 1 || (axis ?? 0) !== 0 || !(backend.gpu || backend.hostKernels)) {
      return runOnCpu(Unique, args) as TensorInfo[];
    }
    if (backend.gpu) {
      const inverse = backend.makeDeviceOutput([n], 'int32');
      const scratch = backend.allocDevice(Math.max(n, 1) * 4);
      try {
        const count = n ? backend.native.uniqueInt32(backend.devicePtr(x), n, scratch, inverse.ptr) : 0;
        const values = backend.makeDeviceOutput([count], 'int32');
        if (count) backend.native.copyDeviceToDevice(values.ptr, scratch, count * 4);
        return [values.info, inverse.info];
      } finally {
        backend.freeDevice(scratch);
      }
    }
    const xs = backend.readSync(x.dataId) as Int32Array;
    const values = new Int32Array(n),
      inverse = new Int32Array(n);
    const count = backend.native.uniqueInt32(xs instanceof Int32Array ? xs : Int32Array.from(xs), n, values, inverse) as number;
    return [backend.makeTensorInfo([count], 'int32', values.slice(0, count)), backend.makeTensorInfo([n], 'int32', inverse)];
  },
};

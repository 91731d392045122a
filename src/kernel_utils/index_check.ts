// Index validation shared by scatter kernels: on the host when the indices
// are there (no device sync), else from the kernel's error word.
import {TensorInfo} from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from '../backend/backend_wholememory';

/** Host copy of int32 indices if one exists, without downloading. */
export function hostIndices(backend: WholeMemoryBackend, t: TensorInfo): ArrayLike<number> | undefined {
  const d = backend.data.get(t.dataId);
  return d.values != null ? (d.values as ArrayLike<number>) : undefined;
}

/**
 * Runs `launch(errorFlag)` and, if the kernel reported a bad position,
 * throws the message `describe(position)` gives. The check costs one small
 * device-to-host read, paid only when the indices were not on the host.
 */
export function withDeviceIndexCheck(
  backend: WholeMemoryBackend,
  launch: (flag: number) => void,
  describe: (position: number) => string,
): void {
  const bad = backend.withErrorFlag(launch);
  if (bad >= 0) throw new Error(describe(bad));
}

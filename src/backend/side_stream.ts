// Work queued on the GPU's side stream. A sampler must read a count back to
// the host (a compact subgraph's shape depends on it); on the main stream
// that read waits for every training step queued before it, so the host
// cannot run ahead of the GPU, and on several GPUs each rank stalls on the
// others' all-reduce every step. On the side stream it waits for the
// sampling alone.
import * as tf from '@tensorflow/tfjs-core';

import {WholeMemoryBackend} from './backend_wholememory';

/**
 * Runs f with its GPU work on the side stream; work queued on the main
 * stream afterwards waits (on the GPU) for it. `waitForMain`: f reads tensors
 * the main stream produced (host arrays uploaded inside f need no wait).
 * f may dispose what it made itself, and tensors made before it; not tensors
 * made in an earlier side-stream call that main-stream work has used since
 * (see useSideStream in wm/runtime.h). Elsewhere (no GPU) it just runs f.
 */
export function onSideStream<T>(f: () => T, opts: {waitForMain?: boolean} = {}): T {
  const b = tf.backend();
  if (!(b instanceof WholeMemoryBackend) || !b.gpu) return f();
  if (opts.waitForMain) b.native.sideWaitsForMain();
  b.native.useSideStream(true);
  try {
    return f();
  } finally {
    b.native.useSideStream(false);
    b.native.mainWaitsForSide();
  }
}

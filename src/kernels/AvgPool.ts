// tf.avgPool: each window's sum per channel over the number of its pixels
// inside the input (padding is not counted, as in tfjs-backend-cpu).
import {AvgPool, KernelConfig} from '@tensorflow/tfjs-core';

import {disposeAll, padForWindows, poolSetup, reduceWindows, WindowGeometry} from './conv_windows';
import {callKernel} from './kernel_utils';
import {ReduceOp} from './op_codes';
import {realDivConfig} from './RealDiv';

/** Pixels of each window inside the input, [outH * outW], or null when every window lies inside. */
function insideCounts(g: WindowGeometry): Float32Array | null {
  const along = (outN: number, s: number, pad: number, f: number, inN: number) =>
      Array.from({length: outN}, (_, o) => Math.min(inN, o * s - pad + f) - Math.max(0, o * s - pad));
  const rows = along(g.outH, g.sH, g.top, g.fH, g.inH), cols = along(g.outW, g.sW, g.left, g.fW, g.inW);
  const counts = new Float32Array(g.outH * g.outW);
  let partial = false;
  rows.forEach((r, y) => cols.forEach((c, x) => {
    counts[y * g.outW + x] = r * c;
    partial ||= r * c !== g.fH * g.fW;
  }));
  return partial ? counts : null;
}

export const avgPoolConfig: KernelConfig = {
  kernelName: AvgPool,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const s = poolSetup(args, AvgPool);
    if (!('g' in s)) return s;
    const {backend, runner, g} = s;
    const counts = insideCounts(g);
    const p = padForWindows(backend, s.x, g, 0);
    try {
      if (counts === null) return reduceWindows(backend, runner, p.t, p.g, ReduceOp.Mean, 'float32');
      const sums = reduceWindows(backend, runner, p.t, p.g, ReduceOp.Sum, 'float32');
      const divisor = backend.makeTensorInfo([1, g.outH, g.outW, 1], 'float32', counts);
      try {
        return callKernel(realDivConfig, {inputs: {a: sums, b: divisor}, backend, attrs: {}});
      } finally {
        disposeAll(backend, sums, divisor);
      }
    } finally {
      if (p.owned) disposeAll(backend, p.t);
    }
  },
};

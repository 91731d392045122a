// The gradient of tf.maxPool: dy goes to the first maximum of each window
// (as tfjs-backend-cpu picks it: NaN and -Infinity never, so a window of
// only those passes nothing). Each window's dy is placed at its maximum's
// position in a [fH*fW] slot per window; spread out by the stride, every
// input pixel then sums, over the windows that hold it, the slot that names
// its place in that window: one strided copy and a row sum, no scatter.
import {backend_util, KernelConfig, MaxPoolGrad, MaxPoolGradAttrs, TensorInfo} from '@tensorflow/tfjs-core';

import {runOnCpu} from '../backend/fallback';
import {disposeAll, geometryOf, padForWindows, reduceWindows, spread, transposedGeometry} from './conv_windows';
import {backendOf, copyView, FLOAT, nativeRunner, nd} from './kernel_utils';
import {BinaryOp, ReduceOp} from './op_codes';

export const maxPoolGradConfig: KernelConfig = {
  kernelName: MaxPoolGrad,
  backendName: 'wholememory',
  kernelFunc: (args) => {
    const backend = backendOf(args);
    const {dy, input} = args.inputs as {dy: TensorInfo; input: TensorInfo};
    const {filterSize, strides, pad, dimRoundingMode} = args.attrs as unknown as MaxPoolGradAttrs;
    const runner = nativeRunner(backend, [dy, input], FLOAT);
    if (runner === null || input.shape.length !== 4 || dy.shape.length !== 4) return runOnCpu(MaxPoolGrad, args);
    const info = backend_util.computePool2DInfo(input.shape as [number, number, number, number], filterSize, strides, 1, pad,
                                                dimRoundingMode);
    const g = geometryOf(info);
    // tfjs-backend-cpu reads a dy of another size with its own strides; leave that to it.
    if (dy.shape[1] !== g.outH || dy.shape[2] !== g.outW || dy.shape[3] !== g.chans) return runOnCpu(MaxPoolGrad, args);
    const k = g.fH * g.fW, c = g.chans;
    const temps: TensorInfo[] = [];
    const keep = (t: TensorInfo) => (temps.push(t), t);
    try {
      const p = padForWindows(backend, input, g, -Infinity);
      if (p.owned) keep(p.t);
      const argmax = keep(reduceWindows(backend, runner, p.t, p.g, ReduceOp.PoolArgMax, 'int32'));  // [n, outH, outW, c]
      const rows = g.batch * g.outH * g.outW;
      // slots[r, c, q] = dy[r, c] where q is the window's argmax, else 0.
      const shape = [rows, c, k];
      const {info: hits, buf: hitsBuf} = runner.output(shape, 'bool');
      keep(hits);
      const iota = keep(backend.makeTensorInfo([k], 'int32', Int32Array.from({length: k}, (_, i) => i)));
      const zero = keep(backend.makeTensorInfo([], 'float32', new Float32Array(1)));
      const {info: slots, buf: slotsBuf} = runner.output([g.batch, g.outH, g.outW, c * k], 'float32');
      keep(slots);
      if (rows * c > 0) {
        runner.binary(BinaryOp.Equal, nd('int32'), nd('bool'), runner.input(argmax), runner.input(iota), hitsBuf, shape, [c, 1, 0], [0, 0, 1]);
        runner.select(nd('float32'), hitsBuf, runner.input(dy), runner.input(zero), slotsBuf, shape, [c * k, k, 1], [c, 1, 0], [0, 0, 0]);
      }
      const t = transposedGeometry(g, c * k);
      const spreadSlots = keep(spread(runner, slots, t.hp, t.wp, g.sH, g.sW, t.top, t.left));
      // Input pixel (h, w, c) reads, for window offset (i', j') of the turned-around window, spread row
      // h + i', column w + j', slot (fH-1-i')*fW + (fW-1-j').
      const ck = c * k, row = t.wp * ck;
      const picked = keep(copyView(runner, spreadSlots, k - 1, [t.hp * row, row, ck, k, row - g.fW, ck - 1],
                                   [g.batch, g.inH, g.inW, c, g.fH, g.fW]));
      const {info: dx, buf: dxBuf} = runner.output([g.batch, g.inH, g.inW, c], 'float32');
      if (g.batch * g.inH * g.inW * c > 0) runner.reduce(ReduceOp.Sum, nd('float32'), nd('float32'), runner.input(picked), dxBuf, g.batch * g.inH * g.inW * c, k);
      return dx;
    } finally {
      disposeAll(backend, ...temps);
    }
  },
};

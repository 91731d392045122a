// Convolutions and pools (conv_windows.ts) against tfjs-backend-cpu on
// random data: strides, dilations, every padding kind, both data formats,
// odd and empty sizes, their gradients, the fused forms, and the window
// copies made a few images at a time.
import * as tf from '@tensorflow/tfjs-core';
import {expect} from 'chai';

import * as wm from '../src/index';
import {assertGpuIfRequired, checkAgainstCpu, randomInput} from './helpers';

type Pad = 'same' | 'valid' | number | [[number, number], [number, number], [number, number], [number, number]];

describe('convolutions and pools match tfjs-backend-cpu', () => {
  before(async function () {
    await tf.setBackend(wm.BACKEND_NAME);
    assertGpuIfRequired();
  });

  let seed = 500;
  const next = () => ++seed;
  const tol = {rtol: 1e-4, atol: 1e-4};

  const convCases: {x: number[]; f: number[]; s: number | [number, number]; pad: Pad; d?: number | [number, number]}[] = [
    {x: [2, 7, 9, 3], f: [3, 3, 3, 4], s: 1, pad: 'same'},
    {x: [2, 7, 9, 3], f: [3, 3, 3, 4], s: 2, pad: 'same'},
    {x: [1, 8, 6, 2], f: [2, 4, 2, 5], s: [2, 1], pad: 'valid'},
    {x: [3, 5, 5, 4], f: [1, 1, 4, 6], s: 1, pad: 'valid'},
    {x: [3, 6, 5, 4], f: [1, 1, 4, 3], s: 2, pad: 'same'},
    {x: [2, 9, 7, 3], f: [3, 2, 3, 2], s: 1, pad: 'same', d: 2},
    {x: [2, 9, 7, 3], f: [3, 3, 3, 2], s: 1, pad: 'valid', d: [2, 1]},
    {
      x: [1, 6, 7, 2],
      f: [3, 3, 2, 3],
      s: 2,
      pad: [
        [0, 0],
        [1, 2],
        [0, 1],
        [0, 0],
      ],
    },
    {x: [1, 6, 7, 2], f: [2, 2, 2, 3], s: 3, pad: 1},
    {x: [1, 1, 1, 5], f: [1, 1, 5, 1], s: 1, pad: 'same'},
  ];

  const describeCase = (c: (typeof convCases)[number]) => `x ${c.x} f ${c.f} s ${c.s} pad ${JSON.stringify(c.pad)} d ${c.d ?? 1}`;

  it('Conv2D and its gradients (NHWC), every padding kind, strides and dilations', async () => {
    for (const c of convCases) {
      const what = describeCase(c);
      await checkAgainstCpu(
        `conv2d ${what}`,
        [randomInput(c.x, 'float32', next()), randomInput(c.f, 'float32', next())],
        (x, f) => tf.conv2d(x as tf.Tensor4D, f as tf.Tensor4D, c.s, c.pad as 'same', 'NHWC', c.d ?? 1),
        {kernels: ['Conv2D'], ...tol},
      );
      if (c.d !== undefined) continue; // tfjs has no gradient for dilated conv2d
      await checkAgainstCpu(
        `conv2d gradients ${what}`,
        [randomInput(c.x, 'float32', next()), randomInput(c.f, 'float32', next())],
        (x, f) =>
          tf.grads((a: tf.Tensor, b: tf.Tensor) => tf.sum(tf.square(tf.conv2d(a as tf.Tensor4D, b as tf.Tensor4D, c.s, c.pad as 'same'))))([
            x,
            f,
          ]),
        {kernels: ['Conv2D', 'Conv2DBackpropInput', 'Conv2DBackpropFilter'], ...tol},
      );
    }
  });

  // On the GPU these are implicit GEMMs in 64x64 tiles, 16-deep slices: several tiles each way, a k
  // that is no multiple of 16, and a filter gradient long enough (>= 1024 pixels) to split its sum.
  // Each filter-gradient entry sums 1152 float32 terms of about 5 (dy = 2y) with cancellation:
  // the CPU core's float32 sum and tfjs-backend-cpu's float64 one differ by up to ~1e-2 there.
  it('Conv2D and its gradients over several tiles and split sums', async () => {
    for (const c of [
      {x: [2, 24, 24, 20], f: [3, 3, 20, 70], s: 1, pad: 'same'},
      {x: [1, 6, 5, 70], f: [2, 2, 70, 3], s: 2, pad: 'same'},
    ] as typeof convCases) {
      await checkAgainstCpu(
        `conv2d gradients ${describeCase(c)}`,
        [randomInput(c.x, 'float32', next()), randomInput(c.f, 'float32', next())],
        (x, f) =>
          tf.grads((a: tf.Tensor, b: tf.Tensor) => tf.sum(tf.square(tf.conv2d(a as tf.Tensor4D, b as tf.Tensor4D, c.s, c.pad as 'same'))))([
            x,
            f,
          ]),
        {kernels: ['Conv2D', 'Conv2DBackpropInput', 'Conv2DBackpropFilter'], rtol: 2e-4, atol: 2e-2},
      );
    }
  });

  it('Conv2D and its gradients, NCHW', async () => {
    for (const c of convCases.filter((c) => c.d === undefined && typeof c.pad === 'string').slice(0, 4)) {
      const [n, h, w, ch] = c.x;
      const xs = [n, ch, h, w];
      await checkAgainstCpu(
        `conv2d NCHW ${describeCase(c)}`,
        [randomInput(xs, 'float32', next()), randomInput(c.f, 'float32', next())],
        (x, f) =>
          tf.grads((a: tf.Tensor, b: tf.Tensor) =>
            tf.sum(tf.square(tf.conv2d(a as tf.Tensor4D, b as tf.Tensor4D, c.s, c.pad as 'same', 'NCHW'))),
          )([x, f]),
        {kernels: ['Conv2D', 'Conv2DBackpropInput', 'Conv2DBackpropFilter'], ...tol},
      );
    }
  });

  it('conv2dTranspose (Conv2DBackpropInput on its own)', async () => {
    for (const [ys, f, out, s, pad] of [
      [[2, 4, 5, 3], [3, 3, 2, 3], [2, 8, 10, 2], 2, 'same'],
      [[1, 3, 3, 4], [2, 2, 3, 4], [1, 6, 6, 3], 2, 'valid'],
      [[1, 5, 4, 2], [3, 3, 1, 2], [1, 7, 6, 1], 1, 'valid'],
    ] as [number[], number[], number[], number, 'same' | 'valid'][]) {
      await checkAgainstCpu(
        `conv2dTranspose ${ys} ${f} ${out}`,
        [randomInput(ys, 'float32', next()), randomInput(f, 'float32', next())],
        (y, w) => tf.conv2dTranspose(y as tf.Tensor4D, w as tf.Tensor4D, out as [number, number, number, number], s, pad),
        {kernels: ['Conv2DBackpropInput'], ...tol},
      );
    }
  });

  it('FusedConv2D: bias and every activation, both data formats', async () => {
    const acts: tf.fused.Activation[] = ['linear', 'relu', 'relu6', 'elu', 'sigmoid', 'leakyrelu', 'prelu'];
    for (const activation of acts) {
      for (const dataFormat of ['NHWC', 'NCHW'] as const) {
        const xs = dataFormat === 'NHWC' ? [2, 6, 5, 3] : [2, 3, 6, 5];
        await checkAgainstCpu(
          `fused conv2d ${activation} ${dataFormat}`,
          [
            randomInput(xs, 'float32', next()),
            randomInput([3, 3, 3, 4], 'float32', next()),
            randomInput([4], 'float32', next()),
            randomInput([4], 'float32', next()),
          ],
          (x, f, b, a) =>
            tf.fused.conv2d({
              x: x as tf.Tensor4D,
              filter: f as tf.Tensor4D,
              strides: 1,
              pad: 'same',
              dataFormat,
              bias: b,
              activation,
              preluActivationWeights: activation === 'prelu' ? a : undefined,
              leakyreluAlpha: 0.15,
            }),
          {kernels: ['FusedConv2D'], ...tol},
        );
      }
    }
  });

  it('DepthwiseConv2dNative and its gradients, channel multipliers, strides, dilations; the fused form', async () => {
    const cases: {x: number[]; f: number[]; s: number; pad: Pad; d?: number}[] = [
      {x: [2, 8, 7, 3], f: [3, 3, 3, 2], s: 1, pad: 'same'},
      {x: [2, 8, 7, 3], f: [3, 3, 3, 1], s: 2, pad: 'same'},
      {x: [1, 9, 9, 2], f: [2, 3, 2, 3], s: 2, pad: 'valid'},
      {x: [1, 9, 8, 2], f: [3, 3, 2, 2], s: 1, pad: 'same', d: 2},
      {x: [2, 5, 6, 4], f: [1, 1, 4, 2], s: 1, pad: 'valid'},
    ];
    for (const c of cases) {
      const what = `x ${c.x} f ${c.f} s ${c.s} pad ${c.pad} d ${c.d ?? 1}`;
      const dw = (a: tf.Tensor, b: tf.Tensor) =>
        tf.depthwiseConv2d(a as tf.Tensor4D, b as tf.Tensor4D, c.s, c.pad as 'same', 'NHWC', c.d ?? 1);
      await checkAgainstCpu(`depthwise ${what}`, [randomInput(c.x, 'float32', next()), randomInput(c.f, 'float32', next())], dw, {
        kernels: ['DepthwiseConv2dNative'],
        ...tol,
      });
      if (c.d !== undefined) continue; // tfjs has no gradient for dilated depthwise convolutions
      await checkAgainstCpu(
        `depthwise gradients ${what}`,
        [randomInput(c.x, 'float32', next()), randomInput(c.f, 'float32', next())],
        (x, f) => tf.grads((a: tf.Tensor, b: tf.Tensor) => tf.sum(tf.square(dw(a, b))))([x, f]),
        {kernels: ['DepthwiseConv2dNative', 'DepthwiseConv2dNativeBackpropInput', 'DepthwiseConv2dNativeBackpropFilter'], ...tol},
      );
    }
    await checkAgainstCpu(
      'fused depthwise relu',
      [randomInput([2, 6, 6, 3], 'float32', next()), randomInput([3, 3, 3, 2], 'float32', next()), randomInput([6], 'float32', next())],
      (x, f, b) =>
        tf.fused.depthwiseConv2d({x: x as tf.Tensor4D, filter: f as tf.Tensor4D, strides: 1, pad: 'same', bias: b, activation: 'relu'}),
      {kernels: ['FusedDepthwiseConv2D'], ...tol},
    );
  });

  // The GPU's depthwise filter gradient sums 512 output pixels per block and 32 channels per lane
  // group: several of each here, and a window offset that reads padding for many pixels.
  it('depthwise gradients over several pixel chunks and channel groups', async () => {
    for (const [x, f, s] of [
      [[3, 21, 19, 40], [3, 3, 40, 1], 1],
      [[2, 30, 17, 5], [5, 3, 5, 7], 2],
    ] as [number[], number[], number][]) {
      const dw = (a: tf.Tensor, b: tf.Tensor) => tf.depthwiseConv2d(a as tf.Tensor4D, b as tf.Tensor4D, s, 'same');
      await checkAgainstCpu(
        `depthwise gradients x ${x} f ${f}`,
        [randomInput(x, 'float32', next()), randomInput(f, 'float32', next())],
        (a, b) => tf.grads((u: tf.Tensor, v: tf.Tensor) => tf.sum(tf.square(dw(u, v))))([a, b]),
        {
          kernels: ['DepthwiseConv2dNative', 'DepthwiseConv2dNativeBackpropInput', 'DepthwiseConv2dNativeBackpropFilter'],
          rtol: 1e-4,
          atol: 1e-4,
        },
      );
    }
  });

  it('the window kernels reject a short buffer, a bad geometry or op by name, writing nothing', () => {
    const native = wm.backend().native;
    const g = [1, 4, 4, 2, 4, 4, 3, 3, 1, 1, 1, 1, 1, 1]; // one 4x4 image, 2 channels, 3x3 'same'
    const x = new Float32Array(32).fill(1),
      w = new Float32Array(18).fill(1),
      y = new Float32Array(32).fill(7);
    expect(() => native.depthwiseConv2d(x.subarray(0, 31), w, y, g, 1)).to.throw(
      /depthwiseConv2d: argument 0 \(x\) holds 31 elements, needs 32/,
    );
    expect(() => native.depthwiseConv2d(x, w, y, g, 2)).to.throw(/argument 1 \(w\) holds 18 elements, needs 36/);
    expect(() => native.depthwiseConv2d(x, w, y, g.slice(0, 13), 1)).to.throw(/argument 3 \(geometry\) must hold 14 numbers/);
    expect(() => native.depthwiseConv2d(x, w, y, [...g.slice(0, 8), 0, ...g.slice(9)], 1)).to.throw(/strides and dilations must be >= 1/);
    expect(() => native.depthwiseConv2d(x, w, 12345, g, 1)).to.throw(/argument 2 \(y\) must be a Float32Array/);
    expect(() => native.pool2d(7, x, y, g)).to.throw(/pool2d: argument 0 \(op\) must be 0 \(max\), 1 \(argmax\) or 2 \(avg\)/);
    expect(() => native.pool2dGrad(1, y, 0, x, g)).to.throw(/op\) must be max or avg/);
    expect(
      Array.from(y).every((v) => v === 7),
      'output untouched',
    ).to.equal(true);
    native.depthwiseConv2d(x, w, y, g, 1); // and a good call still works: a corner sees 4 ones, the middle 9
    expect([y[0], y[2 * 5]]).to.deep.equal([4, 9]);
  });

  const poolCases: {x: number[]; f: number | [number, number]; s: number | [number, number]; pad: 'same' | 'valid' | number}[] = [
    {x: [2, 9, 8, 3], f: 2, s: 2, pad: 'valid'},
    {x: [2, 9, 8, 3], f: 3, s: 2, pad: 'same'},
    {x: [1, 7, 7, 2], f: 3, s: 1, pad: 'same'},
    {x: [1, 8, 9, 4], f: [3, 2], s: [1, 2], pad: 'valid'},
    {x: [2, 5, 6, 1], f: 2, s: 1, pad: 1},
    {x: [1, 4, 4, 3], f: 1, s: 1, pad: 'valid'},
  ];

  it('MaxPool and AvgPool and their gradients', async () => {
    for (const c of poolCases) {
      const what = `x ${c.x} f ${c.f} s ${c.s} pad ${c.pad}`;
      for (const [name, pool] of [
        ['MaxPool', tf.maxPool],
        ['AvgPool', tf.avgPool],
      ] as const) {
        const f = (a: tf.Tensor) => pool(a as tf.Tensor4D, c.f, c.s, c.pad as 'same');
        await checkAgainstCpu(`${name} ${what}`, [randomInput(c.x, 'float32', next())], f, {kernels: [name], ...tol});
        await checkAgainstCpu(
          `${name} gradient ${what}`,
          [randomInput(c.x, 'float32', next())],
          (x) => tf.grad((a: tf.Tensor) => tf.sum(tf.square(f(a))))(x),
          {kernels: [name, `${name}Grad`], ...tol},
        );
      }
    }
  });

  it('MaxPool gradient goes to the first of tied maxima (pooling after a ReLU)', async () => {
    const x = randomInput([2, 8, 8, 3], 'float32', next());
    x.values.forEach((v, i) => (x.values[i] = Math.round(v))); // many ties, zeros after the ReLU
    await checkAgainstCpu(
      'MaxPool ties',
      [x],
      (a) => tf.grad((b: tf.Tensor) => tf.sum(tf.maxPool(tf.relu(b) as tf.Tensor4D, 3, 2, 'same')))(a),
      {kernels: ['MaxPool', 'MaxPoolGrad']},
    );
  });

  it('MaxPool skips NaN and -Infinity as tfjs-backend-cpu (a window of only those passes no gradient)', async () => {
    const x = randomInput([2, 6, 6, 2], 'float32', next());
    x.values.forEach((_, i) => {
      if (i % 5 === 1) x.values[i] = NaN;
      if (i % 7 === 2) x.values[i] = -Infinity;
    });
    x.values.fill(NaN, 0, 8); // the first window of each channel: NaN and -Infinity only
    x.values[2] = -Infinity;
    await checkAgainstCpu('MaxPool NaN', [x], (a) => tf.maxPool(a as tf.Tensor4D, 2, 2, 'same'), {kernels: ['MaxPool']});
    await checkAgainstCpu(
      'MaxPool NaN gradient',
      [x],
      (a) => tf.grad((b: tf.Tensor) => tf.sum(tf.maxPool(b as tf.Tensor4D, 3, 1, 'same')))(a),
      {kernels: ['MaxPool', 'MaxPoolGrad']},
    );
  });

  it('empty batches and channels', async () => {
    await checkAgainstCpu(
      'conv2d empty batch',
      [randomInput([0, 5, 5, 3], 'float32', next()), randomInput([3, 3, 3, 2], 'float32', next())],
      (x, f) => tf.conv2d(x as tf.Tensor4D, f as tf.Tensor4D, 1, 'same'),
      {kernels: ['Conv2D']},
    );
    await checkAgainstCpu(
      'conv2d no input channels',
      [randomInput([2, 5, 5, 0], 'float32', next()), randomInput([3, 3, 0, 2], 'float32', next())],
      (x, f) => tf.conv2d(x as tf.Tensor4D, f as tf.Tensor4D, 1, 'same'),
      {kernels: ['Conv2D']},
    );
    await checkAgainstCpu(
      'maxPool empty batch',
      [randomInput([0, 4, 4, 2], 'float32', next())],
      (x) => tf.maxPool(x as tf.Tensor4D, 2, 2, 'valid'),
      {kernels: ['MaxPool']},
    );
    await checkAgainstCpu(
      'avgPool no channels',
      [randomInput([2, 4, 4, 0], 'float32', next())],
      (x) => tf.avgPool(x as tf.Tensor4D, 2, 2, 'same'),
      {kernels: ['AvgPool']},
    );
  });

  it('window copies over the budget are made a few images at a time, with the same results', async () => {
    const saved = process.env.WM_CONV_WINDOW_ELEMENTS;
    process.env.WM_CONV_WINDOW_ELEMENTS = '700'; // one or two images per copy below
    try {
      await checkAgainstCpu(
        'conv2d chunked',
        [randomInput([5, 6, 7, 3], 'float32', next()), randomInput([3, 3, 3, 4], 'float32', next())],
        (x, f) =>
          tf.grads((a: tf.Tensor, b: tf.Tensor) => tf.sum(tf.square(tf.conv2d(a as tf.Tensor4D, b as tf.Tensor4D, 2, 'same'))))([x, f]),
        {kernels: ['Conv2D', 'Conv2DBackpropInput', 'Conv2DBackpropFilter'], ...tol},
      );
    } finally {
      if (saved === undefined) delete process.env.WM_CONV_WINDOW_ELEMENTS;
      else process.env.WM_CONV_WINDOW_ELEMENTS = saved;
    }
  });

  it('a tfjs-layers convolutional model trains with no kernel on the fallback, losses equal to tfjs-backend-cpu', async function () {
    this.timeout(60000);
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const tfl = require('@tensorflow/tfjs-layers') as typeof import('@tensorflow/tfjs-layers');
    const x = randomInput([16, 12, 12, 2], 'float32', next());
    const y = randomInput([16, 3], 'float32', next(), {min: 0, max: 1});
    const losses: Record<string, number[]> = {};
    for (const backendName of ['cpu', wm.BACKEND_NAME]) {
      await tf.setBackend(backendName);
      wm.resetFallbackCounts();
      const model = tfl.sequential({
        layers: [
          tfl.layers.conv2d({
            inputShape: [12, 12, 2],
            filters: 4,
            kernelSize: 3,
            padding: 'same',
            activation: 'relu',
            kernelInitializer: tfl.initializers.glorotUniform({seed: 3}),
          }),
          tfl.layers.maxPooling2d({poolSize: 2}),
          tfl.layers.depthwiseConv2d({
            kernelSize: 3,
            depthMultiplier: 2,
            activation: 'elu',
            depthwiseInitializer: tfl.initializers.glorotUniform({seed: 4}),
          }),
          tfl.layers.averagePooling2d({poolSize: 2, padding: 'same'}),
          tfl.layers.flatten(),
          tfl.layers.dense({units: 3, kernelInitializer: tfl.initializers.glorotUniform({seed: 5})}),
        ],
      });
      model.compile({optimizer: tf.train.sgd(0.05), loss: 'meanSquaredError'});
      const h = await model.fit(tf.tensor(x.values, x.shape), tf.tensor(y.values, y.shape), {
        epochs: 3,
        batchSize: 8,
        shuffle: false,
        verbose: 0,
      });
      losses[backendName] = h.history.loss as number[];
      if (backendName === wm.BACKEND_NAME) {
        const native = [
          'Conv2D',
          'Conv2DBackpropFilter',
          'Conv2DBackpropInput',
          'FusedConv2D',
          'MaxPool',
          'MaxPoolGrad',
          'AvgPool',
          'AvgPoolGrad',
          'DepthwiseConv2dNative',
          'DepthwiseConv2dNativeBackpropFilter',
          'DepthwiseConv2dNativeBackpropInput',
        ];
        const fell = Object.keys(wm.fallbackCounts()).filter((k) => native.includes(k));
        expect(fell, 'convolution kernels on the fallback').to.deep.equal([]);
      }
      model.dispose();
    }
    losses.cpu.forEach((l, i) => expect(losses[wm.BACKEND_NAME][i]).to.be.closeTo(l, 1e-4 * Math.max(1, Math.abs(l))));
  });

  it('leaves no tensors or device memory behind', async () => {
    await tf.setBackend(wm.BACKEND_NAME);
    const before = wm.memoryInfo();
    for (let i = 0; i < 5; ++i) {
      tf.tidy(() => {
        const x = tf.randomNormal([2, 7, 6, 3]);
        const f = tf.randomNormal([3, 3, 3, 4]);
        const g = tf.grads((a: tf.Tensor, b: tf.Tensor) =>
          tf.sum(tf.avgPool(tf.maxPool(tf.conv2d(a as tf.Tensor4D, b as tf.Tensor4D, 2, 'same'), 2, 1, 'same'), 2, 1, 'valid')),
        )([x, f]);
        tf.sum(tf.depthwiseConv2d(x as tf.Tensor4D, tf.randomNormal([3, 3, 3, 2]) as tf.Tensor4D, 1, 'same')).dataSync();
        g.forEach((t) => t.dataSync());
      });
    }
    const after = wm.memoryInfo();
    expect(after.numTensors).to.equal(before.numTensors);
    expect(after.deviceBytesInUse).to.equal(before.deviceBytesInUse);
  });
});

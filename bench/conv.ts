// `npm run bench:conv`: convolutions and pools (conv_windows.ts) on
// 'wholememory' against tfjs-backend-cpu in the same process, and PyTorch
// eager on the same GPU when there is one (bench/torch/conv.py, same run):
// each op forward, the gradients, and one training step of a small CNN.
// Prints a table, writes JSON.

import * as tf from '@tensorflow/tfjs-core';

import * as wm from '../src/index';
import {timeMs, torchJson, writeBenchResult} from './bench_util';

const B = Number(process.env.BENCH_CONV_BATCH ?? 16);

type Case = {name: string; run: () => tf.Tensor | tf.Tensor[]};

function cases(): {cases: Case[]; dispose: () => void} {
  const x = tf.randomNormal([B, 32, 32, 16]);
  const w = tf.randomNormal([3, 3, 16, 32], 0, 0.1);
  const h = tf.randomNormal([B, 32, 32, 32]);
  const dw = tf.randomNormal([3, 3, 32, 1], 0, 0.1);
  const w1 = tf.variable(tf.randomNormal([3, 3, 16, 32], 0, 0.1));
  const w2 = tf.variable(tf.randomNormal([3, 3, 32, 32], 0, 0.1));
  const wd = tf.variable(tf.randomNormal([8 * 8 * 32, 10], 0, 0.05));
  const labels = tf.oneHot(tf.randomUniform([B], 0, 10, 'int32') as tf.Tensor1D, 10);
  const conv = (a: tf.Tensor, b: tf.Tensor) => tf.conv2d(a as tf.Tensor4D, b as tf.Tensor4D, 1, 'same');
  const opt = tf.train.sgd(0.01);
  const list: Case[] = [
    {name: `conv2d [${B},32,32,16] 3x3x32`, run: () => conv(x, w)},
    {name: 'conv2d gradients (input, filter)', run: () => tf.grads((a: tf.Tensor, b: tf.Tensor) => tf.sum(conv(a, b)))([x, w])},
    {name: `depthwise 3x3 [${B},32,32,32]`, run: () => tf.depthwiseConv2d(h as tf.Tensor4D, dw as tf.Tensor4D, 1, 'same')},
    {
      name: 'depthwise gradients',
      run: () =>
        tf.grads((a: tf.Tensor, b: tf.Tensor) => tf.sum(tf.depthwiseConv2d(a as tf.Tensor4D, b as tf.Tensor4D, 1, 'same')))([h, dw]),
    },
    {name: `maxPool 2x2 [${B},32,32,32]`, run: () => tf.maxPool(h as tf.Tensor4D, 2, 2, 'valid')},
    {name: 'maxPool gradient', run: () => tf.grad((a: tf.Tensor) => tf.sum(tf.maxPool(a as tf.Tensor4D, 2, 2, 'valid')))(h)},
    {name: 'avgPool 3x3 same + gradient', run: () => tf.grad((a: tf.Tensor) => tf.sum(tf.avgPool(a as tf.Tensor4D, 3, 1, 'same')))(h)},
    {
      name: 'CNN training step (2 conv, 2 pools, dense, SGD)',
      run: () => {
        opt.minimize(() => {
          const a = tf.maxPool(tf.relu(conv(x, w1)) as tf.Tensor4D, 2, 2, 'valid');
          const b = tf.avgPool(tf.relu(conv(a, w2)) as tf.Tensor4D, 2, 2, 'valid');
          return tf.losses.softmaxCrossEntropy(labels, tf.matMul(tf.reshape(b, [B, -1]), wd));
        });
        return [];
      },
    },
  ];
  return {cases: list, dispose: () => tf.dispose([x, w, h, dw, w1, w2, wd, labels])};
}

// On a GPU the results stay there (timeMs synchronises), as PyTorch's do.
function measure(reps: number, warm: number): number[] {
  const {cases: list, dispose} = cases();
  const read = tf.getBackend() === 'cpu';
  const ms = list.map((c) =>
    timeMs(
      () => {
        const out = c.run();
        for (const t of Array.isArray(out) ? out : [out]) {
          if (read) t.dataSync();
          t.dispose();
        }
      },
      reps,
      warm,
    ),
  );
  dispose();
  return ms;
}

function torchSide(): {torch: string; device: string; ms: number[]} | undefined {
  return torchJson<{torch: string; device: string; ms: number[]}>('conv.py', [String(B)]);
}

async function main(): Promise<void> {
  await tf.setBackend(wm.BACKEND_NAME);
  const dev = wm.deviceInfo();
  const names = cases();
  names.dispose();
  const ours = measure(dev.gpu ? 50 : 5, dev.gpu ? 5 : 2);
  // BENCH_CONV_CPU=0 leaves tfjs-backend-cpu out (on a GPU machine it takes minutes).
  await tf.setBackend('cpu');
  const cpu = process.env.BENCH_CONV_CPU === '0' ? ours.map(() => NaN) : measure(3, 1);
  await tf.setBackend(wm.BACKEND_NAME);
  const fallbacks = wm.fallbackCounts();
  const torch = dev.gpu ? torchSide() : undefined;
  const head =
    `| op | wholememory (${dev.gpu ? dev.name : 'CPU'}) ms | tfjs-backend-cpu ms | cpu / ours |` +
    (torch ? ` torch ${torch.torch} (${torch.device}) ms | ours / torch |` : '');
  console.log(`\nconvolutions and pools, median ms per call (batch ${B}, NHWC float32)`);
  console.log(head);
  console.log(head.replace(/[^|]+/g, ' --- '));
  names.cases.forEach((c, i) => {
    const t = torch ? ` ${torch.ms[i].toFixed(3)} | ${(ours[i] / torch.ms[i]).toFixed(2)}x |` : '';
    console.log(`| ${c.name} | ${ours[i].toFixed(3)} | ${cpu[i].toFixed(2)} | ${(cpu[i] / ours[i]).toFixed(1)}x |${t}`);
  });
  if (Object.keys(fallbacks).length) console.log('kernels on the fallback:', JSON.stringify(fallbacks));
  writeBenchResult('conv', {batch: B, device: dev, cases: names.cases.map((c) => c.name), ours, cpu, torch});
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

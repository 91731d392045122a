// Shared test helpers: seeded random data, running one function on the
// 'wholememory' and the 'cpu' backends with the same inputs, and comparing.
import * as tf from '@tensorflow/tfjs-core';
import {createHash} from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import {expect} from 'chai';

import * as wm from '../src/index';

export {seededRng as rng} from '../src/util/random';
import {seededRng as rng} from '../src/util/random';

export type Values = Float32Array | Int32Array | Uint8Array;

export interface Input {
  shape: number[];
  dtype: tf.DataType;
  values: Values;
}

export function randomInput(
  shape: number[],
  dtype: tf.DataType,
  seed: number,
  opts: {min?: number; max?: number; specials?: boolean; nonZero?: boolean} = {},
): Input {
  const n = shape.reduce((a, b) => a * b, 1);
  const r = rng(seed);
  const min = opts.min ?? -3,
    max = opts.max ?? 3;
  if (dtype === 'bool') return {shape, dtype, values: Uint8Array.from({length: n}, () => (r() < 0.5 ? 1 : 0))};
  if (dtype === 'int32') {
    return {
      shape,
      dtype,
      values: Int32Array.from({length: n}, () => {
        let v = Math.floor(min + r() * (max - min + 1));
        if (opts.nonZero && v === 0) v = 1;
        return v;
      }),
    };
  }
  const specials = [NaN, Infinity, -Infinity, 0, -0];
  return {
    shape,
    dtype,
    values: Float32Array.from({length: n}, (_, i) => {
      if (opts.specials && i % 17 === 3) return specials[i % specials.length];
      let v = min + r() * (max - min);
      if (opts.nonZero && Math.abs(v) < 1e-3) v = 0.5;
      return v;
    }),
  };
}

function toTensor(i: Input): tf.Tensor {
  return tf.tensor(i.values, i.shape, i.dtype);
}

export interface Outcome {
  shape: number[];
  dtype: tf.DataType;
  values: Values;
}

/** Runs f on one backend with fresh tensors made from the inputs. */
export async function runOn(backendName: string, inputs: Input[], f: (...xs: tf.Tensor[]) => tf.Tensor | tf.Tensor[]): Promise<Outcome[]> {
  await tf.setBackend(backendName);
  const xs = inputs.map(toTensor);
  // Uploading first makes the wholememory run read device data, so the
  // native path (not the host copy) is what gets compared.
  if (backendName === wm.BACKEND_NAME && wm.deviceInfo().gpu) {
    for (const x of xs) if (['float32', 'int32', 'bool'].includes(x.dtype)) wm.backend().devicePtr(x);
  }
  const out = f(...xs);
  const outs = Array.isArray(out) ? out : [out];
  const res: Outcome[] = [];
  for (const o of outs) res.push({shape: o.shape, dtype: o.dtype, values: (await o.data()) as Values});
  xs.forEach((x) => x.dispose());
  outs.forEach((o) => o.dispose());
  return res;
}

/** Expects the promise to reject with a message matching the pattern. */
export async function expectReject(p: Promise<unknown>, pattern: RegExp): Promise<void> {
  try {
    await p;
  } catch (e) {
    expect((e as Error).message).to.match(pattern);
    return;
  }
  expect.fail(`expected a rejection matching ${pattern}`);
}

export function expectClose(actual: Outcome, expected: Outcome, what: string, rtol = 1e-5, atol = 1e-6): void {
  expect(actual.shape, `${what}: shape`).to.deep.equal(expected.shape);
  expect(actual.dtype, `${what}: dtype`).to.equal(expected.dtype);
  expect(actual.values.length, `${what}: length`).to.equal(expected.values.length);
  for (let i = 0; i < expected.values.length; ++i) {
    const a = actual.values[i],
      e = expected.values[i];
    if (Number.isNaN(e)) {
      if (!Number.isNaN(a)) expect.fail(`${what}: [${i}] is ${a}, expected NaN`);
      continue;
    }
    if (a === e) continue;
    if (actual.dtype !== 'float32' || !(Math.abs(a - e) <= atol + rtol * Math.abs(e))) {
      expect.fail(`${what}: [${i}] is ${a}, expected ${e} (of ${expected.values.length})`);
    }
  }
}

/**
 * Checks that f gives the same result on 'wholememory' (native kernels on a
 * GPU) as on 'cpu', and that the listed kernels ran natively.
 */
export async function checkAgainstCpu(
  what: string,
  inputs: Input[],
  f: (...xs: tf.Tensor[]) => tf.Tensor | tf.Tensor[],
  opts: {kernels?: string[]; rtol?: number; atol?: number} = {},
): Promise<void> {
  wm.resetFallbackCounts();
  const got = await runOn(wm.BACKEND_NAME, inputs, f);
  const counts = wm.fallbackCounts();
  const want = await runOn('cpu', inputs, f);
  await tf.setBackend(wm.BACKEND_NAME);
  expect(got.length, `${what}: outputs`).to.equal(want.length);
  got.forEach((g, i) => expectClose(g, want[i], `${what}[${i}]`, opts.rtol, opts.atol));
  for (const k of opts.kernels ?? []) {
    if (nativeHere(k)) expect(counts[k] ?? 0, `${what}: ${k} fell back to tfjs-backend-cpu`).to.equal(0);
  }
}

/** Whether `kernel` runs natively here (GPU, or the C++ CPU core). */
export function nativeHere(_kernel: string): boolean {
  const b = wm.backend();
  return b.gpu || b.hostKernels;
}

/** `npm run test:gpu` sets WM_REQUIRE_GPU=1: then a machine without a usable GPU is a failure, not a pass. */
export function assertGpuIfRequired(): void {
  if (process.env.WM_REQUIRE_GPU === '1' && !wm.deviceInfo().gpu) {
    throw new Error(`npm run test:gpu needs a GPU, and none is usable here: ${wm.deviceInfo().reason}`);
  }
}

/** Skips a test that only means something on a GPU. */
export function gpuOnly(ctx: Mocha.Context): void {
  if (!wm.deviceInfo().gpu) ctx.skip();
}

/** The newest committed shard folder of a checkpoint or WholeMemory save in `dir` (util/committed_sets.ts). */
export function committedShard(dir: string, rank = 0): string {
  const commit = JSON.parse(fs.readFileSync(path.join(dir, 'COMMIT.json'), 'utf8'));
  return path.join(dir, commit.sets[0].name, `rank-${rank}`);
}

/** Records the newest set's meta.json files as they are now in COMMIT.json (a test's edit of them, made consistent). */
export function recommit(dir: string): void {
  const file = path.join(dir, 'COMMIT.json');
  const commit = JSON.parse(fs.readFileSync(file, 'utf8'));
  const set = commit.sets[0];
  set.shards.forEach((s: {digest: string}, r: number) => {
    s.digest = createHash('sha256')
      .update(fs.readFileSync(path.join(dir, set.name, `rank-${r}`, 'meta.json')))
      .digest('hex');
  });
  fs.writeFileSync(file, JSON.stringify(commit));
}

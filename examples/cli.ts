// What the examples share: option parsers — a bad value stops the run with
// the option's name and the rule it broke (commander's usage error, no stack
// trace), before anything is loaded — and the backend's start.
import * as tf from '@tensorflow/tfjs-core';
import {InvalidArgumentError} from 'commander';

import * as wm from '../src/index';

/** Selects the wholememory backend; says where training runs ('GPU 0 (name)' or 'CPU') and, on the CPU, why. */
export async function startBackend(): Promise<{where: string; dev: ReturnType<typeof wm.deviceInfo>}> {
  await tf.setBackend(wm.BACKEND_NAME);
  const dev = wm.deviceInfo();
  const fallback = dev.gpu ? null : wm.installReport().fallback;
  if (fallback) console.log(`no GPU in use: ${fallback.cause} (npx tfjs-wm-doctor says more)`);
  return {where: dev.gpu ? `GPU ${dev.device} (${dev.name})` : 'CPU', dev};
}
export function positiveInt(name: string): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive integer, got "${v}"`);
    return n;
  };
}

export function nonNegativeInt(name: string): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a non-negative integer, got "${v}"`);
    return n;
  };
}

export function positiveNumber(name: string): (v: string) => number {
  return (v) => {
    const x = Number(v);
    if (!Number.isFinite(x) || x <= 0) throw new InvalidArgumentError(`${name} must be a positive number, got "${v}"`);
    return x;
  };
}

export function nonNegativeNumber(name: string): (v: string) => number {
  return (v) => {
    const x = Number(v);
    if (!Number.isFinite(x) || x < 0) throw new InvalidArgumentError(`${name} must be a non-negative number, got "${v}"`);
    return x;
  };
}

/** A rate in [0, 1). */
export function fraction(name: string): (v: string) => number {
  return (v) => {
    const x = Number(v);
    if (!(x >= 0 && x < 1) || v.trim() === '') throw new InvalidArgumentError(`${name} must be a number in [0, 1), got "${v}"`);
    return x;
  };
}

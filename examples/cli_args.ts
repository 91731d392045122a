// Option parsers the examples share: a bad value stops the run with the
// option's name and the rule it broke (commander's usage error, no stack
// trace), before anything is loaded.
import {InvalidArgumentError} from 'commander';
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

// Whether a request for memory can be met at all, checked before anything is
// allocated: a request past what the memory type can hold is refused with the
// numbers, instead of filling shared memory until the OOM killer strikes or
// asking the GPU for more managed memory than it has.
import * as os from 'os';

import {deviceStatus} from '../native/device';
import {memoryNative} from '../native/domains';

/** The most rows a table may have: ids are int32 on every path. */
export const MAX_ROWS = 2 ** 31 - 1;

const GiB = 2 ** 30;
const fmt = (b: number) => (b >= GiB ? `${(b / GiB).toFixed(2)} GiB` : `${b} bytes`);

/** Elements of a shape, refusing non-integers and products past 2^53. */
export function elementsOf(what: string, shape: readonly number[]): number {
  let n = 1;
  for (const [i, d] of shape.entries()) {
    if (!Number.isSafeInteger(d) || d < 0) throw new RangeError(`${what}: shape[${i}] must be a non-negative integer, got ${d}`);
    n *= d;
  }
  if (!Number.isSafeInteger(n)) throw new RangeError(`${what}: shape ${JSON.stringify(shape)} has more than 2^53 elements`);
  return n;
}

export function checkRows(what: string, rows: number): void {
  if (rows > MAX_ROWS) throw new RangeError(`${what}: ${rows} rows is more than ${MAX_ROWS} (2^31 - 1), the most int32 ids can address`);
}

/** Bytes the GPU has free now (0 without a GPU). */
export function deviceFreeBytes(): number {
  return deviceStatus().gpu ? memoryNative().memoryInfo().freeBytes : 0;
}

/**
 * Throws unless `bytes` fit where they are going: host (and host shared)
 * memory against the machine's physical memory, device memory against what
 * the GPU has free now, managed memory against both.
 */
export function checkCapacity(what: string, bytes: number, where: 'host' | 'device' | 'managed'): void {
  if (where === 'host' || where === 'managed') {
    const total = os.totalmem();
    if (bytes > total) throw new RangeError(`${what}: ${fmt(bytes)} of host memory asked for, and this machine has ${fmt(total)} in all`);
  }
  if ((where === 'device' || where === 'managed') && deviceStatus().gpu) {
    const free = memoryNative().memoryInfo().freeBytes;
    if (bytes > free) throw new RangeError(`${what}: ${fmt(bytes)} of GPU memory asked for, and the GPU has ${fmt(free)} free`);
  }
}

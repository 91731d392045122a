// Timing helpers shared by the benchmarks: the median of synchronised
// repetitions after warm-up.
import * as wm from '../src/index';

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median wall time of fn in ms, the GPU synchronised around each repetition. */
export function timeMs(fn: () => void, reps = 20, warm = 3): number {
  for (let i = 0; i < warm; ++i) fn();
  wm.synchronize();
  const t: number[] = [];
  for (let i = 0; i < reps; ++i) {
    const t0 = process.hrtime.bigint();
    fn();
    wm.synchronize();
    t.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(t);
}

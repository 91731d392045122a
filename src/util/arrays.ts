// Typed arrays filled by a function of the index. A plain loop: V8 runs
// `Int32Array.from({length}, fn)` through the generic iterator path, ~10x
// slower (0.7 ms against 0.06 ms for 25,600 entries on the CPU box), and
// these run once per layer per training step.
export function int32Of(n: number, f: (i: number) => number): Int32Array {
  const a = new Int32Array(n);
  for (let i = 0; i < n; ++i) a[i] = f(i);
  return a;
}

export function float32Of(n: number, f: (i: number) => number): Float32Array {
  const a = new Float32Array(n);
  for (let i = 0; i < n; ++i) a[i] = f(i);
  return a;
}

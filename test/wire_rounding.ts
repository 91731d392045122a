// Reference rounding of float32 values to the all-reduce's 16-bit wire types
// (round to nearest, ties to even), written apart from the C++ and CUDA
// conversions so tests compare two implementations.
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

function roundBfloat16(x: number): number {
  if (Number.isNaN(x)) return NaN;
  f32[0] = x;
  const u = u32[0];
  const lower = u & 0xffff;
  let hi = u >>> 16;
  if (lower > 0x8000 || (lower === 0x8000 && (hi & 1) === 1)) hi += 1;
  u32[0] = (hi << 16) >>> 0;
  return f32[0];
}

function roundFloat16(x: number): number {
  if (Number.isNaN(x) || x === 0 || !Number.isFinite(x)) return x;
  const a = Math.abs(x);
  if (a >= 65520) return Math.sign(x) * Infinity; // past the largest half (65504) by half a step or more
  let e = Math.max(-14, Math.floor(Math.log2(a)));
  if (e > -14 && 2 ** e > a) --e;
  if (2 ** (e + 1) <= a) ++e;
  const step = 2 ** (e - 10); // float16 has 10 fraction bits; below 2^-14 the step stays 2^-24
  const q = a / step; // exact in double
  const fl = Math.floor(q);
  const r = q - fl > 0.5 || (q - fl === 0.5 && fl % 2 === 1) ? fl + 1 : fl;
  return Math.sign(x) * r * step;
}

export function roundToWire(x: number, wire: 'float32' | 'float16' | 'bfloat16'): number {
  return wire === 'bfloat16' ? roundBfloat16(x) : wire === 'float16' ? roundFloat16(x) : Math.fround(x);
}

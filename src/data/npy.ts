// NumPy .npy files (format versions 1-3): the header dictionary read
// properly, float32 / float16 / float64 in C order, returned as float32.
// Every error names the file and the byte offset it found wrong.
import * as fs from 'fs';

import {writeBytes} from '../util/files';

export interface NpyArray {
  shape: number[];
  /** The values as float32 (float16 and float64 converted). */
  data: Float32Array;
  /** The dtype stored in the file. */
  stored: 'float32' | 'float16' | 'float64';
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

const float16Table = (() => {
  const t = new Float32Array(65536);
  for (let h = 0; h < 65536; ++h) {
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >> 10) & 0x1f;
    const frac = h & 0x3ff;
    t[h] = exp === 0 ? sign * 2 ** -14 * (frac / 1024) : exp === 31 ? (frac ? NaN : sign * Infinity) : sign * 2 ** (exp - 15) * (1 + frac / 1024);
  }
  return t;
})();

/** The value of a Python literal in a .npy header: strings, booleans, tuples of integers. */
function parseHeader(text: string, file: string, at: number): {descr: string; fortran: boolean; shape: number[]} {
  const field = (key: string): string => {
    const m = new RegExp(`['"]${key}['"]\\s*:\\s*`).exec(text);
    if (!m) throw new Error(`${file}: byte ${at}: the header has no '${key}' (${text.trim()})`);
    return text.slice(m.index + m[0].length);
  };
  const descr = /^['"]([^'"]*)['"]/.exec(field('descr'));
  const fortran = /^(True|False)/.exec(field('fortran_order'));
  const shape = /^\(([^)]*)\)/.exec(field('shape'));
  if (!descr || !fortran || !shape) throw new Error(`${file}: byte ${at}: cannot read the header ${text.trim()}`);
  const dims = shape[1]
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => {
      const v = Number(s.replace(/L$/, ''));
      if (!Number.isSafeInteger(v) || v < 0) throw new Error(`${file}: byte ${at}: shape entry "${s}" is not a size`);
      return v;
    });
  return {descr: descr[1], fortran: fortran[1] === 'True', shape: dims};
}

/** What a .npy header says, and where the data starts. */
export interface NpyHeader {
  shape: number[];
  /** NumPy's dtype string, e.g. '<f4', '<i8'. */
  descr: string;
  fortran: boolean;
  /** Byte offset of the data, and the file's size. */
  dataStart: number;
  fileBytes: number;
}

/** The header of a .npy file, read without reading its data (a graph's edges may be many GB). */
export function readNpyHeader(file: string): NpyHeader {
  const fd = fs.openSync(file, 'r');
  try {
    const fileBytes = fs.fstatSync(fd).size;
    const head = Buffer.alloc(12);
    const got = fs.readSync(fd, head, 0, 12, 0);
    if (got < 10 || MAGIC.some((b, i) => head[i] !== b)) throw new Error(`${file}: byte 0: not a .npy file (no \\x93NUMPY magic)`);
    const major = head[6];
    if (major < 1 || major > 3) throw new Error(`${file}: byte 6: .npy format version ${major} is not 1, 2 or 3`);
    const lenBytes = major === 1 ? 2 : 4;
    const headerLen = lenBytes === 2 ? head.readUInt16LE(8) : head.readUInt32LE(8);
    const dataStart = 8 + lenBytes + headerLen;
    if (dataStart > fileBytes) throw new Error(`${file}: byte ${8 + lenBytes}: the header says ${headerLen} bytes, the file ends at ${fileBytes}`);
    const text = Buffer.alloc(headerLen);
    fs.readSync(fd, text, 0, headerLen, 8 + lenBytes);
    const header = parseHeader(text.toString(major === 3 ? 'utf8' : 'latin1'), file, 8 + lenBytes);
    return {...header, dataStart, fileBytes};
  } finally {
    fs.closeSync(fd);
  }
}

/** The float element type of a .npy header and its width in bytes; refused, naming the file, for any other. */
export function npyFloatKind(header: NpyHeader, file: string): {stored: NpyArray['stored']; width: number} {
  if (header.fortran) throw new Error(`${file}: Fortran-order arrays are not read here; save with C order (np.ascontiguousarray)`);
  const kinds: Record<string, [NpyArray['stored'], number]> = {
    '<f4': ['float32', 4],
    '<f2': ['float16', 2],
    '<f8': ['float64', 8],
    '|f4': ['float32', 4],
  };
  const kind = kinds[header.descr];
  if (!kind) throw new Error(`${file}: dtype '${header.descr}' is not little-endian float32, float16 or float64`);
  const count = header.shape.reduce((a, b) => a * b, 1);
  const want = count * kind[1];
  const have = header.fileBytes - header.dataStart;
  if (have !== want) {
    throw new Error(
      `${file}: byte ${header.dataStart}: shape (${header.shape.join(', ')}) of ${kind[0]} needs ${want} bytes of data, the file holds ${have}`,
    );
  }
  return {stored: kind[0], width: kind[1]};
}

/** float16 bits as float32 values, into `out` (a new array by default). */
export function float16ToFloat32(bits: Uint16Array, out: Float32Array = new Float32Array(bits.length)): Float32Array {
  for (let i = 0; i < bits.length; ++i) out[i] = float16Table[bits[i]];
  return out;
}

/**
 * float32 values as float16 bits, rounded to nearest, ties to even (IEEE 754's default, what a GPU's conversion
 * gives): past float16's range to infinity, below its smallest subnormal to zero, NaN kept NaN.
 */
export function float32ToFloat16(values: Float32Array, out: Uint16Array = new Uint16Array(values.length)): Uint16Array {
  if (out.length < values.length) throw new RangeError(`float32ToFloat16: out holds ${out.length} values, ${values.length} given`);
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  for (let i = 0; i < bits.length; ++i) {
    const b = bits[i];
    const sign = (b >>> 16) & 0x8000,
      exp = (b >>> 23) & 0xff,
      mant = b & 0x7fffff;
    const e = exp - 112; // float16's biased exponent
    let h: number;
    if (exp === 0xff) h = mant ? 0x7e00 : 0x7c00;
    else if (e >= 0x1f) h = 0x7c00;
    else if (e > 0) {
      // 23 mantissa bits to 10; a carry out of the mantissa raises the exponent (to infinity at the top), as it should.
      h = (e << 10) | (mant >>> 13);
      const rest = mant & 0x1fff;
      if (rest > 0x1000 || (rest === 0x1000 && h & 1)) ++h;
    } else if (e >= -10) {
      // A subnormal: the significand with its leading 1, in units of 2^-24.
      const m = mant | 0x800000,
        shift = 14 - e;
      h = m >>> shift;
      const rest = m & ((1 << shift) - 1),
        half = 1 << (shift - 1);
      if (rest > half || (rest === half && h & 1)) ++h;
    } else h = 0;
    out[i] = sign | h;
  }
  return out;
}

export function readNpy(file: string): NpyArray {
  const header = readNpyHeader(file);
  const {stored} = npyFloatKind(header, file);
  const buf = fs.readFileSync(file);
  if (buf.length !== header.fileBytes) throw new Error(`${file}: changed while read (${header.fileBytes} bytes, then ${buf.length})`);
  const count = header.shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(count);
  const raw = buf.subarray(header.dataStart);
  // float32 is copied as it is (the bytes are little-endian, as the platforms Node runs on are).
  if (stored === 'float32') new Uint8Array(data.buffer).set(raw);
  else if (stored === 'float64') for (let i = 0; i < count; ++i) data[i] = raw.readDoubleLE(i * 8);
  else for (let i = 0; i < count; ++i) data[i] = float16Table[raw.readUInt16LE(i * 2)];
  return {shape: header.shape, data, stored};
}

/** The header of a C-order .npy (version 1, padded to 64 bytes) of `descr` ('<f4', '<f2', '<i4', '<i8') and `shape`. */
export function npyHeader(descr: string, shape: number[]): Buffer {
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const head = Buffer.alloc(10);
  Buffer.from(MAGIC).copy(head, 0);
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, 'latin1')]);
}

/** Writes a C-order .npy (version 1) of float32, int32 or int64: for fixtures and exports. */
export function writeNpy(file: string, data: Float32Array | Int32Array | BigInt64Array, shape: number[]): void {
  const descr = data instanceof Float32Array ? '<f4' : data instanceof Int32Array ? '<i4' : '<i8';
  writeBytes(file, [npyHeader(descr, shape), new Uint8Array(data.buffer, data.byteOffset, data.byteLength)]);
}

// Properties of the CUDA code as nvcc compiles it, checked where nvcc is
// (CI compiles the CUDA core but has no GPU to time it on): a slip here
// costs speed, not correctness, so no result test would see it.
import {execFile, spawnSync} from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {promisify} from 'util';

import {expect} from 'chai';
import {tempDir} from './temp_dirs';

const root = path.resolve(__dirname, '..', '..');

function findNvcc(): string | undefined {
  const candidates = [process.env.CUDACXX, 'nvcc', '/usr/local/cuda/bin/nvcc'].filter((c): c is string => !!c);
  return candidates.find((c) => spawnSync(c, ['--version'], {stdio: 'ignore'}).status === 0);
}

/** A CUDA file of the core by name: native/src/<domain>/<file>. */
function sourceOf(file: string): string {
  const src = path.join(root, 'native', 'src');
  const domain = fs.readdirSync(src).find((d) => fs.existsSync(path.join(src, d, file)));
  if (domain === undefined) throw new Error(`no native/src/<domain>/${file}`);
  return path.join(src, domain, file);
}

/** The PTX of one kernel file, split by entry (mangled name -> body). */
async function compiledEntries(nvcc: string, file: string): Promise<Map<string, string>> {
  const dir = tempDir('wm-ptx-');
  try {
    const out = path.join(dir, 'k.ptx');
    const args = [
      '-std=c++17',
      '-arch=sm_90a',
      '-O3',
      `-I${path.join(root, 'native', 'include')}`,
      `-I${path.join(root, 'native', 'src')}`,
    ];
    try {
      await promisify(execFile)(nvcc, [...args, '-ptx', sourceOf(file), '-o', out], {maxBuffer: 64 << 20});
    } catch (e) {
      throw new Error(`nvcc -ptx ${file} failed: ${(e as {stderr?: string}).stderr ?? e}`);
    }
    const ptx = fs.readFileSync(out, 'utf8');
    const found = new Map<string, string>();
    for (const part of ptx.split(/\.entry\s+/).slice(1))
      found.set(part.slice(0, part.indexOf('(')), part.slice(0, part.search(/\n}\s*\n/) + 1));
    return found;
  } finally {
    fs.rmSync(dir, {recursive: true, force: true});
  }
}

// Each file the checks read, compiled once, every file at once up to the CPUs this process may use.
const compiled = new Map<string, Map<string, string>>();

async function compileAll(nvcc: string, files: readonly string[]): Promise<void> {
  const queue = [...new Set(files)];
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) compiled.set(file, await compiledEntries(nvcc, file));
  };
  await Promise.all(Array.from({length: Math.max(1, Math.min(queue.length, os.availableParallelism()))}, worker));
}

function entries(file: string): Map<string, string> {
  const found = compiled.get(file);
  if (!found) throw new Error(`${file} was not compiled: add it to the files the checks read`);
  return found;
}

// The files each check reads (a kernel file's PTX counted or searched).
const ALLREDUCE_FILES = [
  ['allreduce_one_shot.cu', 48],
  ['allreduce_one_shot_stream.cu', 48],
  ['allreduce_two_shot.cu', 96],
] as const;
const STRIDED_FILES = [
  ['strided_copy.cu', /stridedCopyKernel/, 12, /stridedCopyKernel/, 6],
  ['binary.cu', /binaryStrided|selectKernel/, 22, /binaryStridedIf|selectKernel/, 5],
] as const;
const WINDOW_FILES = [
  'depthwise_conv.cu',
  'depthwise_input_grad.cu',
  'depthwise_filter_grad.cu',
  'pool2d.cu',
  'pool2d_grad.cu',
  'conv2d_forward.cu',
  'conv2d_input_grad.cu',
  'conv2d_filter_grad.cu',
];
const LOCAL_FILES = [
  'scatter_nd.cu',
  'allreduce_one_shot.cu',
  'allreduce_two_shot.cu',
  'row_dots.cu',
  'row_dots_grad.cu',
  'random_walk.cu',
];

describe('CUDA code as compiled', function () {
  const nvcc = findNvcc();
  before(async function () {
    if (!nvcc) this.skip();
    this.timeout(600000);
    await compileAll(nvcc!, [...ALLREDUCE_FILES.map(([f]) => f), ...STRIDED_FILES.map(([f]) => f), ...WINDOW_FILES, ...LOCAL_FILES]);
  });

  // Written as float4 assignments, nvcc once split them into 4-byte stores for 16-bit wires, four
  // times the store instructions (1 x H200, bfloat16 4 MiB on one rank: 19.9 µs per call, 8.4 after).
  // Per file: 3 wire types x 8 rank counts x pushed or pulled (the two-shot: in one stage or several).
  for (const [file, count] of ALLREDUCE_FILES) {
    it(`${file}: every all-reduce kernel (each wire type, 1-8 ranks) writes its float32 outputs 16 bytes at a time`, function () {
      this.timeout(300000);
      const kernels = [...entries(file)].filter(([name]) => /(oneShot|oneShotStream|twoShot)Kernel/.test(name));
      expect(kernels.length, 'kernels found').to.equal(count);
      const wires = new Set(kernels.map(([name]) => (/BFloat16/.test(name) ? 'bf16' : /Half16/.test(name) ? 'f16' : 'f32')));
      expect([...wires].sort()).to.deep.equal(['bf16', 'f16', 'f32']);
      const scalarOnly = kernels.filter(([, body]) => !/st\.global(\.wb)?\.v4\.f32/.test(body)).map(([name]) => name);
      expect(scalarOnly, 'kernels without a 16-byte float32 store').to.deep.equal([]);
    });
  }

  // Dims (shape and strides as kernel parameters) indexed by a run-time axis made nvcc copy every
  // parameter block into each thread's local memory: a 7-axis window copy of 2.4M elements took
  // 158 µs on an H100. The axis loops are unrolled so they read the parameters in place.
  // The 32-bit versions are the ones with no 64-bit division (binary ops on int32 divide in 64 bits
  // themselves, so only float32 and select are counted there).
  for (const [file, pattern, count, narrow, narrowCount] of STRIDED_FILES) {
    it(`${file}: the strided kernels keep their shape and strides out of local memory, and index in 32 bits when they can`, function () {
      this.timeout(300000);
      const kernels = [...entries(file)].filter(([name]) => pattern.test(name));
      expect(kernels.length, 'kernels found').to.equal(count);
      const local = kernels.filter(([, body]) => /(ld|st)\.local/.test(body)).map(([name]) => name);
      expect(local, 'kernels that copy their parameters to local memory').to.deep.equal([]);
      const in32 = kernels.filter(([name, body]) => narrow.test(name) && !/(div|rem)\.[us]64/.test(body));
      expect(in32.length, 'kernels with no 64-bit division').to.equal(narrowCount);
    });
  }
  // The window kernels take their geometry as a struct parameter; the <int> instances serve every
  // tensor below 2^31 elements and must divide in 32 bits.
  it('the 2-D window kernels (convolutions, depthwise, pools, gradients) use no local memory and divide in 32 bits in their int versions', function () {
    this.timeout(300000);
    for (const file of WINDOW_FILES) {
      const kernels = [...entries(file)].filter(([name]) => /_GLOBAL__N_.*Kernel/.test(name)); // ours, not scratch.cuh's iota
      const narrow = kernels.filter(([name]) => /KernelIiE/.test(name));
      expect(narrow.length, `${file}: int kernels found`).to.equal(1);
      expect(
        kernels.filter(([, body]) => /(ld|st)\.local/.test(body)).map(([n]) => n),
        `${file}: kernels using local memory`,
      ).to.deep.equal([]);
      expect(
        narrow.filter(([, body]) => /(div|rem)\.[us]64/.test(body)).map(([n]) => n),
        `${file}: int kernels dividing in 64 bits`,
      ).to.deep.equal([]);
    }
  });
  it('scatter_nd.cu, the all-reduce, row-dot and walk kernels keep their parameters and state out of local memory', function () {
    this.timeout(300000);
    for (const file of LOCAL_FILES) {
      const local = [...entries(file)].filter(([, body]) => /(ld|st)\.local/.test(body)).map(([name]) => name);
      expect(local, `${file}: kernels using local memory`).to.deep.equal([]);
    }
  });
});
